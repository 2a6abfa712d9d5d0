"""Certificates: issue after a passed inspection, derive status from records, decide, verify.

Terms run from the inspection's office date, not the issue date (art. 207 ties the next inspection
to the one performed). Navegabilidad: the term arts. 203 and 207 take from art. 201, which names no
figure, so the Prefectura's practice (a year, legal_terms.toml [practice]); seguridad six months (arts.
211, 225). The inspector may fix an earlier date for either (arts. 203, 211), never a later one. The owner
applies for the next inspection a month before expiry (art. 222). Status precedence, for the police
verdict: revoked > superseded > expired > suspended > valid (a certificate replaced or past its date says
so even while a detention stands).

A deficiency whose article orders a restriction instead of a detention (art. 73: daylight navigation only)
is issued with: the certificate's conditions say it, and its code is signed into the token (claim -7), so
the police see it on the QR's page and offline. It holds for that certificate's life: putting the failure
right is proved at the re-inspection (art. 206), whose certificate supersedes this one.

The police verdict on a scanned token (verify_certificate_token) comes first from the token, then
from the record: any encoding but the one issued is malformed (a 400); unknown_issuer and
invalid_signature are the token's own; a token signed with the office's key that is not the
certificate on record under its number (any claim or the key differs, or no such number) is
mismatch, whatever that certificate's status; only then the record's status by the precedence above.
"""
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import date, datetime, tzinfo
from decimal import Decimal
from functools import cache

from sqlalchemy import and_, bindparam, case, exists, literal, not_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from checklists import load_catalog
from inspection.certificates.numbering import format_number
from inspection.certificates.qrcodes import make_qr, verify_url
from inspection.certificates.signing import CertificateClaims, MalformedToken, decode_token, sign_certificate
from inspection.core.audit import record_event
from inspection.core.exceptions import Conflict, Forbidden, Invalid
from inspection.core.extensions import db
from inspection.core.readcache import data_stamp, raw_row
from inspection.core.models import Certificate, CertificateSerial, Deficiency, Detention, Inspection, User
from inspection.core.office import Office
from inspection.i18n.labels import standing_key, term_label
from inspection.i18n.messages import Msg
from inspection.law.cycle import CERTIFICATE_ARTICLES, add_months, apply_by, late_after
from inspection.law.legal_terms import TermPractice, certificate_months, earlier_term, navegabilidad_practice
from inspection.law.tonnage import shown_tonnage
from inspection.media.signatures import ROLES as SIGNATURE_ROLES

STATUS_CODES = {"valid": 0, "expired": 0, "revoked": 1, "suspended": 2, "superseded": 3}
STATUS_INDEX_COUNTER = ("status-index", 0)


# --- pure ------------------------------------------------------------------------------------------

def validity(kind: str, inspected_on: date, issued_on: date, chosen_until: date | None = None,
             practice: TermPractice | None = None) -> date:
    """Valid-until date from the inspection (art. 207): the kind's term, or an earlier date the inspector fixes.

    Never a later one: the law lets the inspector shorten the term (art. 203 navegabilidad, art. 211 seguridad)
    and nothing lengthens it. A seguridad date must leave the owner the month to apply in (art. 222).
    """
    months = (practice or navegabilidad_practice()).months if kind == "navegabilidad" else certificate_months(kind)
    term = add_months(inspected_on, months)
    if chosen_until is None:
        return term
    if chosen_until > term:
        raise Invalid(errors={"valid_until": [Msg(
            "El término no puede pasar del {until}, {months} meses desde la inspección: el inspector puede fijar "
            "una fecha anterior, no posterior (art. {article}).",
            until=term.isoformat(), months=months, article=earlier_term(kind).article)]})
    if chosen_until <= issued_on:
        raise Invalid(errors={"valid_until": [Msg("El término debe terminar después de la fecha de expedición, {on}.",
                                                  on=issued_on.isoformat())]})
    if late_after(kind, chosen_until) < issued_on:
        raise Invalid(errors={"valid_until": [Msg(
            "Con vencimiento el {until}, la solicitud de la próxima inspección vencería el {apply_by}, antes de la "
            "expedición del {on} (art. 222: un mes antes del vencimiento); elija una fecha posterior.",
            until=chosen_until.isoformat(), apply_by=apply_by(chosen_until, kind).isoformat(),
            on=issued_on.isoformat())]})
    return chosen_until


