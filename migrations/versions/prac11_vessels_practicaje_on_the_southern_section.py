"""vessels: practicaje, how the vessel takes pilots on the Sección Sur del Río Paraguay (Decreto 6383/1951 art. 1)

Revision ID: prac11
Revises: cycle11
Create Date: 2026-12-01 14:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'prac11'
down_revision = 'cycle11'
branch_labels = None
depends_on = None

PRACTICAJE = ('unset', 'none', 'to_angostura', 'beyond_angostura', 'fixed_itinerary')


def upgrade():
    # Existing vessels start "unset": the registry never recorded the route, and none is guessed; the
    # navegabilidad checklist asks for it (nav.pilots.route_recorded) instead of exempting or burdening them.
    with op.batch_alter_table('vessels', schema=None) as batch_op:
        batch_op.add_column(sa.Column('practicaje', sa.Enum(*PRACTICAJE, name='practicaje', native_enum=False,
                                                             create_constraint=True, length=32),
                                      server_default='unset', nullable=False))


def downgrade():
    with op.batch_alter_table('vessels', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_vessels_practicaje'), type_='check')
        batch_op.drop_column('practicaje')
