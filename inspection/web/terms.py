"""Coded inspection values as people read them, in the page language (pages and tablet shells)."""
from inspection.i18n.labels import TERMS, standing_key, term_label
from inspection.i18n.language import current_language
from inspection.i18n.restrictions import restriction_label

__all__ = ["TERMS", "restriction", "standing_key", "term"]


def term(group: str, value) -> str:
    """The label of a coded inspection value in the page language (the code itself when unknown)."""
    return term_label(group, value, current_language())


def restriction(name: str | None) -> str:
    """The words of a restriction an article orders instead of a detention, in the page language."""
    return restriction_label(name, current_language())
