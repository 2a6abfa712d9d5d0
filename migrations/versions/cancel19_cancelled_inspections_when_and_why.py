"""inspections: cancelled_at and cancellation_reason, when and why a scheduled inspection was called off

The inspections open19 cancelled as repeated get both from the audit event it wrote for each: the moment
of the upgrade, and a reason naming the inspection kept.

Revision ID: cancel19
Revises: open19
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'cancel19'
down_revision = 'open19'
branch_labels = None
depends_on = None

inspections = sa.table('inspections', sa.column('id', sa.Integer), sa.column('status', sa.String),
                       sa.column('cancelled_at', sa.DateTime(timezone=True)),
                       sa.column('cancellation_reason', sa.Text))
audit_events = sa.table('audit_events', sa.column('at', sa.DateTime(timezone=True)), sa.column('action', sa.String),
                        sa.column('inspection_id', sa.Integer), sa.column('details', sa.JSON))


def upgrade():
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('cancelled_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('cancellation_reason', sa.Text(), nullable=True))
    connection = op.get_bind()
    cancelled = (sa.select(audit_events.c.inspection_id, audit_events.c.at, audit_events.c.details)
                 .join(inspections, inspections.c.id == audit_events.c.inspection_id)
                 .where(audit_events.c.action == 'inspection.cancelled', inspections.c.status == 'cancelled')
                 .order_by(audit_events.c.at))
    for row in connection.execute(cancelled).all():
        kept = (row.details or {}).get('kept_inspection_id')
        reason = (f"Repetida: el buque tenía otra inspección de este tipo sin cerrar; se conservó la n.º {kept}."
                  if kept else None)
        connection.execute(inspections.update().where(inspections.c.id == row.inspection_id)
                           .values(cancelled_at=row.at, cancellation_reason=reason))


def downgrade():
    # Cancelled inspections stay cancelled: their audit events still say when and why.
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_column('cancellation_reason')
        batch_op.drop_column('cancelled_at')
