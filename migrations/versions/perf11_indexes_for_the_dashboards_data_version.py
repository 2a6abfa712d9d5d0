"""Indexes: the dashboard's data version (revoked_at, suspended_at, updated_at), current certificates, needs_basis

Revision ID: perf11
Revises: need11
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'perf11'
down_revision = 'need11'
branch_labels = None
depends_on = None

INDEXES = [("ix_certificates_revoked_at", "certificates", "revoked_at"),
           ("ix_certificates_suspended_at", "certificates", "suspended_at"),
           ("ix_vessels_updated_at", "vessels", "updated_at"), ("ix_vessels_needs_basis", "vessels", "needs_basis")]
CURRENT = sa.text("superseded_by_id IS NULL")


def upgrade():
    for name, table, column in INDEXES:
        op.create_index(name, table, [column])
    op.create_index("ix_certificates_current", "certificates", ["kind", "vessel_id", "valid_until", "revoked_at"],
                    sqlite_where=CURRENT, postgresql_where=CURRENT)


def downgrade():
    op.drop_index("ix_certificates_current", table_name="certificates")
    for name, table, _ in INDEXES:
        op.drop_index(name, table_name=table)
