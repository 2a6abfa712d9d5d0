"""The vessel picker every page form shares: a typed registration or name becomes a vessel id."""
from inspection.accounts.access import vessel_scope
from inspection.core.extensions import db
from inspection.core.models import Vessel
from inspection.i18n.language import localize
from inspection.i18n.messages import Msg
from inspection.registry.vessels import match_vessels, vessel_label


def typed_vessel(text: str, user) -> tuple[Vessel | None, list[str]]:
    """The one vessel of the user's scope that a typed registration or name (or a form's label) names, else
    the message to show: none matches, or several do. Forms use it instead of a list of every vessel."""
    found = match_vessels(vessel_scope(db.select(Vessel), user), text)
    if len(found) == 1:
        return found[0], []
    if not found:
        return None, [localize(Msg("Ningún buque coincide con «{text}».", text=text))]
    return None, [localize(Msg("Varios buques coinciden con «{text}»: escriba la matrícula completa.", text=text))]


def with_vessel(form, user) -> tuple[dict, dict]:
    """The form's fields with `vessel_id` from its `vessel` text box (a posted vessel_id wins), and its errors."""
    values = form.to_dict()
    text = values.get("vessel", "").strip()
    if values.get("vessel_id") or not text:
        return values, {}
    vessel, messages = typed_vessel(text, user)
    if vessel is None:
        return values, {"vessel_id": messages}
    return {**values, "vessel_id": str(vessel.id), "vessel": vessel_label(vessel)}, {}
