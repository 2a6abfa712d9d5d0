"""notices (reminders, sent once per recipient, kind, subject and date); users' email and calendar feed nonce

Revision ID: notice11
Revises: prac11
Create Date: 2026-12-01 15:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'notice11'
down_revision = 'prac11'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'notices',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=40), nullable=False),
        sa.Column('subject_id', sa.Integer(), nullable=False),
        sa.Column('due_on', sa.Date(), nullable=False),
        sa.Column('vessel_id', sa.Integer(), nullable=True),
        sa.Column('params', sa.JSON(), nullable=False),
        sa.Column('created_on', sa.Date(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('email_to', sa.String(length=200), nullable=True),
        sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_error', sa.String(length=300), nullable=True),
        sa.Column('read_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_notices_user_id_users')),
        sa.ForeignKeyConstraint(['vessel_id'], ['vessels.id'], name=op.f('fk_notices_vessel_id_vessels')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_notices')),
        sa.UniqueConstraint('user_id', 'kind', 'subject_id', 'due_on', name='uq_notices_key'),
    )
    op.create_index('ix_notices_user_read', 'notices', ['user_id', 'read_at'], unique=False)
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('email', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('calendar_nonce', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('calendar_renewed_at', sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('calendar_renewed_at')
        batch_op.drop_column('calendar_nonce')
        batch_op.drop_column('email')
    op.drop_index('ix_notices_user_read', table_name='notices')
    op.drop_table('notices')
