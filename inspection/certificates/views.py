"""Certificate pages: the public police verdict behind the QR, and the certificate for its holders."""
from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy.orm import contains_eager

from inspection.accounts.access import get_certificate_for, vessel_scope
from inspection.accounts.auth import require_page
from inspection.certificates.operations import (
    STATUSES,
    certificate_document,
    certificates_json,
    derive_status,
    facts_of,
    reinstate_certificate,
    revoke_certificate,
    status_facts_query,
    status_is,
    status_rank,
    suspend_certificate,
    verify_certificate_token,
)
from inspection.certificates.schemas import CertificateListQuery
from inspection.certificates.signing import MalformedToken
from inspection.core.clock import office_now, office_today, office_zone
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.core.models import KINDS, Certificate, Vessel
from inspection.core.office import current_office
from inspection.documents.exports import csv_response, streamed
from inspection.i18n.language import current_language, gettext, localize
from inspection.i18n.messages import N_, Msg
from inspection.registry.vessels import vessel_matches
from inspection.web.acts import ask_confirmation, confirmed, report_done
from inspection.web.forms import domain_errors, list_args, sorted_by

bp = Blueprint("certificates", __name__)

VERDICT_LABELS = {
    "valid": (Msg("VÁLIDO"), "ok"), "expired": (Msg("VENCIDO"), "bad"), "suspended": (Msg("SUSPENDIDO"), "bad"),
    "revoked": (Msg("REVOCADO"), "bad"), "superseded": (Msg("REEMPLAZADO"), "bad"),
    "mismatch": (Msg("NO COINCIDE CON EL REGISTRO"), "bad"),
    "invalid_signature": (Msg("FIRMA INVÁLIDA"), "bad"), "unknown_issuer": (Msg("EMISOR DESCONOCIDO"), "bad"),
    "malformed": (Msg("CÓDIGO ILEGIBLE"), "bad"),
}
DECISIONS = {"revocar": revoke_certificate, "suspender": suspend_certificate, "rehabilitar": reinstate_certificate}
# What the page offers follows the record's state; where it offers nothing, it says why.
OFFERED = {"valid": ("suspender", "revocar"), "suspended": ("rehabilitar", "revocar")}
NOTHING_TO_DECIDE = {
    "revoked": Msg("Revocado: la revocación no se deshace. El buque necesita una nueva inspección y un nuevo certificado."),
    "superseded": Msg("Reemplazado por un certificado posterior: las decisiones se toman sobre el vigente."),
    "expired": Msg("Vencido: ya no hay decisión que tomar. El buque necesita una nueva inspección."),
}
DONE = {"revocar": N_("Certificado {number} revocado."), "suspender": N_("Certificado {number} suspendido."),
        "rehabilitar": N_("Certificado {number} rehabilitado.")}


