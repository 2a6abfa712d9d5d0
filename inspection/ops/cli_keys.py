"""`flask --app app keys new|list`: signing keys of the issuing offices."""
import click
from flask import current_app
from flask.cli import AppGroup

from inspection.certificates.keys import create_signing_key, published_keys
from inspection.core.clock import office_now
from inspection.core.extensions import db

keys_cli = AppGroup("keys", help="Claves de firma de certificados.")


@keys_cli.command("new")
@click.option("--office", default=None, help="Código de la oficina emisora (por defecto BALIZA_OFFICE_CODE).")
def new_key(office):
    """Make a new signing key for an office; its previous key is retired but stays published."""
    office = office or current_app.config["OFFICE_CODE"]
    record = create_signing_key(office, office_now())
    db.session.commit()
    click.echo(f"Clave nueva {record.kid} para {office}; la privada quedó en {current_app.config['KEYS_DIR']} (0600).")


@keys_cli.command("list")
def list_keys():
    """List published public keys, current and retired."""
    for key in published_keys():
        state = f"retirada {key.retired_at:%Y-%m-%d}" if key.retired_at else "vigente"
        click.echo(f"{key.kid}  {key.office_code}  creada {key.created_at:%Y-%m-%d}  {state}")
