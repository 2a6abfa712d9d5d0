"""data_stamps: a random stamp per kind of data (the registry, access), redrawn with every write of it

Revision ID: stamp22
Revises: rate22
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'stamp22'
down_revision = 'rate22'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'data_stamps',
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('stamp', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_data_stamps')),
    )


def downgrade():
    op.drop_table('data_stamps')
