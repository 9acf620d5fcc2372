"""submissions: the language of the source, where a task takes several (Python or C++)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27 03:45:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sa.String(length=12), nullable=True))


def downgrade():
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.drop_column('language')
