"""Take the contract's snapshots (OpenAPI document, URL map, CLI) of a fresh app: `python tests/snapshots/take.py`."""
import json
import sys
import tempfile
from pathlib import Path

import click

HERE = Path(__file__).resolve().parent


def contract_app(folder: Path):
    """An app on an empty SQLite file in `folder`, as the snapshots were taken."""
    from app import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{folder}/s.sqlite",
                       "MEDIA_DIR": str(folder / "m"), "KEYS_DIR": str(folder / "k"),
                       "PUBLIC_URL": "https://baliza.test"})


def openapi_document(app) -> dict:
    with app.test_client() as client:
        return client.get("/api/v1/openapi.json").get_json()


def url_rules(app) -> list[str]:
    """One line per rule: path, methods (HEAD and OPTIONS left out) and endpoint, sorted."""
    return sorted(f"{r.rule} {','.join(sorted(r.methods - {'HEAD', 'OPTIONS'}))} {r.endpoint}"
                  for r in app.url_map.iter_rules())


def cli_lines(app) -> list[str]:
    """Every command and subcommand with its options, sorted."""
    def walk(command, prefix):
        lines = [f"{prefix} " + " ".join(sorted(p.opts[0] if p.opts else p.name for p in command.params))]
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                lines += walk(command.commands[name], f"{prefix} {name}")
        return lines

    return [line for name in sorted(app.cli.commands) for line in walk(app.cli.commands[name], name)]


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))
    app = contract_app(Path(tempfile.mkdtemp()))
    (HERE / "openapi.json").write_text(json.dumps(openapi_document(app), indent=1, ensure_ascii=False))
    (HERE / "url_map.txt").write_text("\n".join(url_rules(app)) + "\n")
    (HERE / "cli.txt").write_text("\n".join(cli_lines(app)) + "\n")
