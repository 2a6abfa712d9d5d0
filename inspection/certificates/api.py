"""Certificates for authorised users; keys, status list and verification for everyone."""
from flask import Response, current_app
from sqlalchemy.orm import joinedload

from inspection.accounts.access import certificates_scope, get_certificate_for
from inspection.accounts.auth import api_user, require
from inspection.certificates.keys import current_signing_key, published_keys
from inspection.certificates.operations import (
    all_statuses,
    certificate_document,
    certificates_json,
    countersign_claims,
    reinstate_certificate,
    revoke_certificate,
    suspend_certificate,
    verdict_stamps,
    verify_certificate_token,
)
from inspection.certificates.schemas import (
    CertificateQuery,
    CertificateSchema,
    KeySetSchema,
    StatusListSchema,
    VerificationSchema,
)
from inspection.certificates.signing import MalformedToken
from inspection.certificates.status_list import sign_status_list
from inspection.core.clock import office_date, office_now, office_today, office_zone
from inspection.core.exceptions import DomainError, NotFound
from inspection.core.extensions import db
from inspection.core.models import Certificate
from inspection.core.office import current_office
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.media.configured import media_storage
from inspection.web.api_common import Blueprint, binary, cached_json, json_bytes, json_response, paginate
from inspection.web.schemas import NoteSchema, page_schema

blp = Blueprint("api_certificates", __name__, description="Certificados y verificación")
STATUS_LIST_TTL = 86400  # refresh daily when online
STATUS_LIST_VALID = 7 * 86400  # an offline copy older than a week turns the verdict amber (NO CONFIRMADO)
STATUS_LIST_REUSE = 60  # seconds a signed list is served again unchanged: its issued_at says its age, against a day's ttl


@blp.route("/certificates")
@blp.arguments(CertificateQuery, location="query")
@blp.response(200, page_schema(CertificateSchema, "CertificatePage"))
@require("admin", "inspector", "owner")
def list_certificates(args):
    """Certificates, newest first; owners see their fleet's."""
    query = certificates_scope(db.select(Certificate), api_user()).options(joinedload(Certificate.vessel))
    if args.get("vessel_id"):
        query = query.where(Certificate.vessel_id == args["vessel_id"])
    if args.get("kind"):
        query = query.where(Certificate.kind == args["kind"])
    page = paginate(query.order_by(Certificate.id.desc()), args)
    return json_response({**page, "items": certificates_json(page["items"], office_today(), current_office().public_url)}, 200)


@blp.route("/certificates/<number>")
@blp.response(200, CertificateSchema)
@require("admin", "inspector", "owner")
def get_certificate(number):
    """One certificate with its status as police see it."""
    return json_response(certificates_json([get_certificate_for(api_user(), number)], office_today(), current_office().public_url)[0], 200)


@blp.route("/certificates/<number>/qr.png")
@blp.doc(**binary("El código QR del certificado", "image/png"))
@require("admin", "inspector", "owner")
def get_qr(number):
    """The QR made at issue (never regenerated per request)."""
    certificate = get_certificate_for(api_user(), number)
    return Response(certificate.qr_png, mimetype="image/png", headers={"Cache-Control": "private, max-age=86400"})


@blp.route("/certificates/<number>/pdf")
@blp.doc(**binary("El certificado imprimible (A4)", "application/pdf"))
@require("admin", "inspector", "owner")
def get_pdf(number):
    """The printable A4 certificate."""
    # fpdf loads with the first PDF a worker makes, not when the worker starts (0.2 s, ~30 MiB)
    from inspection.documents.certificate_pdf import render_certificate_pdf

    certificate = get_certificate_for(api_user(), number)
    pdf = render_certificate_pdf(certificate_document(certificate, current_office(), office_zone(), media_storage()))
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="{certificate.number}.pdf"'})


def _decide(number, data, decision):
    certificate = get_certificate_for(api_user(), number)
    now = office_now()
    decision(api_user(), certificate, data["reason"], now)
    db.session.commit()
    return json_response(certificates_json([certificate], office_date(now), current_office().public_url)[0], 200)


@blp.route("/certificates/<number>/revoke", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, CertificateSchema)
@require("admin")
def post_revoke(data, number):
    """Revoke a certificate, with the reason (audited)."""
    return _decide(number, data, revoke_certificate)


@blp.route("/certificates/<number>/suspend", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, CertificateSchema)
@require("admin")
def post_suspend(data, number):
    """Suspend a certificate by decision, with the reason (audited)."""
    return _decide(number, data, suspend_certificate)


@blp.route("/certificates/<number>/reinstate", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, CertificateSchema)
@require("admin")
def post_reinstate(data, number):
    """Lift a suspension decided by the Prefectura, with the reason (audited)."""
    return _decide(number, data, reinstate_certificate)


# --- public: what a verifier caches, and verification --------------------------------------------

@blp.route("/keys")
@blp.response(200, KeySetSchema)
def get_keys():
    """Every public key, current and retired, as a JWK Set (no login)."""
    keys = [{**k.public_jwk, "kid": k.kid, "office": k.office_code,
             "status": "retired" if k.retired_at else "current"} for k in published_keys()]
    response = json_response({"keys": keys}, 200)
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@blp.route("/status-list")
@blp.response(200, StatusListSchema)
def get_status_list():
    """The signed 2-bit status list of every certificate (no login), for offline verification, with the
    countersignatures of art. 221 (the day, or the day due) of those in force."""
    # A list signed in the last STATUS_LIST_REUSE seconds is served again while the keys and every record it says
    # something of are unchanged (verdict_stamps, redrawn by a revocation in its own transaction): three queries and
    # a signature per police phone's refresh were 3 % of the workers' time under load (issue 22).
    now, office = office_now(), current_office()
    today = office_date(now)
    key = (office.code, today, int(now.timestamp()) // STATUS_LIST_REUSE, *verdict_stamps())
    response = cached_json("status_list", key, lambda: _status_list(now, today, office), size=4)
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


def _status_list(now, today, office) -> bytes:
    """The JSON bytes of a status list signed now; 404 while the office has no signing key here."""
    found = current_signing_key(office.code)
    statuses = all_statuses(today)
    if found is None:
        raise NotFound(Msg("Todavía no hay claves de firma."))
    kid, private = found
    jws = sign_status_list(statuses, private, kid, issuer=office.code,
                           issued_at=int(now.timestamp()), ttl_seconds=STATUS_LIST_TTL,
                           valid_seconds=STATUS_LIST_VALID,
                           subject=office.public_url + "/api/v1/status-list", countersign=countersign_claims(today))
    return json_bytes({"jws": jws, "issued_at": now.isoformat(), "ttl": STATUS_LIST_TTL, "count": len(statuses)})


@blp.route("/verify/<token>")
@blp.response(200, VerificationSchema)
def get_verify(token):
    """Public verification of a QR token: the verdict and the certificate's particulars, nothing personal."""
    # Kept per process under the token, the day, the language and the stamps of what the answer derives from
    # (verdict_stamps): a revocation redraws them in its own transaction, so the next scan on any server sees it.
    today, lang = office_today(), current_language()
    return cached_json("verdicts", (token, today, lang, *verdict_stamps()), lambda: _verdict(token, today, lang),
                       size=current_app.config["VERIFY_CACHE_SIZE"])


def _verdict(token: str, today, lang: str) -> bytes:
    """The police answer's JSON bytes; a token that is no Baliza certificate is a clear 400 (never kept)."""
    try:
        return json_bytes(verify_certificate_token(token, today, current_office().name, lang))
    except MalformedToken:
        raise DomainError(Msg("El código no es un certificado de Baliza legible."))
