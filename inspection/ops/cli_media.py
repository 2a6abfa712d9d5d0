"""`flask --app app media sweep`: remove photo and signature files no record points to (after a crash), and abandoned uploads.

`flask --app app media migrate`: copy a local store into the configured bucket, every copy's hash checked, resumable.
"""
from datetime import timedelta

import click
from flask import current_app
from flask.cli import AppGroup

from inspection.core.clock import office_now
from inspection.core.extensions import db
from inspection.core.models import Inspection, Photo
from inspection.media.configured import media_storage
from inspection.media.storage import LocalStorage, copy_store, sweep_orphans
from inspection.tablet.uploads import sweep_uploads

media_cli = AppGroup("media", help="Archivos de fotos y firmas.")


@media_cli.command("sweep")
@click.option("--grace-minutes", default=60, show_default=True, help="No tocar archivos más nuevos que esto.")
def sweep(grace_minutes):
    """Delete unrecorded photo and signature files past the grace period, and uploads idle for PHOTO_UPLOAD_KEEP_DAYS."""
    now = office_now()
    cutoff = now - timedelta(minutes=grace_minutes)  # read before the keys: an upload in flight is newer
    known = set()
    for row in db.session.execute(db.select(Photo.original_key, Photo.display_key, Photo.thumb_key)):
        known.update(row)
    for row in db.session.execute(db.select(Inspection.inspector_signature_key, Inspection.master_signature_key,
                                             Inspection.reviewer_signature_key)):
        known.update(key for key in row if key)
    storage = media_storage()
    removed = sweep_orphans(storage, known, cutoff)
    stale = storage.remove_stale_temp(cutoff) if hasattr(storage, "remove_stale_temp") else []
    abandoned = sweep_uploads(now - timedelta(days=current_app.config["PHOTO_UPLOAD_KEEP_DAYS"]))
    db.session.commit()
    click.echo(f"{len(removed)} archivos huérfanos y {len(stale)} temporales eliminados; "
               f"{abandoned} subidas sin terminar descartadas.")


MISMATCH_PLACES = {"source": "el archivo local no coincide con su nombre", "target": "el bucket ya tiene otros bytes",
                   "copy": "la copia leída no coincide"}


@media_cli.command("migrate")
@click.option("--from", "source", type=click.Path(file_okay=False, exists=True),
              help="Directorio local a copiar (por omisión BALIZA_MEDIA_DIR).")
def migrate(source):
    """Copy a local media directory into the bucket of BALIZA_MEDIA_URL, verifying every hash; rerun to resume."""
    target = media_storage()
    if isinstance(target, LocalStorage):
        raise click.UsageError("BALIZA_MEDIA_URL no indica un bucket (s3://bucket/prefijo): nada que migrar.")
    report = copy_store(LocalStorage(source or current_app.config["MEDIA_DIR"]), target)
    for key, where in report.mismatched:
        click.echo(f"hash distinto ({MISMATCH_PLACES[where]}): {key}", err=True)
    click.echo(f"{report.copied} archivos copiados y verificados, {report.present} ya estaban en el bucket, "
               f"{len(report.mismatched)} con hash distinto.")
    if report.mismatched:
        raise SystemExit(1)
