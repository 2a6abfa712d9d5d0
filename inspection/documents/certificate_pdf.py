"""Printable certificate (A4 portrait, Spanish) rendered with fpdf2: dict in, PDF bytes out.

The certificate is framed and hung in the main saloon (Ley 928 art. 224) and shown whenever an
authority asks (art. 203), so it prints the QR, the number, the vessel's particulars, the
articles it certifies against, validity and next inspection dates, conditions, the issuing
office and the signatures art. 221 requires.

``cert`` keys (the caller builds them from the database; dates may be ``date`` or ISO text):

    number              "SEG-2026-000123-8" (printed large under the QR)
    kind                "navegabilidad" | "seguridad"
    revision            int
    issued_on           date
    inspected_on        date of the inspection the term runs from (optional, art. 207)
    valid_until         date
    practice_months     the Prefectura's usual navegabilidad term (optional, 12): printed as practice, not law
    next_inspection_on  date or None
    office_name         issuing office, e.g. "Prefectura de Puerto de Asunción"
    office_zone         the office's tzinfo (optional, UTC): the document date is its midnight
    vessel              {registration, name, flag, propulsion, service, hull_material,
                         length_m, beam_m, girth_m, gross_tonnage, crew, max_passengers,
                         boilers, home_port} (api.md names and enum values; None prints "—")
    articles            list of str, e.g. ["Ley N.º 928/1927, arts. 201 a 210"]
                        (optional: defaults by kind, law.cycle.CERTIFICATE_ARTICLES)
    conditions          list of str (conditions / observations; empty prints "Sin observaciones.")
    signatories         list of {role, name, image} (optional: defaults by kind, DEFAULT_SIGNATORIES);
                        ``image`` (optional) is the drawn signature as PNG bytes, printed above the line
    master              {name, image} of the captain or skipper who took cognizance of the inspection
                        (optional: printed as one more signature slot)
    verify_url          the URL inside the QR; only its base is printed
    qr_png              PNG bytes from qrcodes.make_qr
    replaces            number of the certificate of the same inspection this one replaces (optional: revoked when
                        the reviewer returned the inspection for correction, art. 221)

Text uses the PDF core fonts (Times, Courier) with the windows-1252 encoding, which covers
Spanish accents, ñ, º, « » and the em dash; any other character is replaced by "?".
"""

from __future__ import annotations

import io

from fpdf.enums import XPos, YPos

from inspection.documents.pdf import (
    GOLD,
    GREY,
    INK,
    LEFT,
    NAVY,
    PAGE_H,
    PAGE_W,
    RIGHT,
    SHADE,
    DocumentPDF,
    as_date,
    plain,
    tonnage_text,
)
from inspection.documents.pdf import coded as _coded
from inspection.documents.pdf import decimal_text as _decimal
from inspection.documents.pdf import long_date as _long_date
from inspection.law.cycle import CERTIFICATE_ARTICLES

__all__ = ["DEFAULT_SIGNATORIES", "render_certificate_pdf"]

TITLES = {
    "navegabilidad": ("CERTIFICADO DE NAVEGABILIDAD", "CASCO Y APAREJO"),
    "seguridad": ("CERTIFICADO DE SEGURIDAD", "MÁQUINAS Y CALDERAS"),
}

# Art. 221: the seguridad certificate is signed by the Prefecto General de Puertos together with
# the Inspector de Máquinas. The law names no signatories for navegabilidad; art. 203 has the
# Prefectura issue it after the hull inspector's inspection (arts. 202, 206, 208), so the same
# pair is used with the hull inspector.
DEFAULT_SIGNATORIES = {
    "navegabilidad": [
        {"role": "Inspector de Cascos", "name": ""},
        {"role": "Prefecto General de Puertos", "name": ""},
    ],
    "seguridad": [
        {"role": "Inspector de Máquinas", "name": ""},
        {"role": "Prefecto General de Puertos", "name": ""},
    ],
}

MASTER_ROLE = "Capitán o patrón (tomó conocimiento)"

