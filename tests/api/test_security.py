"""Password hashes, API tokens, signed sessions and CSRF tokens: the pure parts."""

from __future__ import annotations

import base64
import hashlib
import os

import pytest
from argon2 import PasswordHasher

from api.security import (
    SessionData,
    SessionSigner,
    csrf_matches,
    hash_password,
    hash_token,
    new_api_token,
    password_needs_rehash,
    token_prefix,
    verify_password,
)


def test_passwords_are_salted_argon2id_and_verify() -> None:
    first, second = hash_password("hunter2"), hash_password("hunter2")
    assert first != second and "hunter2" not in first
    assert first.startswith("$argon2id$v=19$m=19456,t=2,p=1$")  # OWASP's argon2id parameters
    assert verify_password("hunter2", first) and verify_password("hunter2", second)
    assert not verify_password("hunter3", first)
    assert not verify_password("hunter2", None) and not verify_password("", first)
    assert not verify_password("hunter2", "md5$abc") and not verify_password("x", "garbage")
    assert not password_needs_rehash(first)
    with pytest.raises(ValueError):
        hash_password("")


def legacy_scrypt_hash(password: str) -> str:
    """A hash as Docent stored them before argon2id: ``scrypt$N$r$p$salt$hash`` at N=2^14."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    b64 = base64.urlsafe_b64encode
    return f"scrypt${2**14}$8$1${b64(salt).decode()}${b64(digest).decode()}"


def test_old_scrypt_hashes_still_verify_and_ask_to_be_replaced() -> None:
    old = legacy_scrypt_hash("hunter2")
    assert verify_password("hunter2", old) and not verify_password("hunter3", old)
    assert password_needs_rehash(old)
    weaker = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash("hunter2")
    assert verify_password("hunter2", weaker) and password_needs_rehash(weaker)


def test_api_tokens_are_random_and_stored_only_as_a_hash() -> None:
    token = new_api_token()
    assert token.plain.startswith(f"dct_{token.prefix}_") and len(token.plain) > 40
    assert token.token_hash == hash_token(token.plain) and token.plain not in token.token_hash
    assert token_prefix(token.plain) == token.prefix
    assert token_prefix("not-a-token") is None
    assert new_api_token().plain != token.plain


def test_sessions_are_signed_and_expire() -> None:
    signer = SessionSigner("k" * 32, max_age_s=60)
    cookie = signer.dumps(SessionData(csrf="c1", username="ada"))
    assert signer.loads(cookie) == SessionData(csrf="c1", username="ada")
    # Tamper with a middle character of the signature: the last base64 character may carry
    # padding bits only, and changing it can decode to the same bytes.
    body, _, signature = cookie.rpartition(".")
    middle = len(signature) // 2
    flipped = "A" if signature[middle] != "A" else "B"
    tampered = f"{body}.{signature[:middle]}{flipped}{signature[middle + 1 :]}"
    assert signer.loads(tampered) is None
    assert SessionSigner("other-key" * 4, 60).loads(cookie) is None
    assert SessionSigner("k" * 32, max_age_s=-1).loads(cookie) is None
    assert signer.loads(None) is None and signer.loads("") is None
    with pytest.raises(ValueError):
        SessionSigner("", 60)


def test_csrf_comparison() -> None:
    assert csrf_matches("abc", "abc")
    assert not csrf_matches("abc", "abd") and not csrf_matches("abc", None)
    assert not csrf_matches("abc", "")
