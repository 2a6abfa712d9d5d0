"""Closing an inspection: submit it and, when it passed, issue its certificate, in one unit of work."""
from collections.abc import Callable
from datetime import date, datetime, tzinfo

from inspection.certificates.countersign import PASSED, enter_review, issues_at_closing
from inspection.certificates.operations import issue_certificate
from inspection.core.clock import local_date_at
from inspection.core.models import Inspection, User
from inspection.core.office import Office
from inspection.cycle.applications import complete_applications
from inspection.cycle.billing import assess_inspection_fines, closing_services
from inspection.inspections.operations import require_inspector, submit_inspection
from inspection.media.storage import MediaStorage


def close_inspection(actor: User, inspection: Inspection, data: dict, office: Office, signer: Callable[[], tuple],
                     today: date, now: datetime, storage: MediaStorage, zone: tzinfo) -> dict:
    """Submit (outcome, deficiencies, signatures, re-inspection), record the art. 233 services and the art. 232
    fine, and issue the certificate of a passed inspection, unless its kind's is issued at the countersignature
    (art. 221, certificates/countersign.py); a reviewed kind then waits in the Prefecto's queue.

    The certificate is issued on the office's `today` at the server; its term runs from the office date
    (`zone`) of the tablet's closing time, the inspection performed (art. 207; INTERPRETATIONS.md).
    """
    require_inspector(actor, inspection)  # who may close comes before what the closing says
    services = closing_services(inspection, data)  # refused before anything is written
    result = submit_inspection(actor, inspection, data, today, now, storage)
    inspection.reports, inspection.valve_reseals = services["reports"], services["valve_reseals"]  # art. 233
    assess_inspection_fines(inspection, result["deficiencies"], today)  # art. 232
    inspection.chosen_valid_until = data.get("valid_until")  # a certificate issued at the countersignature keeps it
    certificate = None
    if result["outcome"] in PASSED and issues_at_closing(inspection, office):
        inspected_on = local_date_at(inspection.submitted_at, zone)
        certificate = issue_certificate(actor, inspection, office, signer, today, now, inspected_on,
                                        data.get("valid_until"))
        complete_applications(inspection)  # the next inspection is now the new certificate's window
    enter_review(inspection, certificate, today)  # art. 221: the Prefecto's countersignature follows
    return {**result, "certificate": certificate}