PREAMBLE = {
    "navegabilidad": (
        "La Prefectura General de Puertos certifica que la embarcación aquí individualizada ha "
        "sido sometida a la inspección de su casco y aparejo prevista en los artículos 201 y 202 "
        "de la Ley N.º 928/1927 y se encuentra en condiciones de navegabilidad por el término "
        "que se fija en este certificado (art. 203), con las condiciones que se indican."
    ),
    "seguridad": (
        "La Prefectura General de Puertos certifica que las máquinas y calderas de la embarcación "
        "aquí individualizada, y los elementos de a bordo para caso de incendio o naufragio, han "
        "sido inspeccionados conforme a los artículos 168, 211, 212 y 220 de la Ley N.º 928/1927 "
        "y responden a las exigencias de seguridad de dicha ley, con las condiciones que se indican."
    ),
}

FOOTER = {
    # Art. 203: shown whenever the competent authority requires it.
    "navegabilidad": "Expedido por la Prefectura General de Puertos previa inspección del casco "
    "(arts. 202 y 203). Este certificado será presentado todas las veces que sea exigido por la "
    "autoridad competente (Ley N.º 928/1927, art. 203).",
    # Art. 224: framed and placed in a visible spot of the main saloon.
    "seguridad": "Firmado por el Prefecto General de Puertos conjuntamente con el Inspector de "
    "Máquinas (art. 221). Este certificado deberá colocarse en un cuadro, en un sitio visible del salón "
    "principal del buque (Ley N.º 928/1927, art. 224).",
}

QR_MM = 46  # printed width incl. quiet zone: certificates.md asks for at least 40 mm

_date = as_date
_plain = plain


def term_basis(cert: dict) -> str:
    """Where the certificate's term comes from: the law for seguridad, the Prefectura's practice for navegabilidad."""
    inspected = _date(cert.get("inspected_on"))
    # Art. 207 ties the next inspection to the one performed: the term runs from the inspection.
    runs = f" y corre desde la inspección del {_long_date(inspected)} (art. 207)" if inspected else ""
    if cert["kind"] == "seguridad":
        return f"El término de seis meses es el de los arts. 211 y 225{runs}."
    months = cert.get("practice_months", 12)
    term = "un año" if months == 12 else f"{months} meses"
    # Arts. 201 and 203 set no term: the year is the Prefectura's practice, which the inspector may shorten.
    return (f"El término ordinario de {term} es práctica de la Prefectura General de Puertos, no un plazo de la "
            f"ley (arts. 201 y 203){runs}.")










def _particulars(vessel: dict) -> list[tuple[str, str]]:
    """Rows of the particulars table, in the order of the register (art. 197)."""
    v = vessel
    return [
        ("Matrícula", _plain(v.get("registration"))),
        ("Nombre", _plain(v.get("name"))),
        ("Bandera", _coded("flag", v.get("flag"))),
        ("Puerto de matrícula", _plain(v.get("home_port"))),
        ("Servicio", _coded("service", v.get("service"))),
        ("Propulsión", _coded("propulsion", v.get("propulsion"))),
        ("Material del casco", _coded("hull_material", v.get("hull_material"))),
        ("Eslora", _decimal(v.get("length_m"), 2, "m")),
        ("Manga", _decimal(v.get("beam_m"), 2, "m")),
        ("Contorno (cadena, art. 195)", _decimal(v.get("girth_m"), 2, "m")),
        ("Tonelaje de arqueo (art. 195)", tonnage_text(v.get("gross_tonnage"))),
        ("Tripulación", _plain(v.get("crew"))),
        ("Pasajeros (máximo)", _plain(v.get("max_passengers"))),
        ("Calderas", _plain(v.get("boilers"))),
    ]


class _CertificatePDF(DocumentPDF):
    """The shared document with the certificate's frame."""

    def frame(self):
        """Double rule frame with a thin inner line, the classic certificate border."""
        self.set_draw_color(*NAVY)
        self.set_line_width(1.2)
        self.rect(8, 8, PAGE_W - 16, PAGE_H - 16)
        self.set_line_width(0.3)
        self.rect(10.5, 10.5, PAGE_W - 21, PAGE_H - 21)
        self.set_draw_color(*GOLD)
        self.set_line_width(0.2)
        self.rect(12, 12, PAGE_W - 24, PAGE_H - 24)


