"""The shared fields (typed text trimmed, blank refused) and the hand-written fast dumps, identical to their schemas."""
import pytest
from marshmallow import ValidationError

from inspection.accounts.schemas import ConflictSchema, DeviceRequest, TokenRequest, UserSchema
from inspection.cycle.schemas import ApplicationInSchema, WaiveInSchema
from inspection.inspections.schemas import (
    AnswerInSchema,
    DetentionInSchema,
    InspectionCreateSchema,
    ReportFixedSchema,
    SubmitInSchema,
)
from inspection.planning.schemas import AssignInSchema
from inspection.registry.schemas import OwnerSchema, VesselSchema, vessel_json
from inspection.web.schemas import NoteSchema

# Every name, port, reason and signature a person types: those never empty (required, or a minimum length
# when given, as a device's name), and those that may be, with what only spaces becomes.
NEVER_EMPTY = [(OwnerSchema, "name"), (OwnerSchema, "tax_id"), (VesselSchema, "registration"), (VesselSchema, "name"),
               (VesselSchema, "home_port"), (ConflictSchema, "reason"), (InspectionCreateSchema, "port"),
               (ApplicationInSchema, "port"), (AssignInSchema, "port"), (SubmitInSchema, "signature"),
               (SubmitInSchema, "master_name"), (NoteSchema, "reason"), (DetentionInSchema, "reason"),
               (ReportFixedSchema, "reason"), (WaiveInSchema, "reason"), (TokenRequest, "device"),
               (DeviceRequest, "name")]
MAY_BE_EMPTY = [(UserSchema, "full_name", ""), (OwnerSchema, "phone", None), (OwnerSchema, "address", None),
                (VesselSchema, "cabotage_permit", None), (AnswerInSchema, "note", "")]


@pytest.mark.parametrize("schema, field", NEVER_EMPTY, ids=[f"{s.__name__}.{f}" for s, f in NEVER_EMPTY])
def test_typed_text_that_is_only_spaces_is_refused_where_it_cannot_be_empty(schema, field):
    for blank in ("   ", "\t\n ", "\u00a0"):
        with pytest.raises(ValidationError) as refused:
            schema().load({field: blank}, partial=True)
        assert refused.value.messages == {field: ["Este campo no puede quedar en blanco."]}


@pytest.mark.parametrize("schema, field, empty", MAY_BE_EMPTY, ids=[f"{s.__name__}.{f}" for s, f, _ in MAY_BE_EMPTY])
def test_typed_text_is_trimmed_and_an_optional_blank_is_empty(schema, field, empty):
    assert schema().load({field: "  Puerto Casado \n"}, partial=True)[field] == "Puerto Casado"
    assert schema().load({field: "   "}, partial=True)[field] == empty
    assert schema().load({field: ""}, partial=True)[field] == empty


@pytest.mark.parametrize("overrides", [
    {},
    {"flag": "foreign", "cabotage_permit": "CAB-9", "propulsion": "steam", "boilers": 2, "steam_launch": True},
    {"length_m": "12.35", "beam_m": "3.1", "girth_m": "4.75", "hull_material": "wood", "itinerary_category": "D"},
])
def test_vessel_json_equals_the_schema(make_vessel, overrides):
    from decimal import Decimal
    overrides = {k: Decimal(v) if k.endswith("_m") else v for k, v in overrides.items()}
    vessel = make_vessel(**overrides)
    assert vessel_json(vessel) == VesselSchema().dump(vessel)


@pytest.mark.parametrize("length", ["10", "10.00", "10.000000"])
def test_exact_tonnage_keeps_the_digits_of_each_spelling_of_a_length(length):
    """10 and 10.00 are equal Decimals with one hash; the remembered quotient is keyed by text, so each gets its own."""
    from decimal import Decimal
    from types import SimpleNamespace

    from inspection.law.tonnage import gross_tonnage
    from inspection.registry.schemas import exact_tonnage
    vessel = SimpleNamespace(length_m=Decimal(length), beam_m=Decimal("4.5"), girth_m=Decimal("7"), hull_material="iron")
    for _ in range(2):  # computed, then remembered
        assert exact_tonnage(vessel) == str(gross_tonnage(Decimal(length), Decimal("4.5"), Decimal("7"), "iron"))