def application_due_on(valid_until: date, kind: str = "seguridad") -> date:
    """When the owner must apply for the next inspection: a month before expiry (art. 222; cycle.apply_by)."""
    return apply_by(valid_until, kind)


@dataclass(frozen=True)
class StatusFacts:
    """The records a certificate's status is derived from."""

    valid_until: date
    revoked: bool
    superseded: bool
    suspended: bool  # manual suspension, a standing detention or an open detainable deficiency


def derive_status(facts: StatusFacts, today: date) -> str:
    """valid, expired, suspended, revoked or superseded, by the precedence in the module docstring."""
    if facts.revoked:
        return "revoked"
    if facts.superseded:
        return "superseded"
    if facts.valid_until < today:
        return "expired"
    if facts.suspended:
        return "suspended"
    return "valid"


# The claims a token is compared on with its record, by the names the police answer gives them.
COMPARED_CLAIMS = tuple({"issuer": "office_code"}.get(f.name, f.name) for f in fields(CertificateClaims))


def differing_claims(presented: CertificateClaims, presented_kid: str, recorded: CertificateClaims,
                     recorded_kid: str) -> list[str]:
    """The claims (and "kid") in which a presented token differs from its certificate on record; [] when none."""
    differing = [name for f, name in zip(fields(CertificateClaims), COMPARED_CLAIMS)
                 if getattr(presented, f.name) != getattr(recorded, f.name)]
    return differing + (["kid"] if presented_kid != recorded_kid else [])


# --- records ---------------------------------------------------------------------------------------

def _vessel_suspended(vessel_id_column):
    """SQL: a detention stands or an open detainable deficiency exists for the vessel."""
    detained = exists().where(and_(Detention.vessel_id == vessel_id_column, Detention.lifted_at.is_(None)))
    deficient = exists().where(and_(Deficiency.vessel_id == vessel_id_column, Deficiency.detainable.is_(True),
                                    Deficiency.status != "closed"))
    return detained | deficient


def _status_facts() -> dict:
    """SQL: the StatusFacts flags of a certificate's row, by name."""
    return {"revoked": Certificate.revoked_at.is_not(None), "superseded": Certificate.superseded_by_id.is_not(None),
            "suspended": Certificate.suspended_at.is_not(None) | _vessel_suspended(Certificate.vessel_id)}


def status_facts_query():
    """One row per certificate with everything derive_status needs (one query, no ORM objects)."""
    return select(Certificate.id, Certificate.number, Certificate.status_index, Certificate.valid_until,
                  *(flag.label(name) for name, flag in _status_facts().items()))


# derive_status's precedence as SQL conditions, first match wins; "valid" when none holds.
def _status_conditions(today: date) -> tuple:
    facts = _status_facts()
    return (("revoked", facts["revoked"]), ("superseded", facts["superseded"]),
            ("expired", Certificate.valid_until < today), ("suspended", facts["suspended"]))


STATUSES = ("valid", "suspended", "expired", "superseded", "revoked")  # the list's order when sorted by status


def status_is(status: str, today: date):
    """SQL: the certificate's status on `today` is `status`, as derive_status decides it (to filter in the database)."""
    conditions = _status_conditions(today)
    names = [name for name, _ in conditions]
    earlier = conditions[:names.index(status)] if status in names else conditions
    holds = [condition for name, condition in conditions if name == status]
    return and_(*(not_(condition) for _, condition in earlier), *holds)


def status_rank(today: date):
    """SQL: the certificate's status on `today` as its place in STATUSES (to sort by status in the database)."""
    return case(*((condition, literal(STATUSES.index(name))) for name, condition in _status_conditions(today)),
                else_=literal(STATUSES.index("valid")))


