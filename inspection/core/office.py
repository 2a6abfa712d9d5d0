"""The issuing office as one small value: read from the configuration at the boundary, passed down."""
from dataclasses import dataclass, field

from flask import current_app

from inspection.law.legal_terms import TermPractice, navegabilidad_practice


@dataclass(frozen=True)
class Office:
    """Who issues certificates and where their QR codes point; what issuing and verifying need to know."""

    code: str
    name: str
    public_url: str
    prefect_name: str = ""  # art. 221: the Prefecto General de Puertos signs every certificate
    auto_signing_key: bool = False  # the demo may make the office's first key on first issue
    # The navegabilidad term the office practises (no legal term, arts. 201, 203).
    navegabilidad: TermPractice = field(default_factory=navegabilidad_practice)
    # Art. 221: a reviewed kind's certificate is issued at the countersignature ("countersignature") or at the
    # inspector's closing, the countersignature following ("closing"); config.COUNTERSIGN_VALIDITY.
    countersign_validity: str = "closing"


def current_office() -> Office:
    """The configured office (BALIZA_OFFICE_CODE, BALIZA_OFFICE_NAME, BALIZA_PUBLIC_URL, ...)."""
    config = current_app.config
    return Office(code=config["OFFICE_CODE"], name=config["OFFICE_NAME"], public_url=config["PUBLIC_URL"],
                  prefect_name=config.get("PREFECT_NAME", ""), auto_signing_key=bool(config["AUTO_SIGNING_KEY"]),
                  navegabilidad=navegabilidad_practice(config.get("NAVEGABILIDAD_MONTHS")),
                  countersign_validity=config.get("COUNTERSIGN_VALIDITY", "closing"))
