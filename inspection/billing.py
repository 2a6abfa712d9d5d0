"""What an inspection costs its owner, from the particulars it was (or will be) inspected with."""
from .fees import fee_statement, inspection_fees
from .models import Inspection
from .vessels import particulars_of


def fee_statement_of(inspection: Inspection) -> dict:
    """The fee lines (arts. 209, 233) of an inspection: its pinned particulars once started, else the vessel's."""
    particulars = inspection.particulars or particulars_of(inspection.vessel)
    return fee_statement(inspection_fees(inspection.kind, particulars))
