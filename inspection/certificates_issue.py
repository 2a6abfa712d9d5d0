"""Placeholder until certificates land: a passed inspection is ready for its certificate."""


def issue_after_submit(inspection, outcome, today):
    """Issue the certificate of a passed inspection (filled in by the certificates module)."""
    return None
