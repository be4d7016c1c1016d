"""The same question, the same answer: identical default runs, repeated, on both front doors.

1. The dashboard: a real server (its own history) and headless Chromium; the Run button clicked
   `--runs` times with the default settings, each run waited for ("The fastest way").
2. The CLI: `--runs` fresh processes of `run` with the defaults, into a history of their own.

For each, from the stored runs: each run's answer (its winner, or the tie and with whom), the
share of pairs of runs that give the same answer (each one's winner inside the other's
winner-or-tie set, as `benchmarks/ratio_floor.py` counts it), the most common answer's share,
and how many runs were called busy (other processes above the busy share, which widens the
verdict) beside the tool's own load (the dashboard's server and browser, never counted).

    python -m benchmarks.repeat_answers [--runs 20] [--skip-dashboard] [--skip-cli]
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.engine_cli import engine
from benchmarks.server import CHROMIUM_ARGS, streamlit_server
from engine.catalogue.catalog import interactive_strategies
from engine.machine.load import BUSY_FRACTION
from engine.storage.history import History


def answer_of(run) -> frozenset[str]:
    record = run.winner_dict()
    if record is None:
        return frozenset()
    return frozenset([record["variant"], *record["tied_with"]])


def report(name: str, history_path: Path) -> None:
    runs = History(history_path).all_runs()
    answers = [(run.winner_dict() or {}).get("variant") for run in runs]
    sets = [answer_of(run) for run in runs]
    pairs = list(itertools.combinations(range(len(runs)), 2))
    same = sum(answers[i] in sets[j] and answers[j] in sets[i] for i, j in pairs)
    common, count = Counter(sets).most_common(1)[0] if sets else (frozenset(), 0)
    busy = sum(
        1
        for run in runs
        if run.machine_load and run.machine_load.other_cpu_fraction > BUSY_FRACTION
    )
    own = [run.machine_load.tool_cpu_fraction or 0.0 for run in runs if run.machine_load]
    other = [run.machine_load.other_cpu_fraction for run in runs if run.machine_load]
    print(f"{name}: {len(runs)} runs")
    for run, answer in zip(runs, sets, strict=True):
        tied = "tie " if len(answer) > 1 else ""
        print(f"  {run.created_at} {tied}{', '.join(sorted(answer))}")
    print(
        f"  same answer in {same} of {len(pairs)} pairs ({same / max(1, len(pairs)):.1%}); "
        f"the most common, {', '.join(sorted(common))}, in {count} of {len(runs)}"
    )
    if own:
        print(
            f"  called busy: {busy} of {len(runs)}; the tool's own load {min(own):.0%}–"
            f"{max(own):.0%}, other processes' {min(other):.1%}–{max(other):.1%}"
        )
    ceiling_spread(runs)


def ceiling_spread(runs) -> None:
    """Memory's ceiling over the runs: what each run was placed against (the session's best,
    `analysis/session_ceiling.py`) and what its own probes read; the share within ±10% of the
    median of each, as the issue asks."""
    for name, values in (
        ("placed against", [run.peak.bandwidth_bytes_per_s for run in runs]),
        ("own probes", [run.peak.ceilings()[-1].own for run in runs]),
    ):
        values = [v / 1e9 for v in values if v]
        if not values:
            continue
        middle = sorted(values)[len(values) // 2]
        within = sum(abs(v / middle - 1) <= 0.10 for v in values)
        print(
            f"  memory's ceiling, {name}: {min(values):.1f}–{max(values):.1f} GB/s, median "
            f"{middle:.1f}; {within} of {len(values)} within ±10% of it"
        )


def dashboard_runs(runs: int, folder: Path, chromium: str) -> Path:
    from playwright.sync_api import sync_playwright

    history = folder / "dashboard.sqlite3"
    env = {"MATVEC_HISTORY": str(history), "MATVEC_QUEUE_DIR": str(folder / "queue")}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        with streamlit_server(**env) as url:
            page.goto(url)
            for index in range(runs):
                button = page.get_by_role("button", name="Run benchmark")
                button.wait_for(timeout=600_000)
                page.wait_for_function("b => !b.disabled", arg=button.element_handle())
                button.click()
                while len(History(history).all_runs()) < index + 1:  # this run, stored
                    page.wait_for_timeout(500)
                page.get_by_text("The fastest way").wait_for(timeout=600_000)
                print(f"  dashboard run {index + 1}/{runs}", flush=True)
        browser.close()
    return history


def cli_runs(runs: int, folder: Path) -> Path:
    history = folder / "cli.sqlite3"
    os.environ["MATVEC_HISTORY"] = str(history)
    for index in range(runs):
        strategies = ",".join(interactive_strategies())  # the dashboard's default set
        engine("run", f"--strategy={strategies}", "--progress=none", quiet=True)
        print(f"  cli run {index + 1}/{runs}", flush=True)
    return history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--skip-dashboard", action="store_true")
    parser.add_argument("--skip-cli", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="repeat_answers_"))
    print(f"histories in {folder}")
    if not args.skip_dashboard:
        report("dashboard", dashboard_runs(args.runs, folder, args.chromium))
    if not args.skip_cli:
        report("cli", cli_runs(args.runs, folder))


if __name__ == "__main__":
    main()
