"""Closing an inspection: submit it and, when it passed, issue its certificate, in one unit of work."""
from collections.abc import Callable
from datetime import date, datetime

from .certificates import issue_certificate
from .inspections import submit_inspection
from .models import Inspection, User
from .office import Office
from .storage import MediaStorage


def close_inspection(actor: User, inspection: Inspection, data: dict, office: Office, signer: Callable[[], tuple],
                     today: date, now: datetime, storage: MediaStorage) -> dict:
    """Submit (outcome, deficiencies, signatures, re-inspection) and issue the certificate of a passed inspection.

    The certificate's dates are the office's `today` at the server, whatever the tablet's closing time.
    """
    result = submit_inspection(actor, inspection, data, today, now, storage)
    certificate = None
    if result["outcome"] in ("passed", "passed_with_observations"):
        certificate = issue_certificate(actor, inspection, office, signer, today, now, data.get("valid_until"))
    return {**result, "certificate": certificate}
