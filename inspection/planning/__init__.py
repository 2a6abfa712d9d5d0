"""The planning board for the authority's staff: pending applications, expiring and overdue certificates, each
inspector's week, and assigning an application or a vessel to an inspector in one step.
"""
from inspection.planning.board import assign_application, assign_vessel, planning_board

__all__ = ["planning_board", "assign_application", "assign_vessel"]
