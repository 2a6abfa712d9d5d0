"""Backup and restore: a database dump, every media object with a manifest of hashes, and a summary.

A backup folder holds
    backup.json           when, the schema revision, the database kind, row counts per table
    database.pgdump       `pg_dump --format=custom` (PostgreSQL), or database.sqlite (the online backup API)
    media-manifest.jsonl  one {"key", "sha256", "size"} per stored object
    media/<key>           the objects themselves
The database is dumped first and the objects copied after: an object is always stored before its row
commits (storage.py), so every row in the dump finds its object, and objects newer than the dump are
orphans the sweep removes. Only the MediaStorage interface is used, so the storage may be a local
folder or a bucket on either side.

Restore goes into an empty database (no tables) and an empty storage only, and then checks every photo:
its original, display and thumbnail copies and the signatures exist, and the original's SHA-256 is the row's.
"""
import hashlib
import json
import os
import shutil
import sqlite3

# bandit B404/B603: pg_dump and pg_restore, found on PATH, run with an argument list and no shell.
import subprocess  # nosec B404
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from inspection.media.storage import LocalStorage, MediaStorage, MissingKey

FORMAT = 1
MANIFEST = "media-manifest.jsonl"
SUMMARY = "backup.json"


class BackupError(Exception):
    """A backup or restore that cannot be done as asked (with the reason for the operator)."""


@dataclass
class RestoreReport:
    """What a restore put back and every problem found checking it; ok when there is none."""

    objects: int = 0
    photos: int = 0
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_postgresql(url: str) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


def _libpq(url: str) -> tuple[str, dict]:
    """A libpq URI without the password, and the environment that carries it (not visible in `ps`)."""
    parsed = make_url(url)
    env = {**os.environ}
    if parsed.password:
        env["PGPASSWORD"] = parsed.password
    uri = parsed.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    return uri, env


def _run(args: list[str], env: dict) -> None:
    """Run a PostgreSQL client tool; its stderr becomes the BackupError."""
    result = subprocess.run(args, env=env, capture_output=True, text=True)  # nosec B603
    if result.returncode != 0:
        raise BackupError(f"{Path(args[0]).name} falló: {result.stderr.strip()}")


def _count(connection, tables) -> dict[str, int]:
    return {table.name: connection.scalar(sa.select(sa.func.count()).select_from(table)) for table in tables}


def table_counts(url: str, tables) -> dict[str, int]:
    """Rows per table, for the summary and the restore's comparison."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return _count(connection, tables)
    finally:
        engine.dispose()


def database_revision(url: str) -> str | None:
    """The Alembic revision the database is at (None for one made without migrations)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table("alembic_version"):
                return None
            return connection.scalar(sa.text("SELECT version_num FROM alembic_version"))
    finally:
        engine.dispose()


def dump_database(url: str, dest: Path, tables) -> tuple[str, dict[str, int]]:
    """Dump the database into dest; (the dump's file name, rows per table in exactly what was dumped).

    PostgreSQL: the rows are counted in a REPEATABLE READ transaction whose snapshot pg_dump is
    handed (`--snapshot`), so the counts are the dump's even while the servers keep writing.
    SQLite: the online backup API copies a consistent file, and the copy is counted.
    """
    if is_postgresql(url):
        uri, env = _libpq(url)
        engine = sa.create_engine(url, isolation_level="REPEATABLE READ")
        try:
            with engine.connect() as connection, connection.begin():
                snapshot = connection.scalar(sa.text("SELECT pg_export_snapshot()"))
                counts = _count(connection, tables)
                _run([shutil.which("pg_dump") or "pg_dump", "--format=custom", f"--snapshot={snapshot}",
                      f"--file={dest / 'database.pgdump'}", f"--dbname={uri}"], env)
        finally:
            engine.dispose()
        return "database.pgdump", counts
    source = sqlite3.connect(make_url(url).database)
    target = sqlite3.connect(dest / "database.sqlite")
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()
    return "database.sqlite", table_counts(f"sqlite:///{dest / 'database.sqlite'}", tables)


def copy_media(storage: MediaStorage, dest: Path) -> tuple[int, int]:
    """Every stored object into dest/media, each listed with its SHA-256 and size; (objects, bytes)."""
    copy = LocalStorage(dest / "media")
    objects = total = 0
    with open(dest / MANIFEST, "w") as manifest:
        for key in storage.iter_keys():
            data = storage.get(key)
            copy.put(key, data)
            manifest.write(json.dumps({"key": key, "sha256": sha256_of(data), "size": len(data)}) + "\n")
            objects, total = objects + 1, total + len(data)
    return objects, total


