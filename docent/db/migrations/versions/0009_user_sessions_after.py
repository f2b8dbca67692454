"""users: sessions signed in before this time are over (sign-out, a new password)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 11:20:00.000000

The session cookie names its user and when it was issued; nothing of it is kept on the
server, so signing out or a new password could not end it. A cookie issued before its
user's ``sessions_after`` now reads as no session (api/deps.py).
"""
from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('users') as batch:
        batch.add_column(sa.Column('sessions_after', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('users') as batch:
        batch.drop_column('sessions_after')
