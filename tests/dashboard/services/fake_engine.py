"""A stand-in for `python -m engine run|serve --progress jsonl`, for the workers' plumbing tests.

It speaks the engine's real protocol (the typed events of `engine.results.events`, one JSON
line each), waits its turn in the real machine-wide `RunQueue`, takes `--repeats` samples of
`FAKE_SAMPLE_S` seconds per strategy, and writes a valid results file, without starting a
framework: what the dashboard's `Job` does with a worker's lines, exit code, cancel and death
is tested in a fraction of a second. Real engine workers stay beside it in `test_worker.py`
and `test_warm_worker.py`.
Usage (as `Job`'s or `WorkerPool`'s python): fake_python -m engine run [run flags] --json FILE,
or fake_python -m engine serve [flags], which takes `{"run": [flags]}` lines on stdin and ends
each with an `exit` event, as `serve` does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from engine.results.codec import result_to_dict
from engine.results.events import (
    Done,
    Event,
    Exit,
    Phase,
    Queued,
    Ready,
    ResultWritten,
    Sample,
    Started,
    VariantDone,
    VariantResult,
    VariantStarted,
)
from engine.storage.run_queue import RunQueue

SAMPLE_S = 0.05  # seconds per fake sample: a long run is repeats × this


def emit(event: Event) -> None:
    print(json.dumps(event.to_dict()), flush=True)


def main(argv: list[str]) -> int:
    arguments = argv[2:] if argv[:2] == ["-m", "engine"] else argv
    if arguments[:1] != ["serve"]:
        return run(arguments[1:])
    time.sleep(float(os.environ.get("FAKE_ENGINE_READY_S", "0")))  # a TensorFlow import
    emit(Ready())
    for line in sys.stdin:
        request = json.loads(line)
        emit(Exit(run(request["run"])))
    return 0


def run(arguments: list[str]) -> int:
    from tests.factories import make_run

    parser = argparse.ArgumentParser()
    parser.add_argument("--strategy", action="append", default=[])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", dest="json_path", required=True)
    known, _ = parser.parse_known_args(arguments)
    strategies = [s for given in known.strategy for s in given.split(",")] or ["numpy"]
    with RunQueue().turn(on_wait=lambda position: emit(Queued(position))):
        emit(Phase("inputs"))
        emit(Started(tuple(strategies)))
        times = {}
        for name in strategies:
            emit(VariantStarted(name))
            for index in range(known.repeats):
                time.sleep(SAMPLE_S)
                emit(Sample(name, index + 1, known.repeats, SAMPLE_S))
            times[name] = [SAMPLE_S] * known.repeats
            emit(VariantDone(name, "ok"))
        run = make_run(times)
        for result in run.results:
            emit(VariantResult(result_to_dict(result, None)))
        emit(Done())
        run.write_json(known.json_path)
        emit(ResultWritten(run.run_id, known.json_path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
