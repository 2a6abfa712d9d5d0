"""Running the installation: `flask` commands (users, checklists, reminders, keys, media, backup and restore), the demo
data, and `/healthz` for the load balancer.
"""
