"""Indexes for the dashboard's data version: certificates' revoked_at and suspended_at, vessels' updated_at

Revision ID: perf11
Revises: need11
"""
from alembic import op

# revision identifiers, used by Alembic.
revision = 'perf11'
down_revision = 'need11'
branch_labels = None
depends_on = None

INDEXES = [("ix_certificates_revoked_at", "certificates", "revoked_at"),
           ("ix_certificates_suspended_at", "certificates", "suspended_at"),
           ("ix_vessels_updated_at", "vessels", "updated_at")]


def upgrade():
    for name, table, column in INDEXES:
        op.create_index(name, table, [column])


def downgrade():
    for name, table, _ in INDEXES:
        op.drop_index(name, table_name=table)
