"""content gaps: the trace whose ask wrote the latest ``missing`` text

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 10:50:00.000000

The text is shown only to who may read everything that ask retrieved (api/gaps.py). A gap
recorded from asks takes its latest counted ask's trace; one whose latest text came from a
handoff has none recorded, so that text stays withheld until the question is asked again.
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('content_gaps') as batch:
        batch.add_column(sa.Column('missing_trace_id', sa.String(length=36), nullable=True))
    op.execute(
        "UPDATE content_gaps SET missing_trace_id = ("
        " SELECT a.trace_id FROM content_gap_asks a WHERE a.gap_id = content_gaps.id"
        " ORDER BY a.asked_at DESC, a.id DESC LIMIT 1)"
        " WHERE last_reason IS NULL OR last_reason != 'handed_off'"
    )


def downgrade() -> None:
    with op.batch_alter_table('content_gaps') as batch:
        batch.drop_column('missing_trace_id')
