"""When a certificate is issued and countersigned (art. 221): the kinds the Prefecto countersigns, whether the closing
issues their certificate or the countersignature does, and the term a certificate issued at the closing waits."""
from datetime import date

from inspection.core.models import Certificate, Inspection
from inspection.core.office import Office
from inspection.law.legal_terms import countersignature

PASSED = ("passed", "passed_with_observations")


def reviewed(kind: str) -> bool:
    """Whether a kind's inspections wait for the countersignature (art. 221: the safety certificate's)."""
    return kind in countersignature().kinds


def issues_at_closing(inspection: Inspection, office: Office) -> bool:
    """Whether the closing issues the certificate (kinds nobody countersigns, or the "closing" validity)."""
    return not reviewed(inspection.kind) or office.countersign_validity == "closing"


def enter_review(inspection: Inspection, certificate: Certificate | None, today: date) -> None:
    """A closed inspection of a reviewed kind waits for the countersignature; a certificate issued at the closing
    names the practice's last day for it (legal_terms.toml [countersignature] days), after which it is overdue."""
    if not reviewed(inspection.kind):
        return
    inspection.review_status = "pending"
    if certificate is not None:
        certificate.countersign_due_on = date.fromordinal(today.toordinal() + countersignature().days)
