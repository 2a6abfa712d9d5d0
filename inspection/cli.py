"""Command-line tools: `flask --app app users add`, `flask --app app checklists check`, `flask --app app demo`."""
import sys

import click
from flask import Flask
from flask.cli import AppGroup

from .exceptions import DomainError
from .extensions import db
from .i18n import localize

users_cli = AppGroup("users", help="Cuentas de usuario.")


@users_cli.command("add")
@click.argument("username")
@click.option("--role", required=True, type=click.Choice(["admin", "inspector", "owner", "police"]))
@click.option("--owner-id", type=int, default=None, help="Armador vinculado (rol owner).")
@click.option("--full-name", default="")
def add_user(username, role, owner_id, full_name):
    """Add a user; the password is prompted, or read from standard input when it is not a terminal."""
    from .users import create_user

    if sys.stdin.isatty():
        password = click.prompt("Contraseña", hide_input=True, confirmation_prompt=True)
    else:
        password = sys.stdin.readline().rstrip("\n")
    try:
        user = create_user(username, password, role, owner_id=owner_id, full_name=full_name)
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        detail = localize(error.detail or error.title, "es")
        raise click.ClickException(f"{detail} {localize(error.errors, 'es') if error.errors else ''}".strip())
    click.echo(f"Usuario {user.username} creado con rol {user.role} (id {user.id}).")


@click.command("demo")
def demo_command():
    """Seed the demo data into an empty database (refuses when data exists)."""
    from .demo import seed_demo

    if not seed_demo():
        raise click.ClickException("La base de datos ya tiene datos; no se siembra la demostración.")
    db.session.commit()
    click.echo("Datos de demostración creados.")


checklists_cli = AppGroup("checklists", help="Listas de verificación de la ley.")


@checklists_cli.command("check")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False), default=None,
              help="Carpeta de datos a validar (por defecto, la instalada).")
def check_checklists(directory):
    """Validate the data; print each checklist's articles, then every article of the texts and its status.

    Exits non-zero while an article is neither covered, excluded nor pending, so CI keeps the coverage complete.
    """
    import checklists

    try:
        catalog = checklists.load_catalog(directory)
    except checklists.ChecklistError as error:  # the message names the file and the item
        raise click.ClickException(f"Datos de listas de verificación no válidos: {error}")
    click.echo(checklists.format_coverage(checklists.coverage_report(catalog)))
    texts = checklists.article_coverage(catalog)
    click.echo(checklists.format_article_coverage(texts))
    uncovered = checklists.uncovered_articles(texts)
    if uncovered:
        raise click.ClickException(f"Artículos sin cubrir ni excluir ({len(uncovered)}): {'; '.join(uncovered)}")
    items = sum(len(catalog.get(kind).items) for kind in catalog.kinds)
    click.echo(f"Datos válidos: {len(catalog.kinds)} listas, {items} ítems.")


def register_commands(app: Flask) -> None:
    """Attach every command group to the app's CLI."""
    app.cli.add_command(users_cli)
    app.cli.add_command(demo_command)
    app.cli.add_command(checklists_cli)
