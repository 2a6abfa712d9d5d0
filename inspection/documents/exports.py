"""CSV downloads that stream: a header, then rows as the database cursor yields them, so no export times out.

Rows come from a generator (a `yield_per` result for lists); the response is built with
`stream_with_context`, so the request's session stays open while the rows are read.
"""
import csv
import io
from collections.abc import Iterable

from flask import Response, stream_with_context

CHUNK_ROWS = 200  # rows written per chunk sent
YIELD_PER = 500  # rows fetched per round trip from the server-side cursor


def csv_chunks(header: list[str], rows: Iterable) -> Iterable[str]:
    """The CSV text in chunks: a UTF-8 BOM (spreadsheets then read ñ and á), the header, the rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(header)
    for n, row in enumerate(rows, start=1):
        writer.writerow(["" if value is None else value for value in row])
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
