"""Every Spanish string shown to users has its English translation, and language choice works."""
import re
from pathlib import Path

from inspection.i18n import Msg, catalog, localize
from inspection.labels import FIELD_LABELS, LABELS

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = [
    re.compile(r'Msg\(\s*"((?:[^"\\]|\\.)+)"'),
    re.compile(r'\b_\(\s*"((?:[^"\\]|\\.)+)"'),
    re.compile(r"\b_\(\s*'((?:[^'\\]|\\.)+)'"),
    re.compile(r'gettext\(\s*"((?:[^"\\]|\\.)+)"'),
]


def source_strings() -> set[str]:
    """Every translatable Spanish string in code and templates (docstrings mention `_("...")`)."""
    found = set()
    files = list((ROOT / "inspection").rglob("*.py")) + list((ROOT / "templates").rglob("*.html"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        for pattern in PATTERNS:
            found.update(m.encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
                         if "\\" in m else m for m in pattern.findall(text))
    for mapping in LABELS.values():
        found.update(mapping.values())
    found.update(FIELD_LABELS.values())
    from inspection.i18n import _MARSHMALLOW
    found.update(_MARSHMALLOW.values())
    found.discard("...")
    return found


def test_every_string_has_an_english_translation():
    missing = sorted(s for s in source_strings() if s not in catalog("en"))
    assert missing == [], "add to inspection/translations/en/*.json:\n" + "\n".join(missing)


def test_msg_translates_with_parameters():
    message = Msg("Ya existe el usuario {username}.", username="ana")
    assert str(message) == "Ya existe el usuario ana."
    assert message.in_language("en") == "User ana already exists."


def test_marshmallow_messages_are_spanish_by_default():
    assert localize({"crew": ["Missing data for required field."]}, "es") == {"crew": ["Este campo es obligatorio."]}
    assert localize(["Must be greater than or equal to 0."], "en") == ["Must be greater than or equal to 0."]


def test_page_language_switch(client):
    assert "Ingresar a Baliza" in client.get("/login").get_data(as_text=True)
    assert "Sign in to Baliza" in client.get("/login?lang=en").get_data(as_text=True)
    # the choice sticks for the session
    assert "Sign in to Baliza" in client.get("/login").get_data(as_text=True)



def test_pages_stay_spanish_for_an_english_browser_until_asked(client):
    assert "Ingresar a Baliza" in client.get("/login", headers={"Accept-Language": "en-US,en"}).get_data(as_text=True)
