"""sign-in attempts per username move to rate_counters ("user:<name>"), purged with the other windows

Revision ID: thr12
Revises: rate12
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'thr12'
down_revision = 'rate12'
branch_labels = None
depends_on = None


def upgrade():
    # A window in progress keeps its count: a lockout is not lifted by the upgrade.
    op.execute("INSERT INTO rate_counters (bucket, window_started_at, hits) "
               "SELECT 'user:' || username, window_started_at, attempts FROM login_throttles")
    op.drop_table('login_throttles')


def downgrade():
    op.create_table(
        'login_throttles',
        sa.Column('username', sa.String(length=80), nullable=False),
        sa.Column('window_started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('username', name=op.f('pk_login_throttles')),
    )
    op.execute("INSERT INTO login_throttles (username, window_started_at, attempts) "
               "SELECT substr(bucket, 6), window_started_at, hits FROM rate_counters WHERE bucket LIKE 'user:%'")
    op.execute("DELETE FROM rate_counters WHERE bucket LIKE 'user:%'")
