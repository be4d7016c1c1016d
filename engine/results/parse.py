"""Results files and text from elsewhere (a TPU VM, a colleague), parsed once, at the door.

This is the only way results enter the tool: the CLI's `import`, the dashboard's upload, the
history loader and the report command all call `parse_results` or `read_results_file`, which
end in `RunResult.from_dict`. A malformed, truncated, oversized or foreign file gets one line
naming the bad field, and nothing is kept.
"""

from __future__ import annotations

from pathlib import Path

from engine.results.reader import MAX_FILE_BYTES, ResultsRejected, load_json
from engine.results.run_result import RunResult

# The name callers have always used for a refusal.
ImportRejected = ResultsRejected


def parse_results(text: str | bytes) -> RunResult:
    """Validate results JSON text and return the run; raises ResultsRejected."""
    return RunResult.from_json(text)


def read_text(path: str | Path) -> str:
    """A results or group file's text: a regular file of at most 64 MiB, UTF-8."""
    file = Path(path)
    try:
        if not file.exists():
            raise ResultsRejected(f"cannot read {file}: no such file")
        if not file.is_file():
            raise ResultsRejected(f"cannot read {file}: not a regular file")
        size = file.stat().st_size
    except OSError as error:
        raise ResultsRejected(f"cannot read {file}: {error.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise ResultsRejected(
            f"file is {size / 2**20:.1f} MiB; results files are at most "
            f"{MAX_FILE_BYTES // 2**20} MiB"
        )
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsRejected(f"cannot read {file}: {error}") from None


def read_results_file(path: str | Path) -> RunResult:
    return parse_results(read_text(path))


def group_payload(group_id: str, runs: list[RunResult]) -> dict[str, object]:
    """A group file: the repetitions of one measurement, each a full results object."""
    return {"group_id": group_id, "runs": [run.to_dict() for run in runs]}


def read_run_group(path: str | Path) -> list[RunResult]:
    """A results file (one run) or a group file (`{"group_id", "runs": [...]}`) as runs."""
    text = read_text(path)
    data = load_json(text)
    if isinstance(data, dict) and "runs" in data and "schema_version" not in data:
        runs = data["runs"]
        if not isinstance(runs, list) or not runs or len(runs) > 1000:
            raise ResultsRejected("runs: must be a list of 1 to 1,000 results objects")
        parsed = []
        for index, run in enumerate(runs):
            try:
                parsed.append(RunResult.from_dict(run))
            except ResultsRejected as error:
                text = str(error)
                joined = ": " if text.startswith(("not a results file", "top level")) else "."
                raise ResultsRejected(f"runs[{index}]{joined}{text}") from None
        return parsed
    if not isinstance(data, dict):
        raise ResultsRejected("not a results file: the top level must be an object")
    if "rows" in data and "noise_floor" in data and "schema_version" not in data:
        raise ResultsRejected(
            "a comparison (compare --json), not a results file: it holds the verdicts' rows, "
            "not the runs; pass the runs' own files (python -m dashboard.report A.json B.json "
            "draws their comparison)"
        )
    return [RunResult.from_dict(data)]