@bp.route("/v/<token>")
def verify_page(token):
    """The police page inside the QR: a big verdict and what to compare with the hull (art. 66)."""
    status = 200
    try:
        answer = verify_certificate_token(token, office_today(), current_office().name, current_language())
    except MalformedToken:
        answer, status = {"verdict": "malformed", "certificate": None}, 400
    label, tone = VERDICT_LABELS[answer["verdict"]]
    html = render_template("verify/public.html", verdict=answer["verdict"], label=label, tone=tone,
                           cert=answer["certificate"])
    return html, status, {"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}


def _listed(query, args: dict, today):
    """The certificate page's search, filters and order on `query` (a query of Certificate joined to Vessel)."""
    if args.get("q") and args["q"].strip():
        query = query.where(vessel_matches(args["q"].strip(), Certificate.number))
    for name in ("vessel_id", "kind"):
        if args.get(name):
            query = query.where(getattr(Certificate, name) == args[name])
    if args.get("status"):
        query = query.where(status_is(args["status"], today))
    columns = {"number": Certificate.number, "vessel": Vessel.registration_key, "kind": Certificate.kind,
               "valid_until": Certificate.valid_until, "issued_on": Certificate.issued_on,
               "status": status_rank(today)}
    return sorted_by(query, args["sort"], columns, Certificate.id)


@bp.route("/certificados")
@require_page("admin", "inspector", "owner")
def certificate_list():
    """Certificates of the fleet (owners: their own) with the status police see: searched, filtered and sorted."""
    args, today = list_args(CertificateListQuery()), office_today()
    query = vessel_scope(db.select(Certificate).join(Vessel, Vessel.id == Certificate.vessel_id), current_user)
    page = db.paginate(_listed(query.options(contains_eager(Certificate.vessel)), args, today), page=args["page"],
                       per_page=args["per_page"], error_out=False)
    return render_template("certificates/list.html", page=page, args=args, statuses=STATUSES, kinds=KINDS,
                           rows=certificates_json(page.items, today, current_office().public_url))


@bp.route("/certificados.csv")
@require_page("admin", "inspector", "owner")
def certificate_csv():
    """The certificate list as CSV, with the page's search, filters and order, streamed from the cursor with each
    status derived as on the page."""
    args, today = list_args(CertificateListQuery()), office_today()
    query = vessel_scope(status_facts_query().add_columns(
        Certificate.kind, Certificate.issued_on, Certificate.inspected_on, Vessel.registration, Vessel.name)
        .join(Vessel, Vessel.id == Certificate.vessel_id), current_user)
    header = [gettext("Número"), gettext("Matrícula"), gettext("Buque"), gettext("Tipo"), gettext("Inspeccionado"),
              gettext("Expedido"), gettext("Válido hasta"), gettext("Estado")]
    rows = ((row.number, row.registration, row.name, row.kind, row.inspected_on.isoformat(), row.issued_on.isoformat(),
             row.valid_until.isoformat(), derive_status(facts_of(row), today))
            for row in streamed(_listed(query, args, today), db.session))
    return csv_response(f"certificados-{today.isoformat()}.csv", header, rows)


@bp.route("/certificados/<number>")
@require_page("admin", "inspector", "owner")
def certificate_page(number):
    """The certificate as a page (same content as the PDF) with its live status and the decisions it allows."""
    return _certificate_page(get_certificate_for(current_user, number))


def _certificate_page(certificate: Certificate, status: int = 200, decision: str | None = None,
                      errors: dict | None = None, reason: str = ""):
    """The page; a refused decision comes back at its own form, with the reason as typed."""
    office = current_office()
    cert = certificates_json([certificate], office_today(), office.public_url)[0]
    return render_template("certificates/detail.html", cert=cert,
                           doc=certificate_document(certificate, office, office_zone()), record=certificate,
                           offered=OFFERED.get(cert["status"], ()),
                           nothing=localize(NOTHING_TO_DECIDE[cert["status"]]) if cert["status"] in NOTHING_TO_DECIDE else None,
                           decided=decision, errors=errors or {}, reason=reason), status


@bp.route("/certificados/<number>/<decision>", methods=["POST"])
@require_page("admin")
def certificate_decision(number, decision):
    """Revoke, suspend or reinstate from the page, with the reason (audited); a refusal stays on the page."""
    if decision not in DECISIONS:
        return redirect(url_for("certificates.certificate_page", number=number))
    certificate = get_certificate_for(current_user, number)
    reason = request.form.get("reason", "").strip()
    if len(reason) < 3:
        return _certificate_page(certificate, 422, decision, {"reason": [gettext("Indique el motivo de la decisión.")]},
                                 reason)
    status = certificates_json([certificate], office_today(), current_office().public_url)[0]["status"]
    if status in NOTHING_TO_DECIDE:  # a page older than the record; within valid and suspended the operation decides
        return _certificate_page(certificate, 409, decision, {"_": [localize(NOTHING_TO_DECIDE[status])]}, reason)
    if decision == "revocar" and not confirmed():
        return ask_confirmation(
            Msg("¿Revocar el certificado {number}?", number=certificate.number),
            Msg("La revocación no se puede deshacer: el certificado deja de valer y la policía lo verá REVOCADO."),
            Msg("Sí, revocar"), url_for("certificates.certificate_page", number=certificate.number))
    try:
        DECISIONS[decision](current_user, certificate, reason, office_now())
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        return _certificate_page(certificate, error.status, decision, domain_errors(error), reason)
    report_done(Msg(DONE[decision], number=certificate.number))
    return redirect(url_for("certificates.certificate_page", number=certificate.number))
