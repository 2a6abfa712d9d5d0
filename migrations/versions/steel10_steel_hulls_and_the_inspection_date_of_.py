"""Steel hulls (art. 195's iron factor); certificates keep the inspection's date their term runs from (art. 207)

Revision ID: steel10
Revises: upload09
Create Date: 2026-12-01 13:03:18.419664

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'steel10'
down_revision = 'upload09'
branch_labels = None
depends_on = None

OLD_HULLS = ('iron', 'wood', 'mixed')
NEW_HULLS = ('iron', 'steel', 'wood', 'mixed')

certificates = sa.table('certificates', sa.column('issued_on', sa.Date), sa.column('inspected_on', sa.Date))


def _hull_check(batch_op, hulls):
    batch_op.drop_constraint(op.f('ck_vessels_hull_material'), type_='check')
    batch_op.create_check_constraint(op.f('ck_vessels_hull_material'), sa.column('hull_material').in_(hulls))


def upgrade():
    with op.batch_alter_table('vessels', schema=None) as batch_op:
        _hull_check(batch_op, NEW_HULLS)

    # Certificates issued before this revision ran from their issue date: that is their inspected_on.
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.add_column(sa.Column('inspected_on', sa.Date(), nullable=True))
    op.execute(certificates.update().values(inspected_on=certificates.c.issued_on))
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.alter_column('inspected_on', existing_type=sa.Date(), nullable=False)


def downgrade():
    # Fails while a vessel is registered with a steel hull: change those records first.
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.drop_column('inspected_on')

    with op.batch_alter_table('vessels', schema=None) as batch_op:
        _hull_check(batch_op, OLD_HULLS)
