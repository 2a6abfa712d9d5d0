"""Dates and numbers on pages read as the page's language says (Babel's es_PY and en), never ISO."""
import html
import re
from datetime import date, datetime, time, timedelta, timezone

from inspection.i18n.formats import format_day
from tests.conftest import PASSWORD
from tests.fixtures.inspections import answer_all, schedule, submit

ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def text(response) -> str:
    """The visible text of a page, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def signed_in(app, user):
    """A test client signed in as `user`."""
    client = app.test_client()
    assert client.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def test_police_page_dates_in_words_in_both_languages(client, issued):  # noqa: F811
    valid_until = date.fromisoformat(issued["valid_until"])
    spanish = text(client.get(f"/v/{issued['token']}?lang=es"))
    english = text(client.get(f"/v/{issued['token']}?lang=en"))
    assert format_day(valid_until, "es") in spanish and " de 20" in format_day(valid_until, "es")
    assert format_day(valid_until, "en") in english
    assert format_day(issued["issued_on"], "en") in english
    assert ISO.findall(spanish) == [] and ISO.findall(english) == []


def test_a_suspended_certificate_has_no_days_left(client, crew, issued):  # noqa: F811
    client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions", json={"reason": "Filtración"}, headers=crew["ih"])
    page = text(client.get(f"/v/{issued['token']}?lang=es"))
    assert "SUSPENDIDO" in page and "quedan" not in page and "queda " not in page


def test_days_left_in_singular_and_plural(client, issued, set_clock):  # noqa: F811
    valid_until = date.fromisoformat(issued["valid_until"])

    def page_on(day):
        set_clock(datetime.combine(day, time(15), timezone.utc))  # midday in Asunción
        return text(client.get(f"/v/{issued['token']}?lang=es"))

    assert "(queda 1 día)" in page_on(valid_until - timedelta(days=1))
    assert "(vence hoy)" in page_on(valid_until)
    assert "(vencido ayer)" in page_on(valid_until + timedelta(days=1))
    assert "(vencido hace 2 días)" in page_on(valid_until + timedelta(days=2))
    assert "(quedan 3 días)" in page_on(valid_until - timedelta(days=3))


def test_certificate_pages_show_dates_in_words(app, crew, issued):  # noqa: F811
    owner = signed_in(app, crew["owner"])
    detail = text(owner.get(f"/certificados/{issued['number']}?lang=en"))
    assert format_day(issued["valid_until"], "en") in detail and format_day(issued["issued_on"], "en") in detail
    listing = text(owner.get("/certificados?lang=es"))
    assert format_day(issued["valid_until"], "es", "medium") in listing
    assert ISO.findall(detail) == [] and ISO.findall(listing) == []


def test_inspection_list_and_pages_show_dates_in_words(app, client, crew, set_clock):  # noqa: F811
    set_clock(datetime(2026, 11, 20, 15, 0, tzinfo=timezone.utc))  # the office's today, so Dec 1 is ahead
    on = date(2026, 12, 1)
    inspection_id = schedule(client, crew, on=on)
    admin = signed_in(app, crew["admin_user"])
    assert "1 dic 2026" in text(admin.get("/inspecciones?lang=es")).replace(".", "")
    assert "Dec 1, 2026" in text(admin.get("/inspecciones?lang=en"))
    assert "1 de diciembre de 2026" in text(admin.get(f"/inspecciones/{inspection_id}?lang=es"))


def test_report_numbers_in_the_page_language(app, client, crew, started):  # noqa: F811
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    submit(client, crew, inspection_id)
    admin = signed_in(app, crew["admin_user"])
    report = admin.get(f"/inspecciones/{inspection_id}/informe?lang=es").get_data(as_text=True)
    tonnage = re.search(r"<dd>([^<]*) t</dd>", report).group(1)
    assert re.fullmatch(r"[\d.]+,\d\d", tonnage), tonnage  # "346,33", not "346.33"
    observed = re.findall(r'<td class="num"[^>]*>([^<]+)</td>', report)
    assert observed and all(re.fullmatch(r"[\d.]+(,\d+)?", n) for n in observed), observed
    assert ISO.findall(text(admin.get(f"/inspecciones/{inspection_id}/informe?lang=en"))) == []


def test_vessel_measures_and_counts_in_the_page_language(app, make_vessel, make_user):
    from decimal import Decimal

    vessel = make_vessel(length_m=Decimal("30.5"), beam_m=Decimal("7.00"), crew=6)
    admin = signed_in(app, make_user("admin"))
    page = admin.get(f"/buques/{vessel.id}?lang=es").get_data(as_text=True)
    measures = re.findall(r"<dd>([\d.,]+)</dd>", page)
    assert "30,5" in measures and "7" in measures and "6" in measures, measures
    assert not any(re.fullmatch(r"\d+\.\d+", m) for m in measures), measures  # no "30.5", "7.00"
    assert "<dd>30.5</dd>" in admin.get(f"/buques/{vessel.id}?lang=en").get_data(as_text=True)
