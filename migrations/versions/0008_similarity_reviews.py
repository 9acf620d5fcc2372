"""similarity reviews: a recruiter clears a flag that a submission copies another candidate's

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 15:20:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'similarity_reviews',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('submission_id', sa.Integer(), nullable=False),
        sa.Column('other_id', sa.Integer(), nullable=False),
        sa.Column('cleared_by_id', sa.Integer(), nullable=True),
        sa.Column('cleared_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['submission_id'], ['submissions.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['other_id'], ['submissions.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['cleared_by_id'], ['users.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('submission_id', 'other_id', name='uq_similarity_review'),
    )
    with op.batch_alter_table('similarity_reviews', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_similarity_reviews_submission_id'), ['submission_id'],
                              unique=False)


def downgrade():
    with op.batch_alter_table('similarity_reviews', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_similarity_reviews_submission_id'))
    op.drop_table('similarity_reviews')
