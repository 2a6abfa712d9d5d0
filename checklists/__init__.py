"""Checklists from the law: data files, a validating loader and a safe rule language.

Pure Python: no Flask, no database. Nothing is loaded at import time.
"""

from .builder import (CONSEQUENCES, STANDINGS, build_checklist, build_patrol_checklist, patrol_kinds, patrol_particulars, checklist_versions, clause_coverage, clause_totals,
                      coverage_report, exemption_basis, exemption_particulars, exemption_test, format_clause_coverage, format_coverage,
                      uncovered_clauses)
from .loader import KINDS, Catalog, Checklist, ChecklistError, Item, load_catalog
from .rules import Rule, RuleError, compile_rule

__all__ = [
    "CONSEQUENCES", "KINDS", "STANDINGS", "Catalog", "Checklist", "ChecklistError", "Item", "Rule", "RuleError",
    "build_checklist", "build_patrol_checklist", "checklist_versions", "patrol_kinds", "patrol_particulars", "clause_coverage", "clause_totals", "compile_rule", "coverage_report",
    "exemption_basis", "exemption_particulars", "exemption_test", "format_clause_coverage", "format_coverage",
    "load_catalog", "uncovered_clauses",
]
