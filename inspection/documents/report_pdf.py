"""An inspection's report and its fee statement as A4 PDFs (fpdf2, with pdf.py's shared helpers): dict in, bytes out.

The report is what the owner keeps of an inspection: the vessel's particulars as pinned at the start,
every item answered with the article it cites, the deficiencies with their action and due date, the
photos, both drawn signatures (inspector and the master who took cognizance, art. 213) and the fees.
The statement lists the fee lines of arts. 209 and 233 with both printed figures of each row, which
one is charged (fee_scales.toml), and the fines of the application the inspection answered (arts. 204,
225). Spanish by default, English with lang="en"; the legal texts quoted stay as written.

``doc`` is reports.report_document's dict (the statement needs only report_header's keys and
``charges``). A photo's ``image`` may be bytes or a call returning bytes, run when the photo is
drawn, so a report of many photos reads them one at a time.
"""
from __future__ import annotations

import io

from fpdf.enums import XPos, YPos
from fpdf.fonts import FontFace

from inspection.core.clock import zone_city
from inspection.documents.pdf import DASH, GREY, INK, NAVY, PAGE_H, SHADE, DocumentPDF, as_date, long_date, tonnage_text
from inspection.i18n.formats import format_moment, format_money, format_number
from inspection.i18n.labels import field_label, label, standing_key, term_label
from inspection.i18n.messages import Msg
from inspection.i18n.restrictions import restriction_label
from inspection.media.marks import COLOUR as MARK_COLOUR
from inspection.media.marks import placed, stroke_width

PARTICULARS = ("registration", "name", "flag", "home_port", "propulsion", "service", "hull_material", "length_m",
               "beam_m", "girth_m", "gross_tonnage", "crew", "max_passengers", "cabins", "fire_hydrants", "holds",
               "boilers", "boats", "flammable_cargo_kg", "cooking", "itinerary_category", "practicaje")
CODED = ("flag", "propulsion", "service", "hull_material", "cooking", "practicaje")
TEXT = ("registration", "name", "home_port", "itinerary_category")
HEAD = FontFace(emphasis="BOLD", color=NAVY, fill_color=SHADE)
BAND = FontFace(emphasis="BOLD", color=NAVY, fill_color=(247, 244, 236))
PHOTO_W, PHOTO_H, PHOTO_GAP = 84, 60, 6


class _Document(DocumentPDF):
    """The shared document with a running footer: what it is, and the page of the pages."""

    footer_text = ""

    def footer(self):
        """'Informe de inspección N.º 12 · PY-1234 — página 2 de 5'."""
        self.set_y(PAGE_H - 12)
        self.set_font("Times", "I", 8.5)
        self.set_text_color(*GREY)
        self.cell(self.width, 4, f"{self.footer_text} · {self.page_no()}/{{nb}}", align="C")


def _tr(lang: str):
    """A translator of Msg into `lang`."""
    return lambda message: message.in_language(lang)


def _moment(value, doc: dict, lang: str) -> str:
    """A UTC timestamp on the office's clock, saying whose clock it is."""
    if not value:
        return DASH
    zone = doc["office_zone"]
    place = Msg("hora de {city}", city=zone_city(zone)).in_language(lang)
    return f"{format_moment(value, zone, lang)} ({place})"


def _cite(source: str, article: str, lang: str) -> str:
    """'Ley 928/1927, art. 233' in the language's abbreviation."""
    art = Msg("art.").in_language(lang)
    return f"{source}, {art} {article}"


def _money(value, lang: str) -> str:
    return format_money(value, lang)


def _start(doc: dict, title: str, lang: str) -> _Document:
    """A new document with the letterhead, the title and the inspection's number and vessel."""
    tr = _tr(lang)
    submitted = as_date(doc.get("submitted_at")) or as_date(doc.get("scheduled_on"))
    pdf = _Document(f"{title} {doc['id']}", submitted, doc.get("office_zone"))
    number = tr(Msg("Inspección N.º {id}", id=doc["id"]))
    pdf.footer_text = f"{title} · {number} · {doc['vessel'].get('registration')}"
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    pdf.set_y(12)
    pdf.letterhead(doc.get("office_name"), "Prefectura General de Puertos")
    pdf.centered(title.upper(), 17, "B", 8, NAVY, spacing=0.8)
    pdf.centered(f"{number}   ·   {term_label('kind', doc['kind'], lang)}", 11, "", 6, INK)
    pdf.set_y(pdf.get_y() + 2)
    return pdf


