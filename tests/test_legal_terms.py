"""The law's terms come from data, with their articles."""
from inspection.legal_terms import (
    application_months,
    certificate_months,
    legal_terms,
    reinspection_days,
)


def test_terms_match_the_law():
    assert certificate_months("seguridad") == 6        # arts. 211, 225: semestral
    assert certificate_months("navegabilidad") == 12   # art. 203, yearly practice
    assert application_months() == 1                   # art. 222: a month before expiry
    assert reinspection_days() == 14


def test_every_figure_is_a_positive_whole_number():
    for section in legal_terms().values():
        assert all(isinstance(v, int) and v > 0 for v in section.values())
