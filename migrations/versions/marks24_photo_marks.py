"""marks on the defect (issue 24): a layer of circles, arrows and labels over a photo, every version kept

Revision ID: marks24
Revises: place24
Create Date: 2026-12-03 18:30:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'marks24'
down_revision = 'place24'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'photo_marks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('photo_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('client_id', sa.String(length=36), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('photo_sha256', sa.String(length=64), nullable=False),
        sa.Column('layer', sa.JSON(), nullable=False),
        sa.Column('current', sa.Boolean(), nullable=False),
        sa.Column('drawn_by_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['drawn_by_id'], ['users.id'], name=op.f('fk_photo_marks_drawn_by_id_users')),
        sa.ForeignKeyConstraint(['photo_id'], ['photos.id'], name=op.f('fk_photo_marks_photo_id_photos')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_photo_marks')),
        sa.UniqueConstraint('client_id', name=op.f('uq_photo_marks_client_id')),
        sa.UniqueConstraint('photo_id', 'version', name='uq_photo_marks_photo_version'),
    )
    op.create_index('uq_photo_marks_current', 'photo_marks', ['photo_id'], unique=True,
                    sqlite_where=sa.text('current'), postgresql_where=sa.text('current'))


def downgrade():
    op.drop_index('uq_photo_marks_current', table_name='photo_marks',
                  sqlite_where=sa.text('current'), postgresql_where=sa.text('current'))
    op.drop_table('photo_marks')
