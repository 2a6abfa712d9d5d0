"""indexes for the dashboard at scale: inspections by status and date, current failed answers, certificates by kind and vessel

Revision ID: dash11
Revises: notice11
Create Date: 2026-12-01 15:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'dash11'
down_revision = 'notice11'
branch_labels = None
depends_on = None

FAILURES = {"sqlite_where": sa.text("current = 1 AND result = 'fail'"),  # as SQLAlchemy renders Answer.current
            "postgresql_where": sa.text("current AND result = 'fail'")}


def upgrade():
    op.create_index('ix_inspections_status_scheduled_on', 'inspections', ['status', 'scheduled_on', 'inspector_id'])
    op.create_index('ix_answers_current_failures', 'answers', ['inspection_id', 'item_id'],
                    **FAILURES)
    op.create_index('ix_certificates_kind_vessel_valid_until', 'certificates', ['kind', 'vessel_id', 'valid_until'])


def downgrade():
    op.drop_index('ix_certificates_kind_vessel_valid_until', table_name='certificates')
    op.drop_index('ix_answers_current_failures', table_name='answers')
    op.drop_index('ix_inspections_status_scheduled_on', table_name='inspections')
