"""Secrets handling, pure and small: password hashes (scrypt), API tokens (random, stored as
SHA-256), signed session cookies (itsdangerous) and CSRF tokens.

API tokens carry 256 bits of randomness, so a fast hash is enough to store them; passwords
are people-chosen, so they get scrypt with a per-password salt.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

TOKEN_PREFIX = "dct"
SESSION_COOKIE = "docent_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64), verifiable by :func:`verify_password`."""
    if not password:
        raise ValueError("password must not be empty")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    return "$".join(
        ["scrypt", str(_SCRYPT_N), str(_SCRYPT_R), str(_SCRYPT_P), _b64(salt), _b64(digest)]
    )


def verify_password(password: str, stored: str | None) -> bool:
    if not stored or not password:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
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
    return hmac.compare_digest(actual, expected)


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
    """What the session cookie holds: who (``None`` before login) and the CSRF token."""

    csrf: str
    username: str | None = None


class SessionSigner:
    """Signs and checks the session cookie; a tampered or expired cookie reads as no session."""

    def __init__(self, secret_key: str, max_age_s: int) -> None:
        if not secret_key:
            raise ValueError("secret key must not be empty")
        self._serializer = URLSafeTimedSerializer(secret_key, salt="docent-session")
        self.max_age_s = max_age_s

    def dumps(self, data: SessionData) -> str:
        return str(self._serializer.dumps({"u": data.username, "c": data.csrf}))

    def loads(self, cookie: str | None) -> SessionData | None:
        if not cookie:
            return None
        try:
            raw = self._serializer.loads(cookie, max_age=self.max_age_s)
        except BadSignature:
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("c"), str):
            return None
        user = raw.get("u")
        return SessionData(csrf=raw["c"], username=user if isinstance(user, str) else None)


def csrf_matches(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), (given or "").encode())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()