@dataclass(frozen=True)
class CertificateRecord:
    """A certificate's row as verification reads it: the columns its token was issued from, the token, its status."""

    number: str
    kind: str
    revision: int
    issued_on: date
    office_code: str
    status_index: int
    kid: str
    token: str
    status: StatusFacts
    countersigned_on: date | None = None  # art. 221: the day the Prefecto countersigned
    countersign_due_on: date | None = None  # issued at the closing, pending: the practice's last day for it

    def claims(self, issued: CertificateClaims) -> CertificateClaims:
        """The claims on record: these columns, and the registration, name and restrictions from `issued`, the
        token as issued.

        The certificate copies the vessel's registration and name nowhere but into its token, and the vessel
        may be renamed or re-registered since (registry.vessels.update_vessel): its token says what it certified.
        Its restrictions are in its conditions as words, and in its token as codes.
        """
        return CertificateClaims(issuer=self.office_code, number=self.number, kind=self.kind, revision=self.revision,
                                 registration=issued.registration, vessel_name=issued.vessel_name,
                                 issued_on=self.issued_on, valid_until=self.status.valid_until,
                                 status_index=self.status_index, restrictions=issued.restrictions)


def _as_date(value) -> date:
    """A DATE column read on a raw connection: a date on PostgreSQL, ISO text on SQLite."""
    return value if isinstance(value, date) else date.fromisoformat(value)


@cache
def _record_by_number_sql(dialect) -> tuple[str, tuple | None, dict]:
    """The record query for one number, compiled once per dialect (building it costs more than running it)."""
    query = status_facts_query().add_columns(Certificate.kind, Certificate.revision, Certificate.issued_on,
                                             Certificate.office_code, Certificate.kid, Certificate.token,
                                             Certificate.countersigned_on, Certificate.countersign_due_on)
    compiled = query.where(Certificate.number == bindparam("number")).compile(dialect=dialect)
    return str(compiled), compiled.positiontup, compiled.construct_params({"number": ""})


def record_by_number(number: str) -> CertificateRecord | None:
    """One certificate's record by number, on a raw pooled connection, or None.

    The police endpoint runs this on every scan; going below the ORM keeps it near a bare request
    (bench/verify.py).
    """
    sql, positions, defaults = _record_by_number_sql(db.engine.dialect)
    params = {**defaults, "number": number}
    args = [params[name] for name in positions] if positions else params
    row = raw_row(sql, args)
    if row is None:
        return None
    (_, _, status_index, valid_until, revoked, superseded, suspended, kind, revision, issued_on, office, kid, token,
     countersigned_on, due_on) = row
    status = StatusFacts(_as_date(valid_until), bool(revoked), bool(superseded), bool(suspended))
    return CertificateRecord(number, kind, revision, _as_date(issued_on), office, status_index, kid, token, status,
                             _as_date(countersigned_on) if countersigned_on is not None else None,
                             _as_date(due_on) if due_on is not None else None)


def facts_of(row) -> StatusFacts:
    """StatusFacts from a status_facts_query row."""
    return StatusFacts(row.valid_until, bool(row.revoked), bool(row.superseded), bool(row.suspended))


def statuses_of(certificates, today: date) -> dict[int, str]:
    """Certificate id -> status now, for a whole page of certificates in one query."""
    ids = [c.id for c in certificates]
    if not ids:
        return {}
    rows = db.session.execute(status_facts_query().where(Certificate.id.in_(ids))).all()
    return {row.id: derive_status(facts_of(row), today) for row in rows}


def countersign_claims(today: date) -> dict:
    """Art. 221 for the status list: by status index, the day each certificate in force was countersigned, and the
    last day each pending one is due (a kind nobody countersigns, or one issued before the review, is in neither)."""
    rows = db.session.execute(select(Certificate.status_index, Certificate.countersigned_on,
                                     Certificate.countersign_due_on)
                              .where(Certificate.valid_until >= today, Certificate.revoked_at.is_(None),
                                     (Certificate.countersigned_on.is_not(None))
                                     | (Certificate.countersign_due_on.is_not(None)))).all()
    return {"signed": {str(i): on.isoformat() for i, on, _ in rows if on},
            "pending": {str(i): due.isoformat() for i, on, due in rows if not on and due}}


def all_statuses(today: date) -> list[int]:
    """Status-list codes indexed by status_index (expired is not stored: verifiers read the date)."""
    rows = db.session.execute(status_facts_query()).all()
    size = max((r.status_index for r in rows), default=-1) + 1
    codes = [0] * size
    for row in rows:
        codes[row.status_index] = STATUS_CODES[derive_status(facts_of(row), today)]
    return codes


