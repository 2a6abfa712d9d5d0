"""A bare baseline for uploads: a Flask app that reads the whole request body and returns a small JSON.

`bench.echo:app` under gunicorn. POST any body (JSON or multipart) to `/echo`; nothing is parsed
beyond reading the raw bytes, so it costs what HTTP, WSGI and Flask cost for a body of that size.
"""
from flask import Flask, request

app = Flask(__name__)
app.config["MAX_CONTENT_LENGTH"] = 20 * 1024 * 1024  # as the real app


@app.get("/")
def hello():
    """The same small JSON dict as bench.hello (so harness.serve's readiness probe gets a 200)."""
    return {"hello": "world", "ok": True}


@app.post("/echo")
def echo():
    """Read the raw body (no form parsing) and say how many bytes arrived."""
    data = request.get_data(cache=False)
    return {"ok": True, "bytes": len(data)}, 201
