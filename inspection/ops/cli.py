"""Command-line tools: `flask --app app users add`, `checklists check|freeze`, `reminders send`, `vessels refresh-needs`,
`demo`."""
import sys

import click
from flask import Flask
from flask.cli import AppGroup

from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.i18n.language import localize

users_cli = AppGroup("users", help="Cuentas de usuario.")


@users_cli.command("add")
@click.argument("username")
@click.option("--role", required=True, type=click.Choice(["admin", "inspector", "owner", "police"]))
@click.option("--owner-id", type=int, default=None, help="Armador vinculado (rol owner).")
@click.option("--full-name", default="")
@click.option("--email", default=None, help="Correo de los avisos (recordatorios).")
def add_user(username, role, owner_id, full_name, email):
    """Add a user; the password is prompted, or read from standard input when it is not a terminal."""
    from inspection.accounts.users import create_user

    if sys.stdin.isatty():
        password = click.prompt("Contraseña", hide_input=True, confirmation_prompt=True)
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        user = create_user(username, password, role, owner_id=owner_id, full_name=full_name, email=email)
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        detail = localize(error.detail or error.title, "es")
        raise click.ClickException(f"{detail} {localize(error.errors, 'es') if error.errors else ''}".strip())
    click.echo(f"Usuario {user.username} creado con rol {user.role} (id {user.id}).")


@click.command("demo")
def demo_command():
    """Seed the demo data into an empty database (refuses when data exists)."""
    from inspection.ops.demo import seed_demo

    if not seed_demo():
        raise click.ClickException("La base de datos ya tiene datos; no se siembra la demostración.")
    db.session.commit()
    click.echo("Datos de demostración creados.")


checklists_cli = AppGroup("checklists", help="Listas de verificación de la ley.")


@checklists_cli.command("check")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False), default=None,
              help="Carpeta de datos a validar (por defecto, la instalada).")
def check_checklists(directory):
    """Validate the data; print each checklist's articles, then every clause of the texts and its status.

    A clause is a numbered or lettered division of an article (Código art. 41 b); an article without them is one.
    Exits non-zero while a clause is neither covered, excluded nor pending, so CI keeps the coverage complete.
    """
    import checklists

    try:
        catalog = checklists.load_catalog(directory)
    except checklists.ChecklistError as error:  # the message names the file and the item
        raise click.ClickException(f"Datos de listas de verificación no válidos: {error}")
    click.echo(checklists.format_coverage(checklists.coverage_report(catalog)))
    texts = checklists.clause_coverage(catalog)
    click.echo(checklists.format_clause_coverage(texts))
    uncovered = checklists.uncovered_clauses(texts)
    if uncovered:
        raise click.ClickException(f"Cláusulas sin cubrir ni excluir ({len(uncovered)}): {'; '.join(uncovered)}")
    for kind in catalog.kinds:
        if catalog.get(kind).version not in catalog.history[kind]:
            click.echo(f"Aviso: {kind} {catalog.get(kind).version} no está congelada en history/; "
                       f"ejecute `flask --app app checklists freeze` al publicarla.")
    items = sum(len(catalog.get(kind).items) for kind in catalog.kinds)
    click.echo(f"Datos válidos: {len(catalog.kinds)} listas, {items} ítems.")


@checklists_cli.command("freeze")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False), default=None,
              help="Carpeta de datos (por defecto, la instalada).")
@click.option("--replace", is_flag=True,
              help="Reescribir la instantánea de una versión que nunca se publicó (p. ej. tras unir ramas).")
def freeze_checklists(directory, replace):
    """Write history/<kind>/<version>.json, the frozen items of each checklist's current version.

    A frozen version that differs is left alone (a released version never changes: bump it) unless --replace.
    """
    import checklists
    from checklists import history
    from checklists.loader import DATA_DIR

    try:
        catalog = checklists.load_catalog(directory, frozen=False)
    except checklists.ChecklistError as error:
        raise click.ClickException(f"Datos de listas de verificación no válidos: {error}")
    refused = []
    for kind in catalog.kinds:
        checklist = catalog.get(kind)
        status = history.write_snapshot(directory or DATA_DIR, history.snapshot(checklist), replace)
        click.echo(f"{kind} {checklist.version}: {status}")
        if status == "differs":
            refused.append(f"{kind} {checklist.version}")
    if refused:
        raise click.ClickException(f"Ya congeladas con otros ítems: {', '.join(refused)}. Suba la versión; "
                                   "si nunca se publicó, repita con --replace.")


reminders_cli = AppGroup("reminders", help="Recordatorios diarios: multas del art. 225 y avisos.")


@reminders_cli.command("send")
@click.option("--today", "today_text", default=None, metavar="AAAA-MM-DD",
              help="Fecha de la oficina a usar (simulacros); por defecto, hoy en la oficina.")
def send_reminders(today_text):
    """The daily run: assess art. 225 on expired certificates with no application, record the notices due, email them.

    Run it once a day (cron or a systemd timer); running it again, or two at once, sends nothing twice.
    """
    from datetime import date

    from flask import current_app

    from inspection.core.clock import office_now, office_today, office_zone
    from inspection.notices.mail import mail_settings
    from inspection.notices.reminders import run_reminders

    try:
        today = date.fromisoformat(today_text) if today_text else office_today()
    except ValueError:
        raise click.BadParameter("use AAAA-MM-DD", param_hint="--today") from None
    settings = mail_settings(current_app.config)
    result = run_reminders(today, office_now(), office_zone(), settings, current_app.config["PUBLIC_URL"])
    mail = (f"{result.sent} correos enviados, {result.failed} fallidos (se reintentan en la próxima ejecución)"
            if settings else "sin SMTP configurado: avisos solo en la aplicación")
    click.echo(f"{today.isoformat()}: {result.fines} multas aplicadas, {result.notices} avisos nuevos; {mail}.")
    if result.failed:
        sys.exit(1)  # cron mails the output; a systemd timer marks the unit failed


vessels_cli = AppGroup("vessels", help="Registro de buques.")


@vessels_cli.command("refresh-needs")
def refresh_vessel_needs():
    """Decide again which certificates each vessel needs where the stored answer predates the current exemption
    rules or settings (run after changing checklists or CHECKLIST_SETTINGS; until then readers decide it live)."""
    from inspection.registry.needs import refresh_needs
    from inspection.registry.vessels import particulars_of

    changed = refresh_needs(particulars_of)
    db.session.commit()
    click.echo(f"{changed} buques actualizados.")


def register_commands(app: Flask) -> None:
    """Attach every command group to the app's CLI."""
    app.cli.add_command(users_cli)
    app.cli.add_command(reminders_cli)
    app.cli.add_command(demo_command)
    app.cli.add_command(checklists_cli)
    app.cli.add_command(vessels_cli)
