"""vessels: flammable_cargo_kg, the flammable or explosive cargo usually carried (Ley 928 arts. 133-140)

Revision ID: flam10
Revises: steel10
Create Date: 2026-12-01 13:03:45.279249

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'flam10'
down_revision = 'steel10'
branch_labels = None
depends_on = None


def upgrade():
    # Existing vessels start at 0 kg: the registry never recorded the figure, and no amount is guessed.
    with op.batch_alter_table('vessels', schema=None) as batch_op:
        batch_op.add_column(sa.Column('flammable_cargo_kg', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('vessels', schema=None) as batch_op:
        batch_op.drop_column('flammable_cargo_kg')
