"""The words of the restrictions the law orders instead of a detention (checklists/restrictions.toml), in a language."""
from checklists import load_catalog


def restriction_label(name: str | None, lang: str) -> str:
    """A restriction's words in `lang` ("solo navegación diurna"); its name when unknown, "" for none."""
    found = load_catalog().context.restrictions.get(name) if name else None
    return getattr(found, f"label_{lang}") if found else (name or "")
