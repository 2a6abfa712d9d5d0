"""Every Spanish string shown to users has its English translation, and language choice works."""
import re
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from inspection.i18n.language import localize
from inspection.i18n.messages import CATALOG_DIR, Msg, translate

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"_": None, "gettext": None, "Msg": None, "N_": None}  # as `pybabel extract -k Msg -k N_` (JS too)


def source_strings() -> set[str]:
    """Every translatable Spanish string, found by Babel's extractor with the project's babel.cfg."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    return {message for _file, _line, message, _comments, _context in
            extract_from_dir(str(ROOT), method_map, options_map, keywords=KEYWORDS)
            if isinstance(message, str) and message}


def english_catalog():
    with (CATALOG_DIR / "en" / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale="en")


def test_every_string_has_an_english_translation():
    catalog = english_catalog()
    translated = {m.id for m in catalog if m.id and m.string and not m.fuzzy}
    missing = sorted(source_strings() - translated)
    assert missing == [], ("run `pybabel extract -F babel.cfg -k Msg -k N_ -o inspection/i18n/translations/messages.pot .` "
                           "and `pybabel update -i inspection/i18n/translations/messages.pot -d inspection/i18n/translations`, "
                           "then translate:\n" + "\n".join(missing))


def test_the_scripts_strings_are_extracted_too():
    """The offline verifier's words (static/js, gettext('...') and N_('...')) are in the same catalog."""
    found = source_strings()
    assert {"NO CONFIRMADO", "Actualizando las listas…", "queda 1 día", "revisión {n}"} <= found
    assert translate("Actualizando las listas…", "en") == "Updating the lists…"


def test_the_catalog_has_no_obsolete_entries():
    stale = sorted({m.id for m in english_catalog() if m.id} - source_strings())
    assert stale == [], "remove from messages.po (no longer in the code):\n" + "\n".join(stale)


def test_translations_keep_their_placeholders():
    field = re.compile(r"\{(\w*)\}")
    wrong = [m.id for m in english_catalog() if m.id and set(field.findall(m.id)) != set(field.findall(m.string))]
    assert wrong == []


def test_marked_strings_are_translated_where_shown():
    from inspection.i18n.labels import label

    assert translate("Abierta", "en") == "Open"
    assert translate("Abierta", "es") == "Abierta"
    assert translate("texto que nadie tradujo", "en") == "texto que nadie tradujo"
    assert localize({"flag": ["Este campo es obligatorio."]}, "en") == {"flag": ["This field is required."]}
    assert label("propulsion", "steam", "es") == "Vapor"
    assert label("propulsion", "steam", "en") == translate("Vapor", "en") != "Vapor"


def test_msg_translates_with_parameters():
    message = Msg("Ya existe el usuario {username}.", username="ana")
    assert str(message) == "Ya existe el usuario ana."
    assert message.in_language("en") == "User ana already exists."


def test_marshmallow_messages_are_spanish_by_default():
    assert localize({"crew": ["Missing data for required field."]}, "es") == {"crew": ["Este campo es obligatorio."]}
    assert localize(["Must be greater than or equal to 0."], "en") == ["Must be greater than or equal to 0."]


def test_a_range_with_both_bounds_names_both():
    both = "Must be greater than or equal to 1 and less than or equal to 200."
    assert localize([both], "es") == ["Debe ser mayor o igual que 1 y menor o igual que 200."]
    assert localize([both], "en") == ["Must be at least 1 and at most 200."]
    above = "Must be greater than 0 and less than or equal to 1."
    assert localize([above], "es") == ["Debe ser mayor que 0 y menor o igual que 1."]


def test_page_language_switch(client):
    assert "Ingresar a Baliza" in client.get("/login").get_data(as_text=True)
    assert "Sign in to Baliza" in client.get("/login?lang=en").get_data(as_text=True)
    # the choice sticks for the session
    assert "Sign in to Baliza" in client.get("/login").get_data(as_text=True)


def test_a_background_fetch_in_another_language_keeps_the_readers_language(client):
    """Issue 21: the service worker keeps a copy of the tablet's pages in each language (`?lang=` on a fetch,
    not a navigation); that must not switch the language of the reader's next page."""
    assert "Sign in to Baliza" in client.get("/login?lang=en", headers={"Sec-Fetch-Mode": "navigate"}).get_data(as_text=True)
    fetched = client.get("/login?lang=es", headers={"Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"})
    assert "Ingresar a Baliza" in fetched.get_data(as_text=True)  # the copy fetched is in the language asked
    assert "Sign in to Baliza" in client.get("/login", headers={"Sec-Fetch-Mode": "navigate"}).get_data(as_text=True)



def test_pages_stay_spanish_for_an_english_browser_until_asked(client):
    assert "Ingresar a Baliza" in client.get("/login", headers={"Accept-Language": "en-US,en"}).get_data(as_text=True)


def test_a_language_asked_of_a_page_that_redirects_is_kept(client, make_user):
    """Issue 21: `/?lang=en` redirected to the login before the language was stored: the login came in Spanish."""
    from tests.conftest import PASSWORD

    home = client.get("/?lang=en")
    assert home.status_code == 302
    assert "Sign in to Baliza" in client.get(home.headers["Location"]).get_data(as_text=True)
    owner = make_user("owner")
    client.get("/login?lang=es")
    signed = client.post("/login?lang=en", data={"username": owner.username, "password": PASSWORD})
    assert signed.status_code == 302  # signing in (a redirect) keeps the language asked with it
    assert "My fleet" in client.get(client.get("/").headers["Location"]).get_data(as_text=True)
