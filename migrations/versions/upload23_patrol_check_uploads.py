"""resumable uploads of a patrol check's photos (issue 23): an upload belongs to an inspection or a patrol check

Revision ID: upload23
Revises: patrol23
Create Date: 2026-12-03 18:05:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'upload23'
down_revision = 'patrol23'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('photo_uploads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('patrol_check_id', sa.Integer(), nullable=True))
        batch_op.alter_column('inspection_id', existing_type=sa.INTEGER(), nullable=True)
        batch_op.create_index(batch_op.f('ix_photo_uploads_patrol_check_id'), ['patrol_check_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_photo_uploads_patrol_check_id_patrol_checks'), 'patrol_checks',
                                    ['patrol_check_id'], ['id'])
        batch_op.create_check_constraint(op.f('ck_photo_uploads_one_record'),
                                         '(inspection_id IS NULL) <> (patrol_check_id IS NULL)')


def downgrade():
    op.execute("DELETE FROM photo_upload_parts WHERE upload_id IN "
               "(SELECT id FROM photo_uploads WHERE patrol_check_id IS NOT NULL)")
    op.execute("DELETE FROM photo_uploads WHERE patrol_check_id IS NOT NULL")
    with op.batch_alter_table('photo_uploads', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_photo_uploads_one_record'), type_='check')
        batch_op.drop_constraint(batch_op.f('fk_photo_uploads_patrol_check_id_patrol_checks'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_photo_uploads_patrol_check_id'))
        batch_op.alter_column('inspection_id', existing_type=sa.INTEGER(), nullable=False)
        batch_op.drop_column('patrol_check_id')
