"""rate_counters UNLOGGED on PostgreSQL: a count commits without a WAL flush (lost counts only restart windows)

Revision ID: rate22
Revises: standing20
"""
from alembic import op

# revision identifiers, used by Alembic.
revision = 'rate22'
down_revision = 'standing20'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rate_counters SET UNLOGGED")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE rate_counters SET LOGGED")
