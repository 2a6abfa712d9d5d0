"""Checklists from the law: data files, a validating loader and a safe rule language.

Pure Python: no Flask, no database. Nothing is loaded at import time.
"""

from .builder import (article_coverage, build_checklist, checklist_versions, coverage_report, exemption_basis,
                      exemption_particulars,
                      format_article_coverage, exemption_test, format_coverage, uncovered_articles)
from .loader import KINDS, Catalog, Checklist, ChecklistError, Item, load_catalog
from .rules import Rule, RuleError, compile_rule

__all__ = [
    "KINDS", "Catalog", "Checklist", "ChecklistError", "Item", "Rule", "RuleError",
    "article_coverage", "build_checklist", "checklist_versions", "compile_rule", "coverage_report", "exemption_basis", "exemption_particulars",
    "format_article_coverage", "exemption_test", "format_coverage", "load_catalog", "uncovered_articles",
]
