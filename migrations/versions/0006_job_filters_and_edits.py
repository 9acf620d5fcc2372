"""jobs: workplace, yearly salary bounds for filtering, recruiters' corrections to the parse

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 01:20:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('workplace', sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column('salary_low', sa.Double(), nullable=True))
        batch_op.add_column(sa.Column('salary_high', sa.Double(), nullable=True))
        batch_op.add_column(sa.Column('salary_currency', sa.String(length=3), nullable=True))
        batch_op.add_column(sa.Column('overrides', sa.JSON(), nullable=True))
        batch_op.create_index(batch_op.f('ix_jobs_workplace'), ['workplace'], unique=False)


def downgrade():
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_jobs_workplace'))
        batch_op.drop_column('overrides')
        batch_op.drop_column('salary_currency')
        batch_op.drop_column('salary_high')
        batch_op.drop_column('salary_low')
        batch_op.drop_column('workplace')
