"""a handoff's follow-up: the linked answer, the asker's read receipt, notices, its gap

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-09 10:00:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # gap_id has no foreign key: the content gaps' table is being reworked on its own, and a
    # handoff's note of the gap it became must not stop that table's rows from changing.
    op.create_table('handoff_follow_ups',
    sa.Column('handoff_id', sa.Integer(), nullable=False),
    sa.Column('answer_source', sa.String(length=1000), nullable=True),
    sa.Column('reply_read_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('email_status', sa.String(length=100), nullable=True),
    sa.Column('webhook_status', sa.String(length=100), nullable=True),
    sa.Column('gap_id', sa.Integer(), nullable=True),
    sa.Column('gap_recorded_by', sa.String(length=200), nullable=True),
    sa.Column('gap_recorded_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['handoff_id'], ['handoffs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('handoff_id')
    )
    # Handoffs closed before this revision: their askers saw them under Closed, so they start
    # read (no badge for old news).
    op.execute(
        "INSERT INTO handoff_follow_ups (handoff_id, reply_read_at) "
        "SELECT id, closed_at FROM handoffs WHERE state = 'closed'"
    )


def downgrade() -> None:
    op.drop_table('handoff_follow_ups')
