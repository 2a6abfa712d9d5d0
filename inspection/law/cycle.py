"""The semestral cycle as pure rules: when to apply, whether an application is late, what it costs, a vessel's state.

Values in, values out; `today` is always a parameter and every figure comes from legal_terms.toml.

- Seguridad: the owner applies "un mes antes del vencimiento" (art. 222); applying after that day,
  or not before expiry, is the fine of art. 225. The day itself is in time.
- Navegabilidad: "a su debido tiempo" (art. 204) names no date; read as on or before expiry. Late
  costs the double fee of the new inspection (art. 204: one extra fee); the fine the article leaves
  unnamed only where the installation sets an amount (BALIZA_HULL_LATE_FINE), billed as the Prefectura's.
- A vessel with no certificate of a kind yet has nothing to renew, so its first application is never late.
- State: a needed certificate never issued is `missing`; revoked or suspended (a detention, an open
  detainable deficiency, a decision) is `suspended`; expired is `overdue`; inside the application
  window [apply_by, valid_until] is `due_soon`; else `ok`. The vessel takes its worst kind.
"""
import calendar
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from inspection.i18n.messages import Msg
from inspection.law.legal_terms import application_months, fine_term

KINDS = ("navegabilidad", "seguridad")
STATES = ("ok", "due_soon", "missing", "overdue", "suspended")  # from best to worst
SOURCE = "Ley 928/1927"
# What a certificate of each kind cites as its legal basis, as printed on it.
CERTIFICATE_ARTICLES = {
    "navegabilidad": ["Ley N.º 928/1927, arts. 201 a 210 (inspección de cascos)"],
    "seguridad": [
        "Ley N.º 928/1927, art. 168 (elementos de a bordo)",
        "Ley N.º 928/1927, arts. 211 a 226 (máquinas y calderas)",
    ],
}


def add_months(day: date, months: int) -> date:
    """The same day `months` later, clamped to the month's end (31 Aug + 6 months = 28/29 Feb)."""
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def apply_by(valid_until: date, kind: str = "seguridad") -> date:
    """The last day to apply for the next inspection: a month before expiry (art. 222; the hull by practice)."""
    return add_months(valid_until, -application_months(kind))


def late_after(kind: str, valid_until: date) -> date:
    """The last day an application is in time: apply_by for seguridad (arts. 222, 225), expiry for the hull (art. 204)."""
    return apply_by(valid_until, kind) if kind == "seguridad" else valid_until


@dataclass(frozen=True)
class Fine:
    """One charge for a late application: its article, amount and reason in both languages."""

    code: str  # late_application (art. 225), double_fee or late_hull (art. 204): one of each per expiry
    source: str
    article: str
    amount: Decimal
    reason: Msg

    @property
    def reason_es(self) -> str:
        return self.reason.in_language("es")

    @property
    def reason_en(self) -> str:
        return self.reason.in_language("en")


def assess_application(kind: str, applied_on: date, valid_until: date | None, *, fee: Decimal = Decimal(0),
                       hull_fine: Decimal = Decimal(0)) -> tuple[bool, list[Fine]]:
    """(late, fines) of an application filed on `applied_on` for the certificate expiring `valid_until`.

    `fee` is the inspection's fee (arts. 209, 233) that art. 204 doubles; `hull_fine` the amount the installation
    set for the fine art. 204 leaves unnamed (0, the default: none).
    """
    if valid_until is None:
        return False, []
    deadline = late_after(kind, valid_until)
    if applied_on <= deadline:
        return False, []
    term = fine_term(kind)
    if kind == "seguridad":
        return True, [Fine("late_application", SOURCE, term.article, term.amount, Msg(
            "Solicitud presentada después del {deadline}, un mes antes del vencimiento del {until} (arts. 222 y 225).",
            deadline=deadline, until=valid_until))]
    fines = []
    if fee:
        fines.append(Fine("double_fee", SOURCE, term.article, fee * (term.fee_multiplier - 1), Msg(
            "Inspección del casco solicitada después del vencimiento del {until}: se abona el doble del arancel (art. 204).",
            until=valid_until)))
    if hull_fine:
        fines.append(Fine("late_hull", SOURCE, term.article, hull_fine, Msg(
            "Multa por no solicitar a su debido tiempo la inspección del casco, vencida el {until} (art. 204, que no "
            "fija el monto: práctica de la Prefectura, que fijó esta cifra).", until=valid_until)))
    return True, fines


@dataclass(frozen=True)
class CertificateFacts:
    """What the state needs of a vessel's current certificate of one kind: its derived status and expiry."""

    status: str  # valid, expired, suspended, revoked (certificates.derive_status)
    valid_until: date


def kind_state(needed: bool, certificate: CertificateFacts | None, kind: str, today: date) -> str:
    """The state of one certificate kind of a vessel (module docstring)."""
    if not needed:
        return "ok"
    if certificate is None:
        return "missing"
    if certificate.status in ("revoked", "suspended"):
        return "suspended"
    if certificate.status == "expired" or certificate.valid_until < today:
        return "overdue"
    if today >= apply_by(certificate.valid_until, kind):
        return "due_soon"
    return "ok"


def vessel_state(needs: tuple[str, ...], certificates: dict[str, CertificateFacts | None], today: date) -> str:
    """ok, due_soon, overdue, suspended or missing: the worst state of the kinds the vessel needs."""
    states = [kind_state(kind in needs, certificates.get(kind), kind, today) for kind in KINDS]
    return max(states, key=STATES.index)


def needed_kinds(exempt: dict[str, bool]) -> tuple[str, ...]:
    """The certificate kinds a vessel needs, from its checklists' exemptions (hull art. 210, machinery art. 211)."""
    return tuple(kind for kind in KINDS if not exempt.get(kind, False))


@dataclass(frozen=True)
class Window:
    """The next inspection's window: apply from `opens_on` (art. 222), inspected by `due_on` (expiry)."""

    kind: str
    opens_on: date
    due_on: date


def next_inspection_window(certificate) -> Window:
    """The next inspection a certificate (anything with `kind` and `valid_until`) puts on the calendar."""
    return Window(certificate.kind, apply_by(certificate.valid_until, certificate.kind), certificate.valid_until)
