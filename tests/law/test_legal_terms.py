"""The law's terms come from data, with their articles; the navegabilidad term is the Prefectura's practice."""
import pytest

from inspection.law.legal_terms import (
    TermPractice,
    application_months,
    certificate_months,
    earlier_term,
    figures,
    legal_terms,
    navegabilidad_practice,
    reinspection_days,
)


def test_terms_match_the_law():
    assert certificate_months("seguridad") == 6        # arts. 211, 225: semestral
    assert "navegabilidad" not in legal_terms()["certificate_months"]  # arts. 201, 203 set no term
    assert navegabilidad_practice() == TermPractice(months=12)  # the Prefectura's practice
    assert application_months() == 1                   # art. 222: a month before expiry
    assert reinspection_days() == 14


def test_every_figure_is_a_positive_whole_number():
    found = dict(figures(legal_terms()))
    assert "fines.seguridad.amount" in found and "fines.seguridad.article" not in found
    assert all(isinstance(v, int) and v > 0 for v in found.values())


@pytest.mark.parametrize("months, expected", [(None, TermPractice(12)), (6, TermPractice(6)), (18, TermPractice(18))])
def test_the_practice_takes_the_installations_override(months, expected):
    assert navegabilidad_practice(months) == expected


@pytest.mark.parametrize("months", [0, -1, "12", True, 1.5])
def test_a_practice_that_makes_no_sense_is_refused(months):
    with pytest.raises(ValueError, match="navegabilidad"):
        navegabilidad_practice(months)


@pytest.mark.parametrize("kind, article, words", [
    ("navegabilidad", "203", "antes de la fecha fijada"),
    ("seguridad", "211", "o antes, si a juicio fuere necesario"),
])
def test_the_inspector_may_bring_a_term_forward_by_an_article(kind, article, words):
    term = earlier_term(kind)
    assert (term.article, words in term.quote) == (article, True)


def test_the_practice_is_labelled_as_practice_not_law():
    """legal_terms.toml says, where the figure is, that the year is the Prefectura's practice."""
    from inspection.law.legal_terms import PATH
    text = PATH.read_text(encoding="utf-8")
    practice = text[text.index("[practice]"):text.index("navegabilidad_months")]
    assert "práctica de la prefectura, no plazo legal" in practice.lower()


def test_the_environment_sets_the_practice(monkeypatch, tmp_path):
    from app import create_app
    from inspection.core.office import current_office
    monkeypatch.setenv("BALIZA_DATABASE_URL", f"sqlite:///{tmp_path}/x.sqlite")
    monkeypatch.setenv("BALIZA_SECRET_KEY", "from-env")
    monkeypatch.setenv("BALIZA_NAVEGABILIDAD_MONTHS", "6")
    with create_app().app_context():
        assert current_office().navegabilidad == TermPractice(6)
    monkeypatch.setenv("BALIZA_NAVEGABILIDAD_MAX_MONTHS", "18")  # art. 203 lets no term be lengthened
    with pytest.raises(RuntimeError, match="BALIZA_NAVEGABILIDAD_MAX_MONTHS no longer exists"):
        create_app()