def _next_counter(kind: str, year: int) -> int:
    """Atomically take the next number of a counter; concurrent issuers on PostgreSQL queue on the row."""
    dialect = db.engine.dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    db.session.execute(insert(CertificateSerial).values(kind=kind, year=year, last_serial=0)
                       .on_conflict_do_nothing(index_elements=["kind", "year"]))
    return db.session.execute(
        update(CertificateSerial).where(CertificateSerial.kind == kind, CertificateSerial.year == year)
        .values(last_serial=CertificateSerial.last_serial + 1).returning(CertificateSerial.last_serial)
    ).scalar_one()


def condition_line(deficiency: Deficiency) -> str:
    """One open deficiency as the certificate prints it (in Spanish): a restriction first, with its article; a
    practice item says it is only an observation."""
    due = f"plazo {deficiency.due_on.isoformat()}"
    if deficiency.restriction:
        restriction = load_catalog().context.restrictions[deficiency.restriction]
        return (f"Restricción: {restriction.label_es}, {restriction.source}, art. {restriction.article} — "
                f"{deficiency.description} — {due}")
    standing = standing_key(deficiency)
    if deficiency.practice and standing:
        words = term_label("standing", standing, "es")
        cited = f"{deficiency.source}, art. {deficiency.article}: {words[:1].lower()}{words[1:]}"
    else:
        cited = f"art. {deficiency.article}"
    return f"{deficiency.description} — {cited} — {due}"


def restriction_codes(deficiencies) -> tuple[str, ...]:
    """The token codes (claim -7) of the restrictions the open deficiencies carry, sorted."""
    restrictions = load_catalog().context.restrictions
    return tuple(sorted({restrictions[d.restriction].code for d in deficiencies if d.restriction}))


def issue_certificate(actor: User, inspection: Inspection, office: Office, signer: Callable[[], tuple],
                      today: date, now: datetime, inspected_on: date, chosen_until: date | None = None) -> Certificate:
    """Issue the certificate of a passed inspection; it supersedes the vessel's previous one of its kind.

    `signer()` gives the office's (kid, private key): the boundary's (keys.signer), asked only here.
    `inspected_on` is the inspection's office date, which the term runs from (art. 207); `today` dates the issue.
    """
    if inspection.status != "submitted" or inspection.outcome not in ("passed", "passed_with_observations"):
        raise Conflict(Msg("Solo una inspección aprobada emite certificado."))
    kind, vessel = inspection.kind, inspection.vessel
    valid_until = validity(kind, inspected_on, today, chosen_until, office.navegabilidad)
    open_deficiencies = db.session.scalars(db.select(Deficiency).filter_by(inspection_id=inspection.id, status="open")
                                           .order_by(Deficiency.due_on)).all()
    conditions = [condition_line(d) for d in open_deficiencies]
    previous = db.session.scalar(db.select(Certificate).filter_by(vessel_id=vessel.id, kind=kind, superseded_by_id=None)
                                 .order_by(Certificate.id.desc()))
    replaced = db.session.scalar(db.select(Certificate).filter_by(inspection_id=inspection.id)  # returned (art. 221)
                                 .where(Certificate.revoked_at.is_not(None)).order_by(Certificate.id.desc()))
    revision = (db.session.scalar(db.select(db.func.max(Certificate.revision))
                                  .filter_by(vessel_id=vessel.id, kind=kind)) or 0) + 1
    serial = _next_counter(kind, today.year)
    number = format_number(kind, today.year, serial)
    status_index = _next_counter(*STATUS_INDEX_COUNTER) - 1
    kid, private = signer()
    claims = CertificateClaims(issuer=office.code, number=number, kind=kind, revision=revision,
                               registration=vessel.registration, vessel_name=vessel.name, issued_on=today,
                               valid_until=valid_until, status_index=status_index,
                               restrictions=restriction_codes(open_deficiencies))
    token = sign_certificate(claims, private, kid)
    qr = make_qr(office.public_url, token)
    certificate = Certificate(number=number, kind=kind, vessel_id=vessel.id, inspection_id=inspection.id,
                              revision=revision, issued_on=today, inspected_on=inspected_on, valid_until=valid_until,
                              next_inspection_on=valid_until, status_index=status_index,
                              office_code=claims.issuer, kid=kid, token=token, qr_png=qr.png,
                              qr_version=qr.version, conditions=conditions, created_at=now,
                              replaces_id=replaced.id if replaced else None)
    db.session.add(certificate)
    db.session.flush()
    if previous is not None:
        previous.superseded_by_id = certificate.id
    record_event(actor, "certificate.issued", "certificate", number, inspection_id=inspection.id,
                 details={"kind": kind, "inspected_on": inspected_on.isoformat(), "valid_until": valid_until.isoformat(),
                          "revision": revision,
                          "supersedes": previous.number if previous else None,
                          "replaces": replaced.number if replaced else None}, at=now)
    return certificate


