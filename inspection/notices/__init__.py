"""Reminders and notices: the daily run (the art. 225 fine sweep, then every notice due), notices kept once per
recipient and read in the app or emailed, and private iCalendar feeds of due dates and assignments.
"""
from inspection.notices.notices import deliver_notices, record_notices
from inspection.notices.reminders import run_reminders

__all__ = ["run_reminders", "record_notices", "deliver_notices"]
