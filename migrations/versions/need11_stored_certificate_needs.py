"""each vessel's stored needs (navegabilidad, seguridad) and the digest of the rules that decided them, backfilled

Revision ID: need11
Revises: dash11
Create Date: 2026-12-02 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'need11'
down_revision = 'dash11'
branch_labels = None
depends_on = None


class _Row(dict):
    """A vessels row read like a Vessel; a particular added by a later revision reads as unset (its default)."""

    __getattr__ = dict.get


def upgrade():
    with op.batch_alter_table('vessels') as batch:
        batch.add_column(sa.Column('needs_navegabilidad', sa.Boolean(), nullable=True))
        batch.add_column(sa.Column('needs_seguridad', sa.Boolean(), nullable=True))
        batch.add_column(sa.Column('needs_basis', sa.String(length=16), nullable=True))
    # Backfill with the app's own decision (flask db upgrade runs in the app); a row left NULL would only be
    # decided again on every read until `flask vessels refresh-needs`, never read wrong.
    from inspection.registry.needs import decided_needs
    from inspection.registry.vessels import particulars_of

    bind = op.get_bind()
    vessels = sa.Table('vessels', sa.MetaData(), autoload_with=bind)
    updates = [{"vessel_id": row["id"], **decided_needs(particulars_of(_Row(row)))}
               for row in bind.execute(sa.select(vessels)).mappings()]
    if updates:
        bind.execute(vessels.update().where(vessels.c.id == sa.bindparam("vessel_id"))
                     .values(needs_navegabilidad=sa.bindparam("needs_navegabilidad"),
                             needs_seguridad=sa.bindparam("needs_seguridad"),
                             needs_basis=sa.bindparam("needs_basis")), updates)


def downgrade():
    with op.batch_alter_table('vessels') as batch:
        batch.drop_column('needs_basis')
        batch.drop_column('needs_seguridad')
        batch.drop_column('needs_navegabilidad')
