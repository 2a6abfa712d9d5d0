"""Every act says on the next page what it did: a message kept in the session until shown once.

A face calls `report_done(Msg(...))` after its operation commits and then redirects; `base.html`
shows the messages atop the next page (role="status", so a screen reader reads them). The message is
written in the language of the request that acted, which is the reader's on the next page.
"""
from flask import flash, get_flashed_messages, session

from inspection.i18n.language import localize

TONES = ("ok", "warn", "bad")


def report_done(message, tone: str = "ok") -> None:
    """Keep `message` (a `Msg`, or text already in the reader's language) for the next page."""
    if tone not in TONES:
        raise ValueError(f"unknown tone {tone!r}")
    text = localize(message)
    if (tone, text) not in session.get("_flashes", []):  # a form sent twice (its replay) says it once
        flash(text, tone)


def pending_reports() -> list[tuple[str, str]]:
    """The messages waiting for this page, as (tone, text); reading them removes them."""
    return get_flashed_messages(with_categories=True)
