"""`flask --app app backup DEST` and `flask --app app restore SRC`: the database and the photos, checked on the way back."""
from pathlib import Path

import click
from flask import current_app

from inspection.core.clock import office_now
from inspection.core.extensions import db
from inspection.media.configured import media_storage
from inspection.ops.backup import BackupError, backup, restore


def migrations_head() -> str | None:
    """The newest Alembic revision the code knows (recorded beside the database's own)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(Path(current_app.root_path) / "migrations"))
    return ScriptDirectory.from_config(config).get_current_head()


@click.command("backup")
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
def backup_command(dest):
    """Copy the database (pg_dump or SQLite's backup) and every photo, with a manifest of hashes, into DEST."""
    try:
        summary = backup(dest, current_app.config["DATABASE_URL"], media_storage(), db.metadata.sorted_tables,
                         office_now(), migrations_head())
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    media = summary["media"]
    click.echo(f"Copia en {dest}: base {summary['database']} (revisión {summary['schema_revision'] or '-'}), "
               f"{sum(summary['counts'].values())} filas, {media['objects']} archivos ({media['bytes']} bytes).")


@click.command("restore")
@click.argument("src", type=click.Path(file_okay=False, exists=True, path_type=Path))
def restore_command(src):
    """Restore SRC into the configured empty database and empty media storage, then check every photo's hash."""
    db.engine.dispose()  # nothing of this process holds the target open while it is restored
    try:
        report = restore(src, current_app.config["DATABASE_URL"], media_storage(), db.metadata.sorted_tables)
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    for problem in report.problems:
        click.echo(f"ERROR {problem}", err=True)
    click.echo(f"Restaurados {report.objects} archivos; {report.photos} fotos verificadas; "
               f"{len(report.problems)} problemas.")
    if not report.ok:
        raise SystemExit(1)