# --- read models: what the API returns and the pages show -------------------------------------

def certificates_json(certificates, today: date, public_url: str) -> list[dict]:
    """certificate_json for a page of certificates: statuses in one query, not one per row."""
    statuses = statuses_of(certificates, today)
    return [certificate_json(c, statuses[c.id], public_url) for c in certificates]


def certificate_json(certificate: Certificate, status: str, public_url: str) -> dict:
    """The api.md certificate fields plus dates the owner needs (`status` as statuses_of derives it)."""
    base = f"/api/v1/certificates/{certificate.number}"
    return {
        "number": certificate.number, "kind": certificate.kind, "vessel_id": certificate.vessel_id,
        "vessel": {"registration": certificate.vessel.registration, "name": certificate.vessel.name},
        "revision": certificate.revision, "issued_on": certificate.issued_on.isoformat(),
        "inspected_on": certificate.inspected_on.isoformat(),
        "valid_until": certificate.valid_until.isoformat(),
        "next_inspection_on": certificate.next_inspection_on.isoformat() if certificate.next_inspection_on else None,
        "apply_by": application_due_on(certificate.valid_until, certificate.kind).isoformat(),
        "status": status, "token": certificate.token,
        "verify_url": verify_url(public_url, certificate.token),
        "qr_url": f"{base}/qr.png", "pdf_url": f"{base}/pdf", "qr_version": certificate.qr_version,
        "conditions": certificate.conditions, "inspection_id": certificate.inspection_id,
        "countersigned_on": certificate.countersigned_on.isoformat() if certificate.countersigned_on else None,
        "countersign_due_on": certificate.countersign_due_on.isoformat() if certificate.countersign_due_on else None,
        "replaces": certificate.replaces.number if certificate.replaces_id else None,
    }


def certificate_document(certificate: Certificate, office: Office, zone: tzinfo, storage=None) -> dict:
    """The printable certificate's data (certificate_pdf's `cert` shape), for the PDF and the page.

    With `storage` (the PDF), the drawn signatures of the inspection are read and printed; the page names them.
    """
    vessel = dict(certificate.inspection.particulars or {}) if certificate.inspection else {}
    if "gross_tonnage" in vessel:  # the snapshot keeps a float; the certificate prints the shown figure
        vessel["gross_tonnage"] = shown_tonnage(Decimal(str(vessel["gross_tonnage"])))
    v = certificate.vessel
    drawn = _drawn_signatures(certificate.inspection, storage)
    return {
        "number": certificate.number, "kind": certificate.kind, "revision": certificate.revision,
        "issued_on": certificate.issued_on, "inspected_on": certificate.inspected_on,
        "valid_until": certificate.valid_until, "practice_months": office.navegabilidad.months,
        "next_inspection_on": certificate.next_inspection_on, "office_name": office.name,
        "office_zone": zone,
        "vessel": {"registration": v.registration, "name": v.name, "flag": v.flag, "home_port": v.home_port,
                   **{k: vessel.get(k, getattr(v, k)) for k in (
                       "propulsion", "service", "hull_material", "length_m", "beam_m", "girth_m", "gross_tonnage",
                       "crew", "max_passengers", "boilers")}},
        "articles": CERTIFICATE_ARTICLES[certificate.kind],
        "conditions": certificate.conditions or [],
        "signatories": _signatories(certificate, office.prefect_name, drawn.get("inspector"), drawn.get("reviewer")),
        "master": ({"name": certificate.inspection.master_name or "", "image": drawn["master"]}
                   if drawn.get("master") else None),
        "verify_url": verify_url(office.public_url, certificate.token),
        "qr_png": certificate.qr_png,
        "replaces": certificate.replaces.number if certificate.replaces_id else None,
    }


