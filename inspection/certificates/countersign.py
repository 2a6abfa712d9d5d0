"""When a certificate is issued and countersigned (art. 221): the kinds the Prefecto countersigns, whether the closing
issues their certificate or the countersignature does, and the term a certificate issued at the closing waits."""
from datetime import date, timedelta

from inspection.certificates.signing import InvalidJws, sign_jws, verify_jws
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
        certificate.countersign_due_on = today + timedelta(days=countersignature().days)


SEAL_TYP = "countersign+jwt"


def seal_countersignature(claims: dict, kid: str, private_key) -> str:
    """The office's digital signature over a countersignature's facts (art. 221): a compact JWS (ES256) with the
    office's certificate key, so the act can be checked with the public keys the verifier already keeps."""
    return sign_jws(SEAL_TYP, claims, kid, private_key)


class BrokenSeal(InvalidJws):
    """A countersignature's seal that is not one, or not the office's."""


def open_seal(jws: str, public_keys: dict) -> dict:
    """The facts a countersignature's seal vouches for, checked against {kid: public key} (the published keys)."""
    try:
        return verify_jws(jws, SEAL_TYP, public_keys)[1]
    except InvalidJws as error:
        raise BrokenSeal(error.reason, str(error)) from None
