"""applications for inspection and their fines (arts. 204, 222, 225)

Revision ID: cycle11
Revises: practice10
Create Date: 2026-12-01 14:14:40.552784

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'cycle11'
down_revision = 'practice10'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('applications',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('vessel_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.Enum('navegabilidad', 'seguridad', name='application_kind', native_enum=False, create_constraint=True, length=32), nullable=False),
    sa.Column('port', sa.String(length=120), nullable=False),
    sa.Column('preferred_on', sa.Date(), nullable=False),
    sa.Column('applied_on', sa.Date(), nullable=False),
    sa.Column('applied_by_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.Enum('pending', 'scheduled', 'done', 'cancelled', name='application_status', native_enum=False, create_constraint=True, length=32), nullable=False),
    sa.Column('inspection_id', sa.Integer(), nullable=True),
    sa.Column('certificate_id', sa.Integer(), nullable=True),
    sa.Column('apply_by', sa.Date(), nullable=True),
    sa.Column('late', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['applied_by_id'], ['users.id'], name=op.f('fk_applications_applied_by_id_users')),
    sa.ForeignKeyConstraint(['certificate_id'], ['certificates.id'], name=op.f('fk_applications_certificate_id_certificates')),
    sa.ForeignKeyConstraint(['inspection_id'], ['inspections.id'], name=op.f('fk_applications_inspection_id_inspections')),
    sa.ForeignKeyConstraint(['vessel_id'], ['vessels.id'], name=op.f('fk_applications_vessel_id_vessels')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_applications'))
    )
    with op.batch_alter_table('applications', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_applications_status'), ['status'], unique=False)
        batch_op.create_index(batch_op.f('ix_applications_vessel_id'), ['vessel_id'], unique=False)
        batch_op.create_index('uq_applications_pending', ['vessel_id', 'kind'], unique=True, sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"))

    op.create_table('fine_assessments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('application_id', sa.Integer(), nullable=True),
    sa.Column('vessel_id', sa.Integer(), nullable=False),
    sa.Column('certificate_id', sa.Integer(), nullable=True),
    sa.Column('code', sa.String(length=40), nullable=False),
    sa.Column('source', sa.String(length=120), nullable=False),
    sa.Column('article', sa.String(length=20), nullable=False),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('reason_es', sa.Text(), nullable=False),
    sa.Column('reason_en', sa.Text(), nullable=False),
    sa.Column('assessed_on', sa.Date(), nullable=False),
    sa.Column('waived_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('waived_by_id', sa.Integer(), nullable=True),
    sa.Column('waived_reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['application_id'], ['applications.id'], name=op.f('fk_fine_assessments_application_id_applications')),
    sa.ForeignKeyConstraint(['certificate_id'], ['certificates.id'], name=op.f('fk_fine_assessments_certificate_id_certificates')),
    sa.ForeignKeyConstraint(['vessel_id'], ['vessels.id'], name=op.f('fk_fine_assessments_vessel_id_vessels')),
    sa.ForeignKeyConstraint(['waived_by_id'], ['users.id'], name=op.f('fk_fine_assessments_waived_by_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fine_assessments')),
    sa.UniqueConstraint('certificate_id', 'code', name='uq_fine_assessments_certificate_code')
    )
    with op.batch_alter_table('fine_assessments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fine_assessments_application_id'), ['application_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_fine_assessments_vessel_id'), ['vessel_id'], unique=False)



def downgrade():
    with op.batch_alter_table('fine_assessments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_fine_assessments_vessel_id'))
        batch_op.drop_index(batch_op.f('ix_fine_assessments_application_id'))

    op.drop_table('fine_assessments')
    with op.batch_alter_table('applications', schema=None) as batch_op:
        batch_op.drop_index('uq_applications_pending', sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'"))
        batch_op.drop_index(batch_op.f('ix_applications_vessel_id'))
        batch_op.drop_index(batch_op.f('ix_applications_status'))

    op.drop_table('applications')
