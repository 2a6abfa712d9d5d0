"""place and time on every photo (issue 24): a photo's accuracy, the source of its position, and its flags

Revision ID: place24
Revises: upload23
Create Date: 2026-12-03 18:20:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'place24'
down_revision = 'upload23'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.add_column(sa.Column('accuracy_m', sa.Double(), nullable=True))
        batch_op.add_column(sa.Column('position_source', sa.String(length=8), server_default='none', nullable=False))
        batch_op.add_column(sa.Column('flags', sa.JSON(), nullable=True))
        batch_op.create_check_constraint(op.f('ck_photos_position_source'),
                                         "position_source IN ('device', 'exif', 'none')")
    # Until now the server kept the EXIF position first and the tablet sent none: a stored position is the EXIF's.
    op.execute("UPDATE photos SET position_source = 'exif' WHERE latitude IS NOT NULL AND longitude IS NOT NULL")


def downgrade():
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_photos_position_source'), type_='check')
        batch_op.drop_column('flags')
        batch_op.drop_column('position_source')
        batch_op.drop_column('accuracy_m')
