"""`RunResult`: a run's record with what users do with it, the public face of the results layer.

The record (`model.RunRecord`) is data; the verdict, the JSON and the frames are computed from
it by their own modules. This class gathers them so a notebook or a script reads one object:
`result.winner()`, `result.write_json(path)`, `RunResult.from_json(text)`, `result.summary_frame()`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.measure.uncertainty import NoiseFloor, Winner
from engine.results import codec, decode, frames, verdict
from engine.results.files import write_text_atomically
from engine.results.model import RunRecord


class RunResult(RunRecord):
    """A measured run (the fields are `RunRecord`'s) with its verdict, JSON and frames."""

    @property
    def effective_floor(self) -> NoiseFloor:
        """The floor ties are judged with: the machine's, widened when it was busy."""
        return verdict.run_floor(self)

    def winner(self) -> Winner | None:
        """The fastest correct variant and those not distinguishable from it (ties)."""
        return verdict.run_winner(self)

    def winner_dict(self) -> dict[str, Any] | None:
        return verdict.run_winner_record(self)

    def reduced_precision(self) -> dict[str, Any] | None:
        """The fastest reduced-precision point beside the winner, with both errors (None when
        none ran): a trade the user chooses, never the answer."""
        return verdict.run_reduced_precision(self)

    def to_dict(self) -> dict[str, Any]:
        return codec.run_to_dict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def write_json(self, path: str | Path) -> None:
        """Write atomically: a reader never sees a half-written file."""
        write_text_atomically(path, self.to_json())

    @classmethod
    def from_dict(cls, data: Any) -> RunResult:
        """The validating parser: raises ResultsRejected naming the path of the bad field."""
        return decode.run_from_dict(cls, data)

    @classmethod
    def from_json(cls, text: str | bytes) -> RunResult:
        """Decode and validate results JSON text; raises ResultsRejected."""
        return decode.run_from_json(cls, text)

    def summary_frame(self) -> Any:
        """One row per strategy variant, with every contract field but the raw samples."""
        return frames.summary_frame(self)

    def samples_frame(self) -> Any:
        """Tidy: one row per timing sample (seconds per call), labelled with the run's config."""
        return frames.samples_frame(self)


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by SIGINT while its variants were sampled: `result` holds what was
    measured (finished variants whole, the others with the samples they had), for the caller
    to save before it exits as interrupted."""

    def __init__(self, result: RunResult) -> None:
        super().__init__("interrupted")
        self.result = result
