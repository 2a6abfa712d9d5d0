"""The authority's dashboard: the fleet's certificates over a year, what falls due, which articles fail and who
inspects, drawn as SVG charts on the server, each with its CSV.
"""
from inspection.dashboard.board import due_counts, failed_articles, fleet_validity

__all__ = ["fleet_validity", "due_counts", "failed_articles"]