def _drawn_signatures(inspection: Inspection | None, storage) -> dict[str, bytes]:
    """The inspection's drawn signatures (role -> PNG bytes) that were taken; none before issue 9's tablets."""
    if inspection is None or storage is None:
        return {}
    keys = {role: getattr(inspection, f"{role}_signature_key") for role in (*SIGNATURE_ROLES, "reviewer")}
    return {role: storage.get(key) for role, key in keys.items() if key}


def _signatories(certificate: Certificate, prefect_name: str, inspector_image: bytes | None,
                 reviewer_image: bytes | None = None) -> list[dict]:
    """Art. 221: the Prefecto General de Puertos with the inspector (de Máquinas for seguridad), who signed on the
    tablet; the Prefecto (or his delegate, by his title) once countersigned, its words for a pending one until then."""
    inspection = certificate.inspection
    inspector = inspection.inspector if inspection else None
    name = (inspector.full_name or inspector.username) if inspector else ""
    role = "Inspector de Máquinas" if certificate.kind == "seguridad" else "Inspector de Cascos"
    prefect = {"role": "Prefecto General de Puertos", "name": prefect_name}
    reviewer = inspection.countersigned_by if inspection else None
    if certificate.countersigned_on and reviewer is not None:
        prefect = {"role": reviewer.title or "Prefecto General de Puertos",
                   "name": reviewer.full_name or reviewer.username, "image": reviewer_image}
    elif certificate.countersign_due_on:
        prefect = {**prefect, "name": "Pendiente de refrendo"}
    return [{"role": role, "name": name, "image": inspector_image}, prefect]


# --- decisions -------------------------------------------------------------------------------------

def _require_admin(actor: User) -> None:
    if actor.role != "admin":
        raise Forbidden(Msg("Solo la Prefectura puede revocar, suspender o rehabilitar certificados."))


def revoke_certificate(actor: User, certificate: Certificate, reason: str, now: datetime) -> Certificate:
    """Revoke for good, with the reason (admins only; audited)."""
    _require_admin(actor)
    return record_revocation(actor, certificate, reason, now)


def record_revocation(actor: User, certificate: Certificate, reason: str, now: datetime,
                      inspection_id: int | None = None) -> Certificate:
    """The revocation itself, for a caller that settled who may: the Prefectura (revoke_certificate), or a reviewer
    returning the inspection that issued it (art. 221, review.operations.return_inspection); audited."""
    if certificate.revoked_at is not None:
        raise Conflict(Msg("El certificado ya está revocado."))
    certificate.revoked_at, certificate.revoked_reason = now, reason
    record_event(actor, "certificate.revoked", "certificate", certificate.number, details={"reason": reason}, at=now,
                 inspection_id=inspection_id)
    return certificate


def inspection_certificate(inspection_id: int, in_force: bool = False) -> Certificate | None:
    """The certificate of an inspection: its newest, which is the one not revoked when there is one (at most one is,
    uq_certificates_inspection_current); with `in_force`, only that one. A returned inspection's revoked certificate
    stays its newest until the corrected closing issues the next."""
    query = db.select(Certificate).filter_by(inspection_id=inspection_id).order_by(Certificate.id.desc()).limit(1)
    return db.session.scalar(query.where(Certificate.revoked_at.is_(None)) if in_force else query)


def suspend_certificate(actor: User, certificate: Certificate, reason: str, now: datetime) -> Certificate:
    """Suspend by decision (e.g. prohibición de zarpe), with the reason."""
    _require_admin(actor)
    if certificate.revoked_at is not None:
        raise Conflict(Msg("Un certificado revocado no se suspende."))
    if certificate.suspended_at is not None:
        raise Conflict(Msg("El certificado ya está suspendido."))
    certificate.suspended_at, certificate.suspended_reason = now, reason
    record_event(actor, "certificate.suspended", "certificate", certificate.number, details={"reason": reason}, at=now)
    return certificate


def reinstate_certificate(actor: User, certificate: Certificate, reason: str, now: datetime) -> Certificate:
    """Lift a suspension by decision (a standing detention still suspends by itself)."""
    _require_admin(actor)
    if certificate.suspended_at is None:
        raise Conflict(Msg("El certificado no está suspendido por decisión."))
    certificate.suspended_at, certificate.suspended_reason = None, None
    record_event(actor, "certificate.reinstated", "certificate", certificate.number, details={"reason": reason}, at=now)
    return certificate


