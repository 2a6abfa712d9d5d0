"""The fleet registry: owners and vessels, the rules that bind their particulars, which certificates a vessel needs
(arts. 210, 211) and the law's checklists applied to a vessel with this installation's settings; its faces are the
registry and checklist pages and API.
"""
from inspection.registry.needs import needs_of
from inspection.registry.vessel_checklists import law_coverage, vessel_checklist
from inspection.registry.vessels import create_owner, create_vessel, particulars_of, update_owner, update_vessel

__all__ = ["create_vessel", "update_vessel", "create_owner", "update_owner", "particulars_of", "needs_of", "vessel_checklist", "law_coverage"]
