"""users: the person's name (shown to the recruiters of organisations they applied to or were
invited by), beside the public display name

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 15:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('full_name', sa.String(length=120), nullable=True))


def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('full_name')