def _pairs(pdf: _Document, rows: list[tuple[str, str]], columns: int = 2):
    """Label/value pairs in `columns` columns, grey labels and bold values."""
    pdf.set_font("Times", "", 9.5)
    pdf.set_text_color(*INK)
    with pdf.table(col_widths=(1, 1.4) * columns, first_row_as_headings=False, line_height=4.6,
                   text_align="LEFT", borders_layout="HORIZONTAL_LINES", padding=(0.8, 1.2)) as table:
        for start in range(0, len(rows), columns):
            row = table.row()
            for name, value in rows[start:start + columns]:
                row.cell(name, style=FontFace(color=GREY, size_pt=9))
                row.cell(value, style=FontFace(emphasis="BOLD", size_pt=9.5))
            for _ in range(columns - len(rows[start:start + columns])):
                row.cell("")
                row.cell("")


def _summary(pdf: _Document, doc: dict, lang: str):
    """Vessel, kind, port, dates on the office's clock, people, outcome and certificate."""
    tr = _tr(lang)
    vessel = doc["vessel"]
    certificate = doc.get("certificate")
    versions = " · ".join(f"{term_label('kind', part, lang)} {version}"
                          for part, version in doc.get("checklist_versions", {}).items())
    pdf.heading(tr(Msg("Inspección")))
    _pairs(pdf, [
        (tr(Msg("Buque")), f"{vessel.get('registration')} — {vessel.get('name')}"),
        (tr(Msg("Tipo de inspección")), term_label("kind", doc["kind"], lang)),
        (tr(Msg("Puerto")), doc.get("port") or DASH),
        (tr(Msg("Programada")), long_date(doc.get("scheduled_on"), lang)),
        (tr(Msg("Comenzada")), _moment(doc.get("started_at"), doc, lang)),
        (tr(Msg("Cerrada")), _moment(doc.get("submitted_at"), doc, lang)),
        (tr(Msg("Inspector")), doc.get("inspector") or DASH),
        (tr(Msg("Capitán o patrón presente")), doc.get("master_name") or DASH),
        (tr(Msg("Resultado")), term_label("outcome", doc.get("outcome"), lang) or DASH),
        (tr(Msg("Certificado")), tr(Msg("{number}, válido hasta {on}", number=certificate["number"],
                                          on=long_date(certificate["valid_until"], lang)))
         if certificate else tr(Msg("No emitido"))),
        (tr(Msg("Listas de verificación")), versions or DASH),
    ])
    pdf.set_y(pdf.get_y() + 3)


def _particular(field: str, value, lang: str) -> str:
    if field in CODED:
        return label(field, value, lang)
    if field in TEXT:
        return str(value)
    if field == "gross_tonnage":
        return tonnage_text(value, lang)
    return format_number(value, None, lang) or DASH


def _particulars(pdf: _Document, vessel: dict, lang: str):
    """The particulars pinned at the start (later changes to the register do not reach the report)."""
    tr = _tr(lang)
    pdf.heading(tr(Msg("Datos del buque usados en la inspección")))
    rows = [(field_label(f, lang), _particular(f, vessel[f], lang)) for f in PARTICULARS
            if vessel.get(f) not in (None, "")]
    rows += [(field_label(f, lang), tr(Msg("Sí"))) for f in ("steam_launch", "hot_climate") if vessel.get(f)]
    _pairs(pdf, rows)
    pdf.set_y(pdf.get_y() + 3)


def _bound(item: dict, lang: str) -> str:
    """'≥ 4 baldes' as the report writes it: 'máx. 40 pasajeros' or '4 baldes'."""
    if item.get("maximum") is not None:
        most = Msg("máx.").in_language(lang)
        return f"{most} {format_number(item['maximum'], None, lang)} {item.get('unit') or ''}".strip()
    if item.get("required") is not None:
        return f"{format_number(item['required'], None, lang)} {item.get('unit') or ''}".strip()
    return ""


