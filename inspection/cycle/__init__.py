"""The semestral cycle's paperwork: applying for an inspection (art. 222), its late fines (arts. 204, 225) and their
waiver, what an inspection costs its owner (arts. 209, 232, 233), and the arqueo with its fee and fine (arts.
194-200). Its pages and API are the fleet's (`fleet/`), where owners and the counter meet them.
"""
from inspection.cycle.applications import apply_for_inspection, complete_applications, preview_application, waive_fine
from inspection.cycle.billing import fee_statement_of

__all__ = ["apply_for_inspection", "preview_application", "waive_fine", "complete_applications", "fee_statement_of"]
