"""The owner's side: the fleet at a glance (what is due, overdue, to be fixed, owed) and applying for an inspection, as
pages (/flota, /solicitudes) and as the semestral cycle's API (blueprint `api_applications`).
"""
from inspection.fleet.overview import fleet_of

__all__ = ["fleet_of"]
