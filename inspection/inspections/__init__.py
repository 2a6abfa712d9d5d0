"""Inspections from schedule to close: start against a pinned checklist version, record answers and photos, submit with
signatures, compute the outcome, close and issue the certificate in one unit of work, deficiencies and detentions;
the tablet's sync batch and agenda, and photos filed once per client_id. Its faces are the office's inspection pages
and the inspections, fees and reports API.
"""
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import record_answer, schedule_inspection, start_inspection, submit_inspection
from inspection.inspections.photo_once import item_photo_once, photo_once
from inspection.inspections.sync import apply_sync_batch

__all__ = ["schedule_inspection", "start_inspection", "record_answer", "submit_inspection", "close_inspection", "apply_sync_batch", "item_photo_once", "photo_once"]