def _standing(entry: dict, lang: str) -> list[str]:
    """The badges of an item's or deficiency's standing and restriction (templates/checklists/_standing.html)."""
    standing = standing_key(entry)
    badges = [term_label("standing", standing, lang)] if standing else []
    if entry.get("restriction"):
        badges.append(Msg("Restricción: {label} (no causa detención)",
                          label=restriction_label(entry["restriction"], lang)).in_language(lang))
    return [f"[{badge}]" for badge in badges]


def _items(pdf: _Document, items: list[dict], lang: str):
    """Every pinned item by checklist and topic: its article, bound, observed count, result and note."""
    tr = _tr(lang)
    pdf.heading(tr(Msg("Ítems inspeccionados")))
    pdf.set_font("Times", "", 9)
    with pdf.table(col_widths=(98, 24, 18, 34), headings_style=HEAD, line_height=4.2, text_align="LEFT",
                   borders_layout="HORIZONTAL_LINES", padding=(0.8, 1.2)) as table:
        head = table.row()
        for text in (tr(Msg("Ítem")), tr(Msg("Requerido")), tr(Msg("Observado")), tr(Msg("Resultado"))):
            head.cell(text)
        band = None
        for item in items:
            if (item.get("checklist"), item.get("topic_title")) != band:
                band = (item.get("checklist"), item.get("topic_title"))
                table.row().cell(f"{item.get('topic_title') or ''} · {term_label('kind', item.get('checklist'), lang)}",
                                 colspan=4, style=BAND)
            answer = item.get("answer")
            lines = [item["title"], _cite(item["source"], item["article"], lang)]
            lines.extend(_standing(item, lang))
            if answer and answer.get("note"):
                lines.append(tr(Msg("Nota: {note}", note=answer["note"])))
            if answer is None:
                result = tr(Msg("Sin respuesta"))
            else:
                result = term_label("result", answer["result"], lang)
                if answer.get("action"):
                    result += f"\n{term_label('action', answer['action'], lang)}"
            observed = answer.get("observed") if answer else None
            row = table.row()
            row.cell("\n".join(lines))
            row.cell(_bound(item, lang), align="RIGHT")
            row.cell(format_number(observed, None, lang) if observed is not None else "", align="RIGHT")
            row.cell(result, style=FontFace(emphasis="BOLD" if answer and answer["result"] == "fail" else ""))
    pdf.set_y(pdf.get_y() + 3)


