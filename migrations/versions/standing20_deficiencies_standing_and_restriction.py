"""deficiencies: standing and restriction, what the failed item rested on and what its article orders instead of a detention

`standing` is "law", or the authority's practice the item rested on ("foreign": a foreign instrument;
"extension": a steamer's duty read onto a motor vessel); `restriction` names the restriction of
checklists/restrictions.toml (art. 73: daylight navigation only), or is null. A deficiency recorded as
practice before this could only have rested on a foreign instrument, so it is marked "foreign"; the others
stay "law", as they were recorded (a past record is never re-read).

Revision ID: standing20
Revises: money20
"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'standing20'
down_revision = 'money20'
branch_labels = None
depends_on = None

deficiencies = sa.table('deficiencies', sa.column('practice', sa.Boolean), sa.column('standing', sa.String))


def upgrade():
    with op.batch_alter_table('deficiencies', schema=None) as batch_op:
        batch_op.add_column(sa.Column('standing', sa.String(length=20), server_default='law', nullable=False))
        batch_op.add_column(sa.Column('restriction', sa.String(length=40), nullable=True))
    op.get_bind().execute(deficiencies.update().where(deficiencies.c.practice.is_(True)).values(standing='foreign'))


def downgrade():
    with op.batch_alter_table('deficiencies', schema=None) as batch_op:
        batch_op.drop_column('restriction')
        batch_op.drop_column('standing')
