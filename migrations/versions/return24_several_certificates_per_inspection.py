"""several certificates per inspection over time, one in force: a returned inspection's certificate is revoked and
its corrected closing issues another, which names the one it replaces (art. 221)

Revision ID: return24
Revises: review24
Create Date: 2026-12-04 16:00:00

Until this revision an inspection issued at most one certificate, so every existing row already keeps the new rule
(at most one not revoked per inspection) and none replaces another.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'return24'
down_revision = 'review24'
branch_labels = None
depends_on = None

# The partial indexes' conditions: one certificate in force per inspection; the current ones of a vessel and kind.
NOT_REVOKED, NOT_SUPERSEDED = sa.text("revoked_at IS NULL"), sa.text("superseded_by_id IS NULL")


def _current_index(create: bool) -> None:
    """ix_certificates_current is partial: SQLite's table rebuild would not carry its condition, so it is rebuilt."""
    if create:
        op.create_index('ix_certificates_current', 'certificates', ['kind', 'vessel_id', 'valid_until', 'revoked_at'],
                        sqlite_where=NOT_SUPERSEDED, postgresql_where=NOT_SUPERSEDED)
    else:
        op.drop_index('ix_certificates_current', table_name='certificates')


def upgrade():
    _current_index(False)
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_certificates_inspection_id'), type_='unique')
        batch_op.add_column(sa.Column('replaces_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_certificates_replaces_id_certificates'), 'certificates',
                                    ['replaces_id'], ['id'])
        batch_op.create_index(batch_op.f('ix_certificates_inspection_id'), ['inspection_id'], unique=False)
    _current_index(True)
    op.create_index('uq_certificates_inspection_current', 'certificates', ['inspection_id'], unique=True,
                    sqlite_where=NOT_REVOKED, postgresql_where=NOT_REVOKED)


def downgrade():
    # Fails while an inspection holds several certificates (one returned, one reissued): the old rule allowed one.
    op.drop_index('uq_certificates_inspection_current', table_name='certificates')
    _current_index(False)
    with op.batch_alter_table('certificates', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_certificates_inspection_id'))
        batch_op.drop_constraint(batch_op.f('fk_certificates_replaces_id_certificates'), type_='foreignkey')
        batch_op.drop_column('replaces_id')
        batch_op.create_unique_constraint(batch_op.f('uq_certificates_inspection_id'), ['inspection_id'])
    _current_index(True)