def render_certificate_pdf(cert: dict, lang: str = "es") -> bytes:
    """Render the printable A4 certificate (Spanish) and return the PDF bytes."""
    if lang != "es":
        raise ValueError("only Spanish ('es') certificates are defined")
    kind = cert["kind"]
    if kind not in TITLES:
        raise ValueError(f"unknown certificate kind {kind!r}")
    vessel = cert.get("vessel") or {}
    title, subtitle = TITLES[kind]

    pdf = _CertificatePDF(f"{title} {cert['number']}", _date(cert.get("issued_on")), cert.get("office_zone"))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.frame()

    # Header: the authority, then the issuing office.
    pdf.set_y(17)
    pdf.letterhead(cert.get("office_name"), "Prefectura General de Puertos")

    # Title.
    pdf.centered(title, 21, "B", 10, NAVY, spacing=0.8)
    pdf.centered(subtitle, 12.5, "B", 6.5, GOLD, spacing=2.5)
    pdf.centered(
        f"N.º {cert['number']}   ·   Revisión {cert.get('revision', 1)}",
        11, "", 6.5, INK,
    )
    if cert.get("replaces"):  # the inspection's earlier certificate, revoked when it was returned (art. 221)
        pdf.centered(f"Reemplaza al certificado N.º {cert['replaces']}", 9, "I", 4.5, INK)

    # Preamble.
    pdf.set_y(pdf.get_y() + 2)
    pdf.set_font("Times", "", 10.5)
    pdf.set_text_color(*INK)
    pdf.set_x(LEFT)
    pdf.multi_cell(RIGHT - LEFT, 4.7, f"{PREAMBLE[kind]} {term_basis(cert)}", align="J",
                   new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    # Particulars (left) and QR with the number (right).
    top = pdf.get_y() + 3.5
    qr_x = RIGHT - QR_MM
    table_w = qr_x - 6 - LEFT
    pdf.set_y(top)
    pdf.heading("Datos de la embarcación", LEFT, table_w)
    label_w, row_h = 52, 5.0
    for i, (label, value) in enumerate(_particulars(vessel)):
        pdf.set_x(LEFT)
        fill = i % 2 == 0
        pdf.set_fill_color(*SHADE)
        pdf.set_font("Times", "", 9.5)
        pdf.set_text_color(*GREY)
        pdf.cell(label_w, row_h, label, fill=fill)
        pdf.set_font("Times", "B", 10.5)
        pdf.set_text_color(*INK)
        pdf.cell(table_w - label_w, row_h, value, fill=fill, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    table_bottom = pdf.get_y()

    qr_top = top + 1
    pdf.set_draw_color(*NAVY)
    pdf.set_line_width(0.3)
    pdf.rect(qr_x - 1.5, qr_top - 1.5, QR_MM + 3, QR_MM + 3)
    if cert.get("qr_png"):
        pdf.image(io.BytesIO(cert["qr_png"]), x=qr_x, y=qr_top, w=QR_MM, h=QR_MM)
    pdf.set_xy(qr_x - 4, qr_top + QR_MM + 3)
    pdf.set_font("Courier", "B", 12.5)
    pdf.set_text_color(*NAVY)
    pdf.cell(QR_MM + 8, 6, cert["number"], align="C", new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_font("Times", "I", 8.5)
    pdf.set_text_color(*GREY)
    pdf.set_x(qr_x - 4)
    verify_base = (cert.get("verify_url") or "").split("/v/")[0]
    note = "Verifique su autenticidad y vigencia escaneando el código con la cámara del teléfono"
    if verify_base:
        note += f" ({verify_base})"
    pdf.multi_cell(QR_MM + 8, 3.8, note + ".", align="C", new_x=XPos.LEFT, new_y=YPos.NEXT)

    # Validity band: issue, expiry and next inspection dates.
    y = max(table_bottom, pdf.get_y()) + 4
    boxes = [
        ("Fecha de expedición", cert.get("issued_on")),
        ("Válido hasta", cert.get("valid_until")),
        ("Próxima inspección", cert.get("next_inspection_on")),
    ]
    box_w = (RIGHT - LEFT - 2 * 4) / 3
    for i, (label, value) in enumerate(boxes):
        x = LEFT + i * (box_w + 4)
        pdf.set_draw_color(*NAVY)
        pdf.set_line_width(0.6 if i == 1 else 0.3)
        pdf.set_fill_color(*SHADE)
        pdf.rect(x, y, box_w, 14, style="DF" if i == 1 else "D")
        pdf.set_xy(x, y + 1.5)
        pdf.set_font("Times", "B", 8.5)
        pdf.set_text_color(*NAVY)
        pdf.set_char_spacing(0.5)
        pdf.cell(box_w, 4, label.upper(), align="C")
        pdf.set_char_spacing(0)
        pdf.set_xy(x, y + 6.2)
        pdf.set_font("Times", "B", 12.5)
        pdf.set_text_color(*INK)
        pdf.cell(box_w, 6, _long_date(value), align="C")
    y += 14 + 4

    # Articles certified against, then conditions / observations.
    pdf.set_y(y)
    pdf.heading("Normas de inspección", LEFT, RIGHT - LEFT)
    pdf.set_font("Times", "", 10)
    pdf.set_text_color(*INK)
    pdf.set_x(LEFT)
    articles = cert.get("articles") or CERTIFICATE_ARTICLES[kind]
    pdf.multi_cell(RIGHT - LEFT, 4.6, "; ".join(articles) + ".", align="L",
                   new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_y(pdf.get_y() + 2.5)
    pdf.heading("Condiciones y observaciones", LEFT, RIGHT - LEFT)
    pdf.set_font("Times", "", 10)
    pdf.set_text_color(*INK)
    conditions = cert.get("conditions") or []
    if not conditions:
        pdf.set_x(LEFT)
        pdf.cell(RIGHT - LEFT, 4.8, "Sin observaciones.", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    signature_top = PAGE_H - 58
    for n, condition in enumerate(conditions, 1):
        if pdf.get_y() + 4.8 * len(pdf.multi_cell(RIGHT - LEFT - 7, 4.8, condition,
                                                  dry_run=True, output="LINES")) > signature_top - 4:
            # Never drop a condition: continue on an annex page (the signatures follow them).
            pdf.set_x(LEFT)
            pdf.set_font("Times", "I", 9.5)
            pdf.cell(RIGHT - LEFT, 6, "(Continúa en la hoja siguiente.)", align="R")
            pdf.add_page()
            pdf.frame()
            pdf.set_y(20)
            pdf.heading(f"Condiciones y observaciones (continuación) — {cert['number']}",
                        LEFT, RIGHT - LEFT)
            pdf.set_font("Times", "", 10)
            pdf.set_text_color(*INK)
        pdf.set_x(LEFT)
        pdf.cell(7, 4.8, f"{n}.")
        pdf.multi_cell(RIGHT - LEFT - 7, 4.8, condition, align="L",
                       new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    # Place and date of issue, then the signatures required by art. 221.
    y = max(pdf.get_y() + 4, signature_top)
    if y > signature_top:
        pdf.add_page()
        pdf.frame()
        y = signature_top
    pdf.set_xy(LEFT, y)
    pdf.set_font("Times", "I", 10.5)
    pdf.set_text_color(*INK)
    office = cert.get("office_name") or "Prefectura General de Puertos"
    pdf.cell(RIGHT - LEFT, 5, f"Expedido por {office}, el {_long_date(cert.get('issued_on'))}.",
             align="C")
    signatories = list(cert.get("signatories") or DEFAULT_SIGNATORIES[kind])
    if cert.get("master"):
        signatories.append({"role": MASTER_ROLE, **cert["master"]})
    pdf.signatures(signatories, y)

    # Footer: who signs and where the certificate must be kept (arts. 203, 221, 224).
    pdf.rule(PAGE_H - 21.5, LEFT + 20, RIGHT - 20, GOLD, 0.2)
    pdf.set_xy(LEFT, PAGE_H - 20.5)
    pdf.set_font("Times", "I", 8.5)
    pdf.set_text_color(*GREY)
    pdf.multi_cell(RIGHT - LEFT, 3.8, FOOTER[kind], align="C")
    return bytes(pdf.output())
