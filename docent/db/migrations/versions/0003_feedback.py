"""askers' feedback

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-05 10:00:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('feedback',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('trace_id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=200), nullable=False),
    sa.Column('verdict', sa.String(length=20), nullable=False),
    sa.Column('chunk_id', sa.String(length=1100), nullable=False),
    sa.Column('comment', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['trace_id'], ['traces.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('trace_id', 'user_id', 'chunk_id', name='uq_feedback_verdict')
    )
    op.create_index(op.f('ix_feedback_created_at'), 'feedback', ['created_at'], unique=False)
    op.create_index(op.f('ix_feedback_trace_id'), 'feedback', ['trace_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_feedback_trace_id'), table_name='feedback')
    op.drop_index(op.f('ix_feedback_created_at'), table_name='feedback')
    op.drop_table('feedback')
