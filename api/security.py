"""Secrets handling, pure and small: password hashes (argon2id), API tokens (random, stored as
SHA-256), signed session cookies (itsdangerous) and CSRF tokens.

API tokens carry 256 bits of randomness, so a fast hash is enough to store them; passwords
are people-chosen, so they get argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane)
and a per-password salt. Hashes written before argon2id (``scrypt$N$r$p$salt$hash``, at
N=2^14, below OWASP's 2^17) still verify, and :func:`password_needs_rehash` says to replace
them at the next sign-in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

TOKEN_PREFIX = "dct"
SESSION_COOKIE = "docent_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
# OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1 (its first listed choice).
_ARGON2 = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
_LEGACY_SCRYPT = "scrypt"


def hash_password(password: str) -> str:
    """An argon2id PHC string (``$argon2id$v=19$m=19456,t=2,p=1$salt$hash``)."""
    if not password:
        raise ValueError("password must not be empty")
    return _ARGON2.hash(password)


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored`` (argon2id, or a legacy scrypt hash)."""
    if not stored or not password:
        return False
    if stored.startswith(f"{_LEGACY_SCRYPT}$"):
        return _verify_scrypt(password, stored)
    try:
        return _ARGON2.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def password_needs_rehash(stored: str) -> bool:
    """True for a legacy scrypt hash and for argon2 hashes with other parameters."""
    if stored.startswith(f"{_LEGACY_SCRYPT}$"):
        return True
    try:
        return _ARGON2.check_needs_rehash(stored)
    except (InvalidHashError, ValueError):
        return True


def spend_a_password_check(password: str) -> None:
    """Verify ``password`` against a hash no password matches, in the time a real check
    takes: a sign-in for an unknown or disabled user answers no faster than a wrong password,
    so timing does not tell which names exist."""
    verify_password(password or "-", _dummy_hash())


@cache
def _dummy_hash() -> str:
    return _ARGON2.hash(secrets.token_urlsafe(32))


def _verify_scrypt(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.urlsafe_b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.urlsafe_b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return scheme == _LEGACY_SCRYPT and hmac.compare_digest(actual, expected)


@dataclass(frozen=True)
class NewToken:
    """A freshly minted API token: ``plain`` is shown once and never stored."""

    plain: str
    prefix: str
    token_hash: str


def new_api_token() -> NewToken:
    prefix = secrets.token_hex(4)
    plain = f"{TOKEN_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
    return NewToken(plain=plain, prefix=prefix, token_hash=hash_token(plain))


def hash_token(plain: str) -> str:
    return hashlib.sha256(plain.encode()).hexdigest()


def token_prefix(plain: str) -> str | None:
    parts = plain.split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    return parts[1]


def new_csrf_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class SessionData:
    """What the session cookie holds: who (``None`` before login), the CSRF token, and when
    the sign-in was (seconds since the epoch; ``None`` in a cookie from before it was kept)."""

    csrf: str
    username: str | None = None
    issued: float | None = None


class SessionSigner:
    """Signs and checks the session cookie; a tampered or expired cookie reads as no session."""

    def __init__(self, secret_key: str, max_age_s: int) -> None:
        if not secret_key:
            raise ValueError("secret key must not be empty")
        self._serializer = URLSafeTimedSerializer(secret_key, salt="docent-session")
        self.max_age_s = max_age_s

    def dumps(self, data: SessionData) -> str:
        return str(self._serializer.dumps({"u": data.username, "c": data.csrf, "t": data.issued}))

    def loads(self, cookie: str | None) -> SessionData | None:
        if not cookie:
            return None
        try:
            raw = self._serializer.loads(cookie, max_age=self.max_age_s)
        except BadSignature:
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("c"), str):
            return None
        user, issued = raw.get("u"), raw.get("t")
        return SessionData(
            csrf=raw["c"],
            username=user if isinstance(user, str) else None,
            issued=float(issued) if isinstance(issued, int | float) else None,
        )


def csrf_matches(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), (given or "").encode())
