"""rate_counters: requests per client in the current window, for the sign-in and verification limits

Revision ID: rate12
Revises: perf11
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'rate12'
down_revision = 'perf11'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'rate_counters',
        sa.Column('bucket', sa.String(length=120), nullable=False),
        sa.Column('window_started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('hits', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('bucket', name=op.f('pk_rate_counters')),
    )
    op.create_index('ix_rate_counters_window_started_at', 'rate_counters', ['window_started_at'])


def downgrade():
    op.drop_index('ix_rate_counters_window_started_at', table_name='rate_counters')
    op.drop_table('rate_counters')