def _deficiencies(pdf: _Document, deficiencies: list[dict], lang: str):
    """The deficiencies with the article, the action and the due date."""
    tr = _tr(lang)
    pdf.heading(tr(Msg("Deficiencias")))
    pdf.set_font("Times", "", 9.5)
    if not deficiencies:
        pdf.cell(pdf.width, 5, tr(Msg("Sin deficiencias.")), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    else:
        with pdf.table(col_widths=(86, 34, 30, 24), headings_style=HEAD, line_height=4.4, text_align="LEFT",
                       borders_layout="HORIZONTAL_LINES", padding=(0.8, 1.2)) as table:
            head = table.row()
            for text in (tr(Msg("Deficiencia")), tr(Msg("Acción")), tr(Msg("Plazo")), tr(Msg("Estado"))):
                head.cell(text)
            for d in deficiencies:
                lines = [d["title"], _cite(d["source"], d["article"], lang)]
                if d.get("detainable"):
                    lines.append("[" + tr(Msg("Causa detención")) + "]")
                lines.extend(_standing(d, lang))
                row = table.row()
                row.cell("\n".join(lines))
                row.cell(term_label("action", d["action"], lang))
                row.cell(long_date(d.get("due_on"), lang) if d.get("due_on") else DASH)
                row.cell(term_label("deficiency", d["status"], lang))
    pdf.set_y(pdf.get_y() + 3)


def _photos(pdf: _Document, photos: list[dict], doc: dict, lang: str):
    """The evidence photos two to a row, each with its item and its stamp (vessel, office time, position,
    flags: reports.photo_stamps) printed under the picture, never into it; read one at a time."""
    if not photos:
        return
    tr = _tr(lang)
    pdf.heading(tr(Msg("Fotos de evidencia ({count})", count=len(photos))))
    y = pdf.get_y() + 1
    below = PHOTO_H + 12 + STAMP_LINE * max((len(photo.get("stamp") or []) for photo in photos), default=0)
    for n, photo in enumerate(photos):
        column = n % 2
        if column == 0 and n:
            y += below + 2
        if column == 0 and y + below > PAGE_H - 18:
            pdf.add_page()
            y = pdf.get_y()
        x = pdf.left + column * (PHOTO_W + PHOTO_GAP)
        image = photo["image"]() if callable(photo["image"]) else photo["image"]
        pdf.image(io.BytesIO(image), x=x, y=y, w=PHOTO_W, h=PHOTO_H, keep_aspect_ratio=True)
        del image
        if photo.get("marks"):
            _marks(pdf, photo, x, y)
        pdf.set_xy(x, y + PHOTO_H + 1)
        pdf.set_font("Times", "B", 8.5)
        pdf.set_text_color(*INK)
        pdf.multi_cell(PHOTO_W, 3.6, photo["item"], max_line_height=3.6, new_x=XPos.LEFT, new_y=YPos.NEXT,
                       align="L")
        if photo.get("stamp"):
            _stamp(pdf, photo["stamp"])
        else:
            pdf.set_font("Times", "", 8)
            pdf.set_text_color(*GREY)
            pdf.cell(PHOTO_W, 3.6, _moment(photo.get("at"), doc, lang))
    pdf.set_text_color(*INK)
    pdf.set_xy(pdf.left, y + below + 2)


STAMP_LINE = 3.4
STAMP_COLORS = {"flag": (179, 38, 30), "none": (179, 38, 30), "note": (154, 90, 0)}


def _stamp(pdf: _Document, lines: list[tuple[str, str]]):
    """A photo's stamp under it, a rule at its left: flags and a missing position in red, an unknown port in amber."""
    x, top = pdf.get_x(), pdf.get_y() + 0.6
    pdf.set_xy(x + 1.8, top)
    for kind, text in lines:
        pdf.set_font("Times", "B" if kind == "flag" else "", 7.8)
        pdf.set_text_color(*STAMP_COLORS.get(kind, GREY))
        pdf.cell(PHOTO_W - 1.8, STAMP_LINE, text, new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_draw_color(*GREY)
    pdf.set_line_width(0.5)
    pdf.line(x + 0.3, top, x + 0.3, pdf.get_y())
    pdf.set_line_width(0.2)


def _marks(pdf: _Document, photo: dict, x: float, y: float):
    """The inspector's marks (issue 24) drawn over the printed photo, placed as the image was fitted (centred in its
    box, its aspect kept): the photo's bytes stay as they were, the layer is drawn on top."""
    scale = min(PHOTO_W / photo["width"], PHOTO_H / photo["height"])
    width, height = photo["width"] * scale, photo["height"] * scale
    left, top = x + (PHOTO_W - width) / 2, y + (PHOTO_H - height) / 2
    with pdf.local_context(draw_color=MARK_COLOUR, text_color=MARK_COLOUR,
                           line_width=max(0.35, stroke_width(width, height))):  # the page's pen is back afterwards
        for shape in placed(photo["marks"], width, height):
            if shape["kind"] == "circle":
                pdf.ellipse(left + shape["cx"] - shape["rx"], top + shape["cy"] - shape["ry"], 2 * shape["rx"],
                            2 * shape["ry"], style="D")
            elif shape["kind"] == "arrow":
                tip = (left + shape["x2"], top + shape["y2"])
                pdf.line(left + shape["x1"], top + shape["y1"], *tip)
                for bx, by in shape["barbs"]:
                    pdf.line(left + bx, top + by, *tip)
            else:
                pdf.set_font("Helvetica", "B", max(5.0, shape["size"] / 0.3528 * 1.3))  # letter height (mm) in points
                pdf.text(left + shape["x"], top + shape["y"], shape["text"])


def _signatures(pdf: _Document, doc: dict, lang: str):
    """The drawn signatures above their lines: the inspector's and the master's, and the reviewer's countersignature
    (art. 221) once given, or the words saying it is pending."""
    tr = _tr(lang)
    if pdf.get_y() + 45 > PAGE_H - 18:
        pdf.add_page()
    pdf.heading(tr(Msg("Firmas")))
    drawn = doc.get("signatures") or {}
    pdf.signatures([
        {"role": tr(Msg("Inspector")), "name": doc.get("inspector_signature") or doc.get("inspector"),
         "image": drawn.get("inspector")},
        {"role": tr(Msg("Capitán o patrón (tomó conocimiento)")), "name": doc.get("master_name"),
         "image": drawn.get("master")},
        *_countersignature(doc, tr),
    ], pdf.get_y())
    pdf.set_y(pdf.get_y() + 3)


def _countersignature(doc: dict, tr) -> list[dict]:
    """The reviewer's slot (art. 221): his drawn signature, name and title; "pendiente" while it waits; none else."""
    reviewer = doc.get("countersigned_by")
    if reviewer:
        return [{"role": reviewer.get("title") or tr(Msg("Refrendo (art. 221)")), "name": reviewer["name"],
                 "image": (doc.get("signatures") or {}).get("reviewer")}]
    if doc.get("review_status") == "pending":
        return [{"role": tr(Msg("Refrendo (art. 221)")), "name": tr(Msg("Pendiente de refrendo"))}]
    return []


def _fee_lines(pdf: _Document, charges: dict, lang: str):
    """The fee lines with both printed figures, the charged one marked, and their totals."""
    tr = _tr(lang)
    pdf.set_font("Times", "", 9)
    pdf.set_text_color(*INK)
    lines = charges["lines"]
    if not lines:
        pdf.multi_cell(pdf.width, 4.6, tr(Msg("Esta inspección no genera aranceles de escala.")),
                       new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        _fee_notes(pdf, charges, lang)
        return
    cl = charges["charged"] == "amount_cl"
    first_head, cl_head = tr(Msg("1.ª cifra ($)")), tr(Msg("Cifra c/l."))
    first_head, cl_head = (first_head, f"{cl_head} *") if cl else (f"{first_head} *", cl_head)
    with pdf.table(col_widths=(30, 82, 12, 25, 25), headings_style=HEAD, line_height=4.2, text_align="LEFT",
                   borders_layout="HORIZONTAL_LINES", padding=(0.8, 1.2)) as table:
        head = table.row()
        for text in (tr(Msg("Artículo")), tr(Msg("Concepto")), tr(Msg("Cant.")), first_head, cl_head):
            head.cell(text)
        for line in lines:
            row = table.row()
            row.cell(_cite(line["source"], line["article"], lang))
            row.cell(line["description"])
            row.cell(format_number(line["quantity"], None, lang), align="RIGHT")
            row.cell(_money(line["amount_first"], lang), align="RIGHT",
                     style=FontFace(emphasis="" if cl else "BOLD"))
            row.cell(_money(line["amount_cl"], lang), align="RIGHT", style=FontFace(emphasis="BOLD" if cl else ""))
        total = table.row()
        total.cell(tr(Msg("Total")), colspan=3, style=FontFace(emphasis="BOLD"))
        total.cell(_money(sum(line["amount_first"] for line in lines), lang), align="RIGHT",
                   style=FontFace(emphasis="" if cl else "BOLD"))
        total.cell(_money(sum(line["amount_cl"] for line in lines), lang), align="RIGHT",
                   style=FontFace(emphasis="BOLD" if cl else ""))
    pdf.set_font("Times", "I", 8.5)
    pdf.set_text_color(*GREY)
    note = (Msg("* La cifra cobrada: pesos de curso legal («c/l.»), la unidad que la ley nombra. La ley imprime dos "
                "cifras por fila; ambas quedan registradas.") if cl else
            Msg("* La cifra cobrada: la primera cifra impresa de cada fila. La ley imprime dos cifras por fila; "
                "ambas quedan registradas."))
    pdf.multi_cell(pdf.width, 3.8, tr(note), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(*INK)
    _fee_notes(pdf, charges, lang)


def _fee_notes(pdf: _Document, charges: dict, lang: str):
    """What the inspection is not charged and why, each with its article (a raft's hull, a vessel without boilers)."""
    pdf.set_font("Times", "", 9)
    pdf.set_text_color(*INK)
    for note in charges.get("notes") or []:
        pdf.multi_cell(pdf.width, 4.2, f"{_cite(note['source'], note['article'], lang)}: {note['reason']}",
                       new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def _fines(pdf: _Document, charges: dict, lang: str):
    """The fines of this inspection (art. 232) and of the application it answered (arts. 204, 225), then what is
    owed."""
    tr = _tr(lang)
    fines = charges.get("fines") or []
    pdf.set_y(pdf.get_y() + 2)
    pdf.set_font("Times", "", 9)
    if fines:
        with pdf.table(col_widths=(30, 119, 25), headings_style=HEAD, line_height=4.2, text_align="LEFT",
                       borders_layout="HORIZONTAL_LINES", padding=(0.8, 1.2)) as table:
            head = table.row()
            for text in (tr(Msg("Artículo")), tr(Msg("Multa o recargo")), tr(Msg("Importe"))):
                head.cell(text)
            for fine in fines:
                reason = fine["reason"]
                if fine.get("waived_at"):
                    reason += "\n" + tr(Msg("[Condonada: {reason}]", reason=fine.get("waived_reason") or ""))
                row = table.row()
                row.cell(_cite(fine["source"], fine["article"], lang))
                row.cell(reason)
                row.cell(_money(fine["amount"], lang), align="RIGHT")
        pdf.set_y(pdf.get_y() + 1)
    pdf.set_font("Times", "B", 10.5)
    pdf.cell(pdf.width - 30, 6, tr(Msg("Total a abonar (aranceles y multas no condonadas)")), align="R")
    pdf.cell(30, 6, _money(charges["owed"], lang), align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("Times", "", 9)


def render_report_pdf(doc: dict, lang: str = "es") -> bytes:
    """The inspection's report (A4) in `lang` and return the PDF bytes."""
    tr = _tr(lang)
    pdf = _start(doc, tr(Msg("Informe de inspección")), lang)
    _summary(pdf, doc, lang)
    _particulars(pdf, doc["vessel"], lang)
    _deficiencies(pdf, doc.get("deficiencies") or [], lang)
    _items(pdf, doc.get("items") or [], lang)
    _photos(pdf, doc.get("photos") or [], doc, lang)
    _signatures(pdf, doc, lang)
    if pdf.get_y() + 30 > PAGE_H - 18:
        pdf.add_page()
    pdf.heading(tr(Msg("Aranceles")))
    _fee_lines(pdf, doc["charges"], lang)
    _fines(pdf, doc["charges"], lang)
    return bytes(pdf.output())


def render_fee_statement_pdf(doc: dict, lang: str = "es") -> bytes:
    """The inspection's fee statement (A4) in `lang`: both figures per line, fines and what is owed."""
    tr = _tr(lang)
    pdf = _start(doc, tr(Msg("Liquidación de aranceles")), lang)
    _summary(pdf, doc, lang)
    pdf.heading(tr(Msg("Aranceles de escala (Ley 928/1927, arts. 209 y 233)")))
    _fee_lines(pdf, doc["charges"], lang)
    _fines(pdf, doc["charges"], lang)
    pdf.set_y(pdf.get_y() + 3)
    pdf.set_font("Times", "I", 8.5)
    pdf.set_text_color(*GREY)
    pdf.multi_cell(pdf.width, 3.8, tr(Msg(
        "No incluye los gastos de una inspección practicada fuera de la capital, que son por cuenta del propietario "
        "(art. 209) y se abonan al recibir el certificado.")), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    return bytes(pdf.output())