# --- verification ----------------------------------------------------------------------------------

VERDICTS = ("valid", "expired", "suspended", "revoked", "superseded", "mismatch", "invalid_signature",
            "unknown_issuer")


def public_view(claims, today: date, office_name: str, lang: str = "es") -> dict:
    """What the police may see: the claims, days left and restrictions; nothing about owner or inspector."""
    return {"number": claims.number, "kind": claims.kind, "revision": claims.revision,
            "registration": claims.registration, "vessel_name": claims.vessel_name,
            "issued_on": claims.issued_on.isoformat(), "valid_until": claims.valid_until.isoformat(),
            "days_left": (claims.valid_until - today).days, "office_code": claims.issuer,
            "office_name": office_name, "restrictions": restrictions_view(claims.restrictions, lang)}


def restrictions_view(codes, lang: str) -> list[dict]:
    """The restrictions behind a token's codes, in `lang`, with the article that orders each (restrictions.toml).

    A code this installation does not know (none is, today) is shown as itself, never dropped."""
    by_code = {r.code: r for r in load_catalog().context.restrictions.values()}
    shown = []
    for code in codes:
        found = by_code.get(code)
        shown.append({"code": code, "name": found.name if found else None,
                      "label": getattr(found, f"label_{lang}") if found else code,
                      "source": found.source if found else None, "article": found.article if found else None})
    return shown


def _answer(verdict: str, certificate: dict | None, mismatched: list[str] | None = None) -> dict:
    """The police answer: the verdict, the facts to show (or None) and the claims that differ from the record."""
    return {"verdict": verdict, "certificate": certificate, "mismatched": mismatched or []}


def verdict_stamps() -> tuple:
    """The stamps of every record a verdict is derived from besides its token and the day (readcache.STAMPED): the
    published keys, and the certificates with their vessels' detentions and deficiencies. A verdict kept under
    them is never stale: a revocation, suspension, detention or new key redraws one in its own transaction."""
    return data_stamp("keys"), data_stamp("certificates")


def verify_certificate_token(token: str, today: date, office_name: str, lang: str = "es") -> dict:
    """The police answer on a QR token (module docstring: the verdicts' precedence); MalformedToken is a clear 400.

    A token signed with the office's key is held to the record: its claims and key must be the certificate's,
    and it must be the very token issued. A genuine one is; one that differs only in its signature is a
    re-encoding of it (the twin (r, n - s) of a high-S signature from before low-S signing), refused as malformed.
    On a mismatch the facts shown are the record's, never the token's.
    """
    from inspection.certificates.keys import verify_cached

    result = verify_cached(token)
    if result.outcome == "malformed":
        raise MalformedToken(result.detail or "malformed token")
    if not result.signed:  # unknown_issuer or invalid_signature: the token's claims, which the page flags
        return _answer(result.outcome, public_view(result.claims, today, office_name, lang) if result.claims else None)
    record = record_by_number(result.claims.number)
    if record is None:  # signed by us but not on record: nothing to vouch for, nothing of the token's to show
        return _answer("mismatch", None, ["number"])
    issued = record.token == token.upper()
    if not issued and result.outcome == "high_s":
        raise MalformedToken("a high-S signature is accepted only on the token its certificate was issued with")
    recorded = record.claims(result.claims if issued else decode_token(record.token, allow_high_s=True)[1])
    view = {**public_view(recorded, today, office_name, lang), **countersign_view(record)}
    mismatched = differing_claims(result.claims, result.kid, recorded, record.kid)
    if mismatched:
        return _answer("mismatch", view, mismatched)
    if not issued:
        raise MalformedToken("the certificate's claims under another signature: not the token issued")
    return _answer(derive_status(record.status, today), view)


def countersign_view(record: CertificateRecord) -> dict:
    """Art. 221 on the police answer: countersigned on a day, pending (valid until a day), or not a reviewed kind."""
    due = record.countersign_due_on
    state = "countersigned" if record.countersigned_on else "pending" if due else "not_required"
    return {"countersign": state, "countersigned_on": record.countersigned_on.isoformat() if record.countersigned_on
            else None, "countersign_due_on": due.isoformat() if due else None}
