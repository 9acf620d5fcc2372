"""job skills keep their need (required, preferred, mentioned); a job may have no track

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 22:40:00

Stored parses from before keep working (their `required` booleans are copied into `need`);
`flask jobs reparse` brings them to the current parser.
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('job_skills', schema=None) as batch_op:
        batch_op.add_column(sa.Column('need', sa.String(length=12), nullable=False,
                                      server_default='required'))
    op.execute("UPDATE job_skills SET need = CASE WHEN required THEN 'required' ELSE 'preferred' END")
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.alter_column('primary_track', existing_type=sa.String(length=40), nullable=True)


def downgrade():
    op.execute("UPDATE jobs SET primary_track = 'software_optimization' WHERE primary_track IS NULL")
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.alter_column('primary_track', existing_type=sa.String(length=40), nullable=False)
    with op.batch_alter_table('job_skills', schema=None) as batch_op:
        batch_op.drop_column('need')
