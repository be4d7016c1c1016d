"""Whether a run was measured here: an HMAC over its results JSON, made with a key private to
this user on this machine.

A results file is data anyone can write: its hostname, its `correct` flags and its samples are
claims. A run this tool measured carries `attestation: {host, hmac_sha256}`, made with a key
that never leaves the user's data directory (created once, 0600, never through a link). A file
whose attestation verifies was measured by this user's tool here and not changed since; any
other (another machine's, an edited one, one written before attestations) is shown as
"reported by <machine>, not measured here" and never named the fastest on its own word.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import platformdirs

FIELD = "attestation"
KEY_BYTES = 32
KEY_NAME = "run-attestation.key"


def key_path() -> Path:
    return Path(platformdirs.user_data_dir("matvec-profiler")) / KEY_NAME


def _read_key(path: Path) -> bytes | None:
    """The key, if the file is a regular file of this user, private, of the right size."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        private = info.st_uid == os.getuid() and not info.st_mode & 0o077
        if not (stat.S_ISREG(info.st_mode) and private and info.st_size == KEY_BYTES):
            return None
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def _make_key(path: Path) -> None:
    """Write a new key whole (a private temporary file linked into place: a reader never sees
    half a key, and of two processes making one at once, one wins and both use it)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


_KEYS: dict[Path, bytes] = {}  # read once a process: every run written or read is signed


def signing_key(create: bool) -> bytes | None:
    """This user's key; made once when `create` (a run is being written). None when there is
    none, or it cannot be made or trusted: then nothing is attested and nothing verifies."""
    path = key_path()
    if path in _KEYS:
        return _KEYS[path]
    key = _read_key(path)
    if key is None and create:
        with contextlib.suppress(OSError):
            _make_key(path)
        key = _read_key(path)
    if key is not None:
        _KEYS[path] = key
    return key


def same_number(value: Any) -> Any:
    """Numbers as JSON readers see them: 1 and 1.0 are one value (a field written as an int
    reads back as a float), so they sign alike; containers are walked."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: same_number(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [same_number(v) for v in value]
    return value


def canonical(payload: dict[str, Any]) -> bytes:
    """The bytes signed: the results JSON without its attestation, keys sorted, compact,
    numbers as values (`same_number`). A file read back and written again signs alike."""
    body = same_number({k: v for k, v in payload.items() if k != FIELD})
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def attest(payload: dict[str, Any], host: str | None) -> dict[str, str] | None:
    """The `attestation` object for a run measured here (None without a usable key)."""
    key = signing_key(create=True)
    if key is None:
        return None
    digest = hmac.new(key, canonical(payload), hashlib.sha256).hexdigest()
    return {"host": host or "", "hmac_sha256": digest}


def is_attested(payload: dict[str, Any]) -> bool:
    """True when the payload's attestation was made here, over exactly this content."""
    found = payload.get(FIELD)
    if not isinstance(found, dict) or not isinstance(found.get("hmac_sha256"), str):
        return False
    key = signing_key(create=False)
    if key is None:
        return False
    expected = hmac.new(key, canonical(payload), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, found["hmac_sha256"])
