"""saved roadmaps: a learner's plan and the steps ticked off

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 23:40:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('saved_roadmaps',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('target', sa.String(length=40), nullable=False),
    sa.Column('level', sa.String(length=20), nullable=False),
    sa.Column('plan', sa.JSON(), nullable=False),
    sa.Column('done', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('saved_roadmaps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_saved_roadmaps_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('saved_roadmaps', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_saved_roadmaps_user_id'))
    op.drop_table('saved_roadmaps')
