"""deficiencies: practice, the failed item came from a foreign instrument adopted as practice (an observation)

Revision ID: practice10
Revises: flam10
Create Date: 2026-12-01 15:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'practice10'
down_revision = 'flam10'
branch_labels = None
depends_on = None


def upgrade():
    # Existing deficiencies keep false: they were recorded under the reading of their day, and their
    # `detainable` already says what they were (a past record is never re-read).
    with op.batch_alter_table('deficiencies', schema=None) as batch_op:
        batch_op.add_column(sa.Column('practice', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    with op.batch_alter_table('deficiencies', schema=None) as batch_op:
        batch_op.drop_column('practice')
