"""One current answer per item, photos per item, interrupted inspections

Revision ID: a7c3e1f09b42
Revises: 3d1423485b32
Create Date: 2026-12-01 08:59:17.112761

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a7c3e1f09b42'
down_revision = '3d1423485b32'
branch_labels = None
depends_on = None

OLD_STATUSES = ('scheduled', 'in_progress', 'submitted', 'cancelled')
NEW_STATUSES = ('scheduled', 'in_progress', 'submitted', 'interrupted', 'cancelled')

answers = sa.table('answers', sa.column('id', sa.Integer), sa.column('inspection_id', sa.Integer),
                   sa.column('item_id', sa.String), sa.column('recorded_at', sa.DateTime),
                   sa.column('current', sa.Boolean))
inspections = sa.table('inspections', sa.column('status', sa.String))


def _status_check(batch_op, statuses):
    batch_op.drop_constraint(op.f('ck_inspections_inspection_status'), type_='check')
    batch_op.create_check_constraint(op.f('ck_inspections_inspection_status'),
                                     sa.column('status').in_(statuses))


def upgrade():
    # Races before this index could leave several current answers for one item: keep the newest
    # by the tablet's clock (then the latest row), as record_answer would have.
    newer = answers.alias('newer')
    op.execute(answers.update().where(answers.c.current, sa.exists().where(
        newer.c.inspection_id == answers.c.inspection_id, newer.c.item_id == answers.c.item_id, newer.c.current,
        sa.or_(newer.c.recorded_at > answers.c.recorded_at,
               sa.and_(newer.c.recorded_at == answers.c.recorded_at, newer.c.id > answers.c.id)))
    ).values(current=False))
    with op.batch_alter_table('answers', schema=None) as batch_op:
        batch_op.create_index('uq_answers_current_item', ['inspection_id', 'item_id'], unique=True,
                              sqlite_where=sa.text('current'), postgresql_where=sa.text('current'))

    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('interrupted_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('interruption_reason', sa.Text(), nullable=True))
        _status_check(batch_op, NEW_STATUSES)

    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_photos_inspection_id'), type_='unique')
        batch_op.create_unique_constraint('uq_photos_inspection_item_sha256', ['inspection_id', 'item_id', 'sha256'])


def downgrade():
    # Fails where one picture serves several items of an inspection: remove those records first.
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.drop_constraint('uq_photos_inspection_item_sha256', type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_photos_inspection_id'), ['inspection_id', 'sha256'])

    op.execute(inspections.update().where(inspections.c.status == 'interrupted').values(status='cancelled'))
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        _status_check(batch_op, OLD_STATUSES)
        batch_op.drop_column('interruption_reason')
        batch_op.drop_column('interrupted_at')

    with op.batch_alter_table('answers', schema=None) as batch_op:
        batch_op.drop_index('uq_answers_current_item', sqlite_where=sa.text('current'),
                            postgresql_where=sa.text('current'))
