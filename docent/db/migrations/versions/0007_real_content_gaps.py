"""content gaps: open or closed, merged by question vector, their asks by trace

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04 02:30:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('content_gaps') as batch:
        batch.add_column(
            sa.Column('state', sa.String(length=20), nullable=False, server_default='open')
        )
        batch.add_column(sa.Column('question_vector', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('closed_source', sa.String(length=1000), nullable=True))
        batch.add_column(sa.Column('closed_job', sa.String(length=36), nullable=True))
    op.create_index(op.f('ix_content_gaps_state'), 'content_gaps', ['state'], unique=False)
    op.create_table('content_gap_asks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('gap_id', sa.Integer(), nullable=False),
    sa.Column('trace_id', sa.String(length=36), nullable=False),
    sa.Column('asked_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['gap_id'], ['content_gaps.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('trace_id')
    )
    op.create_index(
        op.f('ix_content_gap_asks_gap_id'), 'content_gap_asks', ['gap_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_content_gap_asks_gap_id'), table_name='content_gap_asks')
    op.drop_table('content_gap_asks')
    op.drop_index(op.f('ix_content_gaps_state'), table_name='content_gaps')
    with op.batch_alter_table('content_gaps') as batch:
        batch.drop_column('closed_job')
        batch.drop_column('closed_source')
        batch.drop_column('closed_at')
        batch.drop_column('question_vector')
        batch.drop_column('state')
