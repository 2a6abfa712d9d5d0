"""patrol checks (issue 23): patrol_checks and their answers, photos of a check, the police officer's unit

Revision ID: patrol23
Revises: stamp22
Create Date: 2026-12-03 13:33:08.619196

A photo is evidence of an inspection or of a patrol check, never both nor neither.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'patrol23'
down_revision = 'stamp22'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('patrol_checks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('client_id', sa.String(length=36), nullable=False),
    sa.Column('officer_id', sa.Integer(), nullable=False),
    sa.Column('unit', sa.String(length=80), nullable=True),
    sa.Column('checked_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('latitude', sa.Double(), nullable=True),
    sa.Column('longitude', sa.Double(), nullable=True),
    sa.Column('place', sa.String(length=120), nullable=True),
    sa.Column('vessel_id', sa.Integer(), nullable=True),
    sa.Column('craft_marks', sa.String(length=60), nullable=True),
    sa.Column('craft_type', sa.Enum('steam', 'motor', 'sail', 'rowing', 'towed', name='craft_type', native_enum=False, create_constraint=True, length=32), nullable=True),
    sa.Column('craft_length_m', sa.Numeric(precision=8, scale=2), nullable=True),
    sa.Column('checklist', sa.Enum('menores', 'conducta', 'documentacion', name='patrol_checklist', native_enum=False, create_constraint=True, length=32), nullable=False),
    sa.Column('checklist_version', sa.String(length=20), nullable=False),
    sa.Column('items', sa.JSON(), nullable=False),
    sa.Column('particulars', sa.JSON(), nullable=False),
    sa.Column('verification_token', sa.Text(), nullable=True),
    sa.Column('verification_verdict', sa.String(length=20), nullable=True),
    sa.Column('list_age_s', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.Enum('sin_novedad', 'observaciones', 'infraccion', 'retencion', name='patrol_outcome', native_enum=False, create_constraint=True, length=32), nullable=True),
    sa.Column('infringements', sa.JSON(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('(vessel_id IS NULL) <> (craft_type IS NULL)', name=op.f('ck_patrol_checks_vessel_or_craft')),
    sa.ForeignKeyConstraint(['officer_id'], ['users.id'], name=op.f('fk_patrol_checks_officer_id_users')),
    sa.ForeignKeyConstraint(['vessel_id'], ['vessels.id'], name=op.f('fk_patrol_checks_vessel_id_vessels')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_patrol_checks')),
    sa.UniqueConstraint('officer_id', 'client_id', name='uq_patrol_checks_officer_client_id')
    )
    with op.batch_alter_table('patrol_checks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_patrol_checks_checked_at'), ['checked_at'], unique=False)
        batch_op.create_index('ix_patrol_checks_closed_at_outcome', ['closed_at', 'outcome'], unique=False)
        batch_op.create_index(batch_op.f('ix_patrol_checks_officer_id'), ['officer_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_patrol_checks_unit'), ['unit'], unique=False)
        batch_op.create_index(batch_op.f('ix_patrol_checks_vessel_id'), ['vessel_id'], unique=False)

    op.create_table('patrol_answers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('check_id', sa.Integer(), nullable=False),
    sa.Column('item_id', sa.String(length=120), nullable=False),
    sa.Column('client_id', sa.String(length=36), nullable=False),
    sa.Column('result', sa.Enum('pass', 'fail', 'not_applicable', name='result', native_enum=False, create_constraint=True, length=32), nullable=False),
    sa.Column('observed', sa.Numeric(precision=12, scale=2), nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['check_id'], ['patrol_checks.id'], name=op.f('fk_patrol_answers_check_id_patrol_checks')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_patrol_answers')),
    sa.UniqueConstraint('check_id', 'item_id', name='uq_patrol_answers_check_item')
    )
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.add_column(sa.Column('patrol_check_id', sa.Integer(), nullable=True))
        batch_op.alter_column('inspection_id',
               existing_type=sa.INTEGER(),
               nullable=True)
        batch_op.create_index(batch_op.f('ix_photos_patrol_check_id'), ['patrol_check_id'], unique=False)
        batch_op.create_unique_constraint('uq_photos_patrol_check_item_sha256', ['patrol_check_id', 'item_id', 'sha256'])
        batch_op.create_foreign_key(batch_op.f('fk_photos_patrol_check_id_patrol_checks'), 'patrol_checks', ['patrol_check_id'], ['id'])
        batch_op.create_check_constraint(op.f('ck_photos_one_record'), '(inspection_id IS NULL) <> (patrol_check_id IS NULL)')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('unit', sa.String(length=80), nullable=True))



def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('unit')

    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_photos_one_record'), type_='check')
        batch_op.drop_constraint(batch_op.f('fk_photos_patrol_check_id_patrol_checks'), type_='foreignkey')
        batch_op.drop_constraint('uq_photos_patrol_check_item_sha256', type_='unique')
        batch_op.drop_index(batch_op.f('ix_photos_patrol_check_id'))
        batch_op.alter_column('inspection_id',
               existing_type=sa.INTEGER(),
               nullable=False)
        batch_op.drop_column('patrol_check_id')

    op.drop_table('patrol_answers')
    with op.batch_alter_table('patrol_checks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_patrol_checks_vessel_id'))
        batch_op.drop_index(batch_op.f('ix_patrol_checks_unit'))
        batch_op.drop_index(batch_op.f('ix_patrol_checks_officer_id'))
        batch_op.drop_index('ix_patrol_checks_closed_at_outcome')
        batch_op.drop_index(batch_op.f('ix_patrol_checks_checked_at'))

    op.drop_table('patrol_checks')
