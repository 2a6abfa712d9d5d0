"""A page act's two words to its user: it asks once where it cannot be undone, and says on the next
page what it did.

Asking: the form's first POST answers with a confirmation page that says what will happen and carries
the submitted fields back as hidden inputs, with `confirmed=1`; only that second POST acts. It needs no
script, so it works the same on every browser, and a retried confirmation meets the operation's own
state check (it never acts twice).

Saying: a face calls `report_done(Msg(...))` after its operation commits and then redirects; `base.html`
shows the messages atop the next page (role="status", so a screen reader reads them). The message is
written in the language of the request that acted, which is the reader's on the next page.
"""
from flask import flash, get_flashed_messages, render_template, request, session

from inspection.i18n.language import localize

TONES = ("ok", "warn", "bad")


def confirmed() -> bool:
    """Whether this POST is the answer to the confirmation page."""
    return request.form.get("confirmed") == "1"


def ask_confirmation(question, consequence, act_label, back_url: str):
    """The confirmation page for this POST: `question` as heading, `consequence` (why it cannot be
    undone), a button `act_label` that resubmits the same fields to the same URL, and `back_url`."""
    carried = [(name, value) for name, values in request.form.lists() if name not in ("confirmed", "csrf_token")
               for value in values]
    return render_template("confirm.html", question=localize(question), consequence=localize(consequence),
                           act_label=localize(act_label), back_url=back_url, carried=carried, action=request.path)


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
