"""Coded inspection values as people read them, in the page language (pages and tablet shells)."""
from inspection.i18n.labels import TERMS, term_label
from inspection.i18n.language import current_language

__all__ = ["TERMS", "term"]


def term(group: str, value) -> str:
    """The label of a coded inspection value in the page language (the code itself when unknown)."""
    return term_label(group, value, current_language())
