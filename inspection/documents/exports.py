"""CSV downloads that stream: a header, then rows as the database cursor yields them, so no export times out.

Rows come from a generator (a `yield_per` result for lists); the response is built with
`stream_with_context`, so the request's session stays open while the rows are read.

Every cell passes through `safe_cell`: text a spreadsheet would read as a formula (OWASP's CSV injection
rule: a leading `=`, `+`, `-`, `@`, tab or carriage return) is written with a leading apostrophe, which
spreadsheets show as text. Numbers stay numbers, and text that is a plain number (`-12.5`) stays as it is,
so a negative figure is not corrupted; names, ports and notes typed by users cannot run in the authority's
spreadsheet.
"""
import csv
import io
import re
from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from flask import Response, stream_with_context

CHUNK_ROWS = 200  # rows written per chunk sent
YIELD_PER = 500  # rows fetched per round trip from the server-side cursor

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?\Z")


def safe_cell(value):
    """A cell a spreadsheet shows as typed: formula-like text gets a leading apostrophe; numbers pass as they are."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float, Decimal, date)):
        return value
    text = str(value)
    if text.startswith(FORMULA_START) and not PLAIN_NUMBER.match(text):
        return "'" + text
    return text


def csv_chunks(header: list[str], rows: Iterable) -> Iterable[str]:
    """The CSV text in chunks: a UTF-8 BOM (spreadsheets then read ñ and á), the header, the rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow([safe_cell(name) for name in header])
    for n, row in enumerate(rows, start=1):
        writer.writerow([safe_cell(value) for value in row])
        if n % CHUNK_ROWS == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def csv_response(filename: str, header: list[str], rows: Iterable) -> Response:
    """A streamed text/csv attachment named `filename`."""
    response = Response(stream_with_context(csv_chunks(header, rows)), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def streamed(statement, session) -> Iterable:
    """The rows of a SELECT fetched YIELD_PER at a time (a server-side cursor on PostgreSQL)."""
    yield from session.execute(statement.execution_options(yield_per=YIELD_PER, stream_results=True))
