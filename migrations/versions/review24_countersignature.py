"""the review and countersignature of art. 221: reviewers (the Prefecto and his delegates), an inspection's review
state and countersignature, a certificate's countersignature date and term

Revision ID: review24
Revises: marks24
Create Date: 2026-12-03 18:40:00

Inspections submitted and certificates issued before this revision were never reviewed: their review state and
dates stay empty (nothing says they were countersigned).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'review24'
down_revision = 'marks24'
branch_labels = None
depends_on = None

OLD_ROLES = ('admin', 'inspector', 'owner', 'police')
NEW_ROLES = ('admin', 'inspector', 'owner', 'police', 'reviewer')
REVIEW_STATUSES = ('pending', 'returned', 'countersigned')


def _role_check(batch_op, roles):
    batch_op.drop_constraint(op.f('ck_users_role'), type_='check')
    batch_op.create_check_constraint(op.f('ck_users_role'), sa.column('role').in_(roles))


def upgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        _role_check(batch_op, NEW_ROLES)
        batch_op.add_column(sa.Column('title', sa.String(length=200), nullable=True))

    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('review_status', sa.Enum(*REVIEW_STATUSES, name='review_status', native_enum=False,
                                                               create_constraint=True, length=32), nullable=True))
        batch_op.add_column(sa.Column('review_note', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('countersigned_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('countersigned_by_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('chosen_valid_until', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('reviewer_signature_key', sa.String(length=512), nullable=True))
        batch_op.add_column(sa.Column('reviewer_signature_sha256', sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f('ix_inspections_review_status'), ['review_status'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_inspections_countersigned_by_id_users'), 'users',
                                    ['countersigned_by_id'], ['id'])

    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.add_column(sa.Column('countersigned_on', sa.Date(), nullable=True))
        batch_op.add_column(sa.Column('countersign_due_on', sa.Date(), nullable=True))


def downgrade():
    # Fails while a reviewer exists: change or remove those users first.
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.drop_column('countersign_due_on')
        batch_op.drop_column('countersigned_on')

    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_inspections_countersigned_by_id_users'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_inspections_review_status'))
        batch_op.drop_constraint(op.f('ck_inspections_review_status'), type_='check')
        for column in ('reviewer_signature_sha256', 'reviewer_signature_key', 'chosen_valid_until', 'countersigned_by_id',
                       'countersigned_at',
                       'review_note', 'review_status'):
            batch_op.drop_column(column)

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('title')
        _role_check(batch_op, OLD_ROLES)