def backup(dest: Path, url: str, storage: MediaStorage, tables, now: datetime, code_head: str | None) -> dict:
    """Write a backup of the database at `url` and of `storage` into the new folder `dest`; returns the summary."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise BackupError(f"la carpeta {dest} no está vacía")
    dest.mkdir(parents=True, exist_ok=True)
    dump, counts = dump_database(url, dest, tables)
    objects, size = copy_media(storage, dest)
    summary = {"format": FORMAT, "created_at": now.isoformat(), "database": "postgresql" if is_postgresql(url) else "sqlite",
               "dump": dump, "schema_revision": database_revision(url), "code_head": code_head, "counts": counts,
               "media": {"objects": objects, "bytes": size}}
    (dest / SUMMARY).write_text(json.dumps(summary, indent=2))
    return summary


def read_summary(src: Path) -> dict:
    """The backup's backup.json, refusing a folder that is not a backup of this format."""
    try:
        summary = json.loads((Path(src) / SUMMARY).read_text())
    except FileNotFoundError:
        raise BackupError(f"{src} no tiene {SUMMARY}: no es una copia de seguridad") from None
    if summary.get("format") != FORMAT:
        raise BackupError(f"formato de copia desconocido: {summary.get('format')!r}")
    return summary


def refuse_unless_empty(url: str, storage: MediaStorage) -> None:
    """Restore writes only into a database with no tables and a storage with no objects."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            tables = sa.inspect(connection).get_table_names()
    finally:
        engine.dispose()
    if tables:
        raise BackupError(f"la base de destino no está vacía ({len(tables)} tablas, p. ej. {sorted(tables)[0]}): "
                          "restaure solo en una base nueva y vacía")
    if next(iter(storage.iter_keys()), None) is not None:
        raise BackupError("el almacenamiento de fotos de destino no está vacío: restaure solo en una carpeta o bucket vacíos")


def restore_database(src: Path, summary: dict, url: str) -> None:
    """Load the dump into the empty database at `url` (pg_restore, or a SQLite backup-API copy)."""
    if (summary["database"] == "postgresql") != is_postgresql(url):
        raise BackupError(f"una copia de {summary['database']} no se restaura en {make_url(url).get_backend_name()}")
    if is_postgresql(url):
        uri, env = _libpq(url)
        _run([shutil.which("pg_restore") or "pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
              "--single-transaction", f"--dbname={uri}", str(Path(src) / summary["dump"])], env)
        return
    source = sqlite3.connect(Path(src) / summary["dump"])
    target = sqlite3.connect(make_url(url).database)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()


def restore_media(src: Path, storage: MediaStorage, report: RestoreReport) -> None:
    """Put every object of the manifest back, each checked against its recorded hash and size first."""
    copy = LocalStorage(Path(src) / "media")
    with open(Path(src) / MANIFEST) as manifest:
        for line in manifest:
            entry = json.loads(line)
            try:
                data = copy.get(entry["key"])
            except MissingKey:
                report.problems.append(f"{entry['key']}: falta en la copia")
                continue
            if sha256_of(data) != entry["sha256"] or len(data) != entry["size"]:
                report.problems.append(f"{entry['key']}: la copia no coincide con el manifiesto")
                continue
            storage.put(entry["key"], data)
            report.objects += 1


def verify_restore(url: str, storage: MediaStorage, summary: dict, tables, report: RestoreReport) -> None:
    """Every photo's copies and every signature exist, every original hashes to its row; row counts as backed up."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            photos = connection.execute(sa.text(
                "SELECT id, sha256, original_key, display_key, thumb_key FROM photos ORDER BY id")).all()
            signatures = connection.execute(sa.text(
                "SELECT id, inspector_signature_key, master_signature_key, reviewer_signature_key FROM inspections")).all()
    finally:
        engine.dispose()
    for photo_id, sha256, *keys in photos:
        missing = [key for key in keys if not storage.exists(key)]
        if missing:
            report.problems.append(f"foto {photo_id}: falta {', '.join(missing)}")
        elif sha256_of(storage.get(keys[0])) != sha256:
            report.problems.append(f"foto {photo_id}: el SHA-256 del original no es el registrado")
        report.photos += 1
    for inspection_id, *keys in signatures:
        for key in filter(None, keys):
            if not storage.exists(key):
                report.problems.append(f"inspección {inspection_id}: falta la firma {key}")
    restored = table_counts(url, tables)
    for table, count in summary["counts"].items():
        if restored.get(table) != count:
            report.problems.append(f"tabla {table}: {restored.get(table)} filas restauradas, {count} copiadas")


def restore(src: Path, url: str, storage: MediaStorage, tables) -> RestoreReport:
    """Restore a backup into an empty database and storage, then check every photo; the report lists any problem."""
    summary = read_summary(src)
    refuse_unless_empty(url, storage)
    report = RestoreReport()
    restore_database(src, summary, url)
    restore_media(src, storage, report)
    verify_restore(url, storage, summary, tables, report)
    return report
