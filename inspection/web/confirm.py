"""An act that cannot be undone asks once: the form's first POST answers with a confirmation page.

The page says what will happen and carries the submitted fields back as hidden inputs, with
`confirmed=1`; only that second POST acts. It needs no script, so it works the same on every
browser, and a retried confirmation meets the operation's own state check (it never acts twice).
"""
from flask import render_template, request

from inspection.i18n.language import localize


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
