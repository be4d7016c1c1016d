"""Validate a results JSON from elsewhere (a TPU VM, a colleague) before anything is stored.

A malformed, truncated, oversized or foreign file gets one clear message and nothing is kept.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from engine.results import RESULT_FIELDS, RUN_FIELDS, SCHEMA_VERSION, STATUSES, RunResult

MAX_FILE_BYTES = 64 * 2**20
MAX_RESULTS = 1_000
MAX_SAMPLES = 1_000_000


class ImportRejected(ValueError):
    """`str()` is the one-line reason the file was not imported."""


def _number_or_none(value: Any) -> bool:
    return value is None or (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    )


def _check_result(index: int, entry: Any) -> None:
    where = f"results[{index}]"
    if not isinstance(entry, dict):
        raise ImportRejected(f"{where} must be an object")
    missing = [name for name in RESULT_FIELDS if name not in entry]
    if missing:
        raise ImportRejected(f"{where} lacks required fields: {', '.join(missing)}")
    if entry["status"] not in STATUSES:
        raise ImportRejected(f"{where}.status must be one of {', '.join(STATUSES)}")
    for name in ("strategy", "variant", "mode"):
        if not isinstance(entry[name], str):
            raise ImportRejected(f"{where}.{name} must be text")
    samples = entry["samples_s"]
    if not isinstance(samples, list) or len(samples) > MAX_SAMPLES:
        raise ImportRejected(f"{where}.samples_s must be a list of at most {MAX_SAMPLES:,} numbers")
    if not all(_number_or_none(s) and s is not None and s >= 0 for s in samples):
        raise ImportRejected(f"{where}.samples_s must hold non-negative numbers")
    for name in ("median_s", "first_call_s", "flops", "bytes", "max_rel_error"):
        if not _number_or_none(entry[name]):
            raise ImportRejected(f"{where}.{name} must be a number or null")
    if not isinstance(entry["correct"], bool):
        raise ImportRejected(f"{where}.correct must be true or false")
    if not isinstance(entry["replicas"], list):
        raise ImportRejected(f"{where}.replicas must be a list")


def parse_results(text: str) -> RunResult:
    """Validate results JSON text and return the run; raises ImportRejected."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportRejected(
            f"not valid JSON (truncated?): {error.msg} at line {error.lineno}"
        ) from None
    if not isinstance(data, dict):
        raise ImportRejected("not a results file: the top level must be an object")
    if "schema_version" not in data:
        raise ImportRejected("not a results file of this tool: no schema_version")
    if data["schema_version"] != SCHEMA_VERSION:
        raise ImportRejected(
            f"schema_version {data['schema_version']!r} is not supported (this tool reads "
            f"{SCHEMA_VERSION})"
        )
    missing = [name for name in RUN_FIELDS if name not in data]
    if missing:
        raise ImportRejected(f"lacks required fields: {', '.join(missing)}")
    if not isinstance(data["run_id"], str) or not 1 <= len(data["run_id"]) <= 64:
        raise ImportRejected("run_id must be text of 1 to 64 characters")
    for name in ("environment", "config", "peak"):
        if not isinstance(data[name], dict):
            raise ImportRejected(f"{name} must be an object")
    results = data["results"]
    if not isinstance(results, list) or len(results) > MAX_RESULTS:
        raise ImportRejected(f"results must be a list of at most {MAX_RESULTS} entries")
    for index, entry in enumerate(results):
        _check_result(index, entry)
    try:
        return RunResult.from_dict(data)
    except (KeyError, TypeError, ValueError) as error:
        raise ImportRejected(f"inconsistent results file: {error}") from None


def read_results_file(path: str | Path) -> RunResult:
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as error:
        raise ImportRejected(f"cannot read {file}: {error.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise ImportRejected(
            f"file is {size / 2**20:.1f} MiB; results files are at most "
            f"{MAX_FILE_BYTES // 2**20} MiB"
        )
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ImportRejected(f"cannot read {file}: {error}") from None
    return parse_results(text)
