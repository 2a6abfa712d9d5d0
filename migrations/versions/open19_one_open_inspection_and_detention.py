"""one open inspection per vessel and kind, one detention not yet lifted per vessel (partial unique indexes)

Rows that already break the rule are settled first, or the upgrade stops and says which:

* Several open inspections of one vessel and kind: the one in progress is kept (its answers are work done
  aboard), else the first scheduled; the other scheduled ones are cancelled, with an audit event naming the
  one kept, and an application scheduled on a cancelled one points at the kept one. Nothing was done aboard
  on a scheduled inspection, so nothing is lost. Two in progress at once each hold answers: the upgrade
  stops and names them, for an admin to interrupt the one that should not go on.
* Several detentions not lifted on one vessel: each is a decision of art. 208 with its own reason, and
  lifting one is a decision too; the upgrade stops and names them, for staff to lift the repeated ones.

Revision ID: open19
Revises: thr12
"""
from collections import defaultdict
from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'open19'
down_revision = 'thr12'
branch_labels = None
depends_on = None

OPEN = sa.text("status IN ('scheduled', 'in_progress')")
NOT_LIFTED = sa.text("lifted_at IS NULL")

inspections = sa.table('inspections', sa.column('id', sa.Integer), sa.column('vessel_id', sa.Integer),
                       sa.column('kind', sa.String), sa.column('status', sa.String))
applications = sa.table('applications', sa.column('inspection_id', sa.Integer))
detentions = sa.table('detentions', sa.column('id', sa.Integer), sa.column('vessel_id', sa.Integer),
                      sa.column('lifted_at', sa.DateTime(timezone=True)))
audit_events = sa.table('audit_events', sa.column('at', sa.DateTime(timezone=True)), sa.column('user_id', sa.Integer),
                        sa.column('action', sa.String), sa.column('entity', sa.String),
                        sa.column('entity_id', sa.String), sa.column('inspection_id', sa.Integer),
                        sa.column('client_id', sa.String), sa.column('details', sa.JSON))


def upgrade():
    connection = op.get_bind()
    _refuse_repeated_detentions(connection)
    _cancel_repeated_inspections(connection)
    op.create_index('uq_inspections_open', 'inspections', ['vessel_id', 'kind'], unique=True,
                    sqlite_where=OPEN, postgresql_where=OPEN)
    op.create_index('uq_detentions_open', 'detentions', ['vessel_id'], unique=True,
                    sqlite_where=NOT_LIFTED, postgresql_where=NOT_LIFTED)


def downgrade():
    # Inspections cancelled by the upgrade stay cancelled: their audit events say why.
    op.drop_index('uq_detentions_open', table_name='detentions')
    op.drop_index('uq_inspections_open', table_name='inspections')


def _cancel_repeated_inspections(connection) -> None:
    """Keep one open inspection per vessel and kind (the one in progress, else the first scheduled); cancel the rest."""
    groups = defaultdict(list)
    for row in connection.execute(sa.select(inspections.c.id, inspections.c.vessel_id, inspections.c.kind,
                                            inspections.c.status).where(OPEN).order_by(inspections.c.id)):
        groups[(row.vessel_id, row.kind)].append(row)
    repeated = {key: rows for key, rows in groups.items() if len(rows) > 1}
    started = {key: [row.id for row in rows if row.status == 'in_progress'] for key, rows in repeated.items()}
    clashes = {key: ids for key, ids in started.items() if len(ids) > 1}
    if clashes:
        _stop("Several inspections of one vessel and kind are in progress at once; interrupt (POST "
              "/api/v1/inspections/<id>/interrupt, with the reason) those that should not go on",
              {f"vessel {vessel_id} {kind}: inspections": ids for (vessel_id, kind), ids in clashes.items()})
    now = datetime.now(timezone.utc)
    for key, rows in repeated.items():
        kept = started[key][0] if started[key] else rows[0].id
        for row in rows:
            if row.id == kept:
                continue
            connection.execute(inspections.update().where(inspections.c.id == row.id).values(status='cancelled'))
            connection.execute(applications.update().where(applications.c.inspection_id == row.id)
                               .values(inspection_id=kept))
            connection.execute(audit_events.insert().values(
                at=now, user_id=None, action='inspection.cancelled', entity='inspection', entity_id=str(row.id),
                inspection_id=row.id, client_id=None,
                details={'reason': 'duplicate', 'kept_inspection_id': kept, 'migration': revision}))


def _refuse_repeated_detentions(connection) -> None:
    """Stop, naming them, when a vessel has several detentions not lifted: which to lift is staff's decision."""
    repeated = defaultdict(list)
    for row in connection.execute(sa.select(detentions.c.id, detentions.c.vessel_id).where(NOT_LIFTED)
                                  .order_by(detentions.c.id)):
        repeated[row.vessel_id].append(row.id)
    repeated = {f"vessel {vessel_id}: detentions": ids for vessel_id, ids in repeated.items() if len(ids) > 1}
    if repeated:
        _stop("Some vessels have several detentions not lifted; lift the repeated ones (POST "
              "/api/v1/detentions/<id>/lift, with the reason)", repeated)


def _stop(problem: str, rows: dict[str, list[int]]) -> None:
    """Stop the upgrade before it writes anything, saying what to settle and naming the rows (`flask db upgrade`
    prints it and exits 1)."""
    raise RuntimeError(f"{problem}, then upgrade again: "
                       + "; ".join(f"{label} {', '.join(map(str, ids))}" for label, ids in sorted(rows.items())))
