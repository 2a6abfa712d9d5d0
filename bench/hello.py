"""The bare baseline: a Flask hello-world returning a small JSON dict (`bench.hello:app`)."""
from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello():
    """A small JSON dict, nothing else."""
    return {"hello": "world", "ok": True}
