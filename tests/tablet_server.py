"""The app as its own process for the tablet journeys: `python -m tests.tablet_server BASE PORT`.

A separate process so a test can kill it (-9) mid-sync and start it again on the same database and
photo folder; `tests/tablet_rig.py` runs it behind a proxy that keeps the browser's origin stable.
"""
import sys
from pathlib import Path

from werkzeug.serving import make_server

from tests.tablet_rig import app_config


def main() -> None:
    base, port, public = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    from app import create_app
    from inspection.core.extensions import db
    from tests.unsynced import unsynced_commits, unsynced_files
    unsynced_files()
    app = create_app({**app_config(base), "PUBLIC_URL": public})
    with app.app_context():
        unsynced_commits(db.engine)
    server = make_server("127.0.0.1", port, app, threaded=True)
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
