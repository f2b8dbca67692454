"""a failed job file says whether a retry can succeed

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-08 10:00:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL for the rows already there: a file failed before the flag counts as retryable.
    op.add_column('job_files', sa.Column('retryable', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('job_files') as batch:
        batch.drop_column('retryable')
