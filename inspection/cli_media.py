"""`flask --app app media sweep`: remove photo and signature files that no record points to (after a crash)."""
from datetime import timedelta

import click
from flask.cli import AppGroup

from .clock import office_now
from .extensions import db
from .media import media_storage
from .models import Inspection, Photo
from .storage import sweep_orphans

media_cli = AppGroup("media", help="Archivos de fotos y firmas.")


@media_cli.command("sweep")
@click.option("--grace-minutes", default=60, show_default=True, help="No tocar archivos más nuevos que esto.")
def sweep(grace_minutes):
    """Delete files written before the grace period that no photo or inspection row records (run from cron)."""
    cutoff = office_now() - timedelta(minutes=grace_minutes)  # read before the keys: an upload in flight is newer
    known = set()
    for row in db.session.execute(db.select(Photo.original_key, Photo.display_key, Photo.thumb_key)):
        known.update(row)
    for row in db.session.execute(db.select(Inspection.inspector_signature_key, Inspection.master_signature_key)):
        known.update(key for key in row if key)
    storage = media_storage()
    removed = sweep_orphans(storage, known, cutoff)
    stale = storage.remove_stale_temp(cutoff) if hasattr(storage, "remove_stale_temp") else []
    click.echo(f"{len(removed)} archivos huérfanos y {len(stale)} temporales eliminados.")
