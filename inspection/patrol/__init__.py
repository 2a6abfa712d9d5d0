"""Patrol checks (issue 23): a police or harbour patrol's short check of a vessel or unregistered craft, recorded
offline on a phone, with its outcome and its consequences (the owner's fleet, staff notices, the dashboard)."""
