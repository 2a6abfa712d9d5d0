"""arqueos: each tonnage measurement and its day (arts. 194-199); inspections: the art. 233 services recorded at
closing (reports, valve reseals); fine_assessments: fines of an inspection (art. 232) and of an arqueo (art. 200)

Revision ID: money20
Revises: cancel19
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'money20'
down_revision = 'cancel19'
branch_labels = None
depends_on = None

HULLS = ('iron', 'steel', 'wood', 'mixed')


def upgrade():
    op.create_table(
        'arqueos',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('vessel_id', sa.Integer(), nullable=False),
        sa.Column('measured_on', sa.Date(), nullable=False),
        sa.Column('measured_by_id', sa.Integer(), nullable=False),
        sa.Column('hull_material', sa.Enum(*HULLS, name='hull_material', native_enum=False, create_constraint=True,
                                           length=32), nullable=False),
        sa.Column('length_m', sa.Numeric(precision=8, scale=2), nullable=False),
        sa.Column('beam_m', sa.Numeric(precision=8, scale=2), nullable=False),
        sa.Column('girth_m', sa.Numeric(precision=8, scale=2), nullable=False),
        sa.Column('gross_tonnage', sa.Numeric(precision=16, scale=6), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['measured_by_id'], ['users.id'], name=op.f('fk_arqueos_measured_by_id_users')),
        sa.ForeignKeyConstraint(['vessel_id'], ['vessels.id'], name=op.f('fk_arqueos_vessel_id_vessels')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_arqueos')),
    )
    with op.batch_alter_table('arqueos', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_arqueos_vessel_id'), ['vessel_id'], unique=False)

    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reports', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('valve_reseals', sa.Integer(), server_default='0', nullable=False))

    with op.batch_alter_table('fine_assessments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('inspection_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('arqueo_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_fine_assessments_inspection_id_inspections'), 'inspections',
                                    ['inspection_id'], ['id'])
        batch_op.create_foreign_key(batch_op.f('fk_fine_assessments_arqueo_id_arqueos'), 'arqueos',
                                    ['arqueo_id'], ['id'])
        batch_op.create_unique_constraint('uq_fine_assessments_inspection_code', ['inspection_id', 'code'])
        batch_op.create_unique_constraint('uq_fine_assessments_arqueo_code', ['arqueo_id', 'code'])


def downgrade():
    # The fines of inspections and arqueos go with their columns: delete them first, or keep this revision.
    with op.batch_alter_table('fine_assessments', schema=None) as batch_op:
        batch_op.drop_constraint('uq_fine_assessments_arqueo_code', type_='unique')
        batch_op.drop_constraint('uq_fine_assessments_inspection_code', type_='unique')
        batch_op.drop_constraint(batch_op.f('fk_fine_assessments_arqueo_id_arqueos'), type_='foreignkey')
        batch_op.drop_constraint(batch_op.f('fk_fine_assessments_inspection_id_inspections'), type_='foreignkey')
        batch_op.drop_column('arqueo_id')
        batch_op.drop_column('inspection_id')

    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_column('valve_reseals')
        batch_op.drop_column('reports')

    with op.batch_alter_table('arqueos', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_arqueos_vessel_id'))
    op.drop_table('arqueos')
