"""An inspection on paper: its report and its fee statement as PDFs."""
from flask import Response
from flask_smorest import Blueprint

from ..auth import api_user, require
from ..clock import office_zone
from ..i18n import current_language
from ..inspections import get_inspection_for
from ..media import media_storage
from ..office import current_office
from ..reports import fee_statement_pdf, pdf_headers, report_pdf
from .common import binary

blp = Blueprint("api_reports", __name__, description="Informes de inspección y liquidaciones en PDF")


@blp.route("/inspections/<int:inspection_id>/report.pdf")
@blp.doc(**binary("El informe de la inspección cerrada (A4): ítems, deficiencias, fotos, firmas y aranceles; "
                  "?lang=en o Accept-Language para inglés", "application/pdf"))
@require("admin", "inspector", "owner")
def get_report_pdf(inspection_id):
    """The closed inspection's report (409 while it is open); owners only their vessels'."""
    inspection = get_inspection_for(api_user(), inspection_id)
    data = report_pdf(inspection, current_language(), media_storage(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "informe"))


@blp.route("/inspections/<int:inspection_id>/fees.pdf")
@blp.doc(**binary("La liquidación de aranceles (arts. 209, 233) y multas de la solicitud (arts. 204, 225)",
                  "application/pdf"))
@require("admin", "inspector", "owner")
def get_fee_statement_pdf(inspection_id):
    """The inspection's fee statement; owners only their vessels'."""
    inspection = get_inspection_for(api_user(), inspection_id)
    data = fee_statement_pdf(inspection, current_language(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "aranceles"))
