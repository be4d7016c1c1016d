"""The `import` command: what is valid is stored, what is not is refused in one line."""

import json

from engine.storage.history import History
from tests.cli import engine_process, run_cli


def test_import_command(tmp_path):
    from tests.factories import make_run

    good = tmp_path / "tpu.json"
    make_run(label="colab tpu", device_kind="TPU").write_json(good)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "run_id": ')
    history_path = tmp_path / "h.sqlite3"

    first = engine_process("import", str(good), "--history", str(history_path), timeout=60)
    assert first.returncode == 0 and "imported" in first.stdout
    second = run_cli("import", str(good), str(bad), "--history", str(history_path))
    assert second.returncode == 2
    assert "already stored" in second.stdout
    assert "not valid JSON (truncated?)" in second.stderr and "Traceback" not in second.stderr
    assert History(history_path).count() == 1


def test_compare_command_exit_codes_and_json(tmp_path):
    from tests.factories import make_run

    def write(name, level, second):
        """Three runs of 10 s, ending at `second` past 10:00, 10:01 and 10:02: the sides
        alternate in one window (sides apart in time carry the drift between windows, and are
        not `same`)."""
        path = tmp_path / f"{name}.json"
        runs = [make_run({"einsum": [level * f] * 10}) for f in (1.0, 1.01, 0.99)]
        for index, run in enumerate(runs):
            run.created_at = f"2026-12-01T10:0{index}:{second:02d}+00:00"
            run.timings = {"total_s": 10.0}
        from engine.results.parse import group_payload

        path.write_text(json.dumps(group_payload(name, runs)))
        return str(path)

    base, same = write("base", 0.001, 10), write("same", 0.001, 25)
    slow = write("slow", 0.0015, 40)

    def compare(*args):
        return run_cli("compare", *args, "--history", str(tmp_path / "h"))

    ok = compare(base, same, "--fail-if-slower", "10", "--json", str(tmp_path / "c.json"))
    assert ok.returncode == 0, ok.stderr
    rows = json.loads((tmp_path / "c.json").read_text())["rows"]
    assert {"ratio", "ratio_ci", "verdict"} <= set(rows[1]) and rows[1]["verdict"] == "same"
    assert rows[0]["detectable_ratio"] is None and rows[1]["detectable_ratio"] > 1.05
    assert "could detect (95% of the time): slowdowns of at least" in ok.stdout
    assert "time / baseline [95%]" in ok.stdout and "baseline baseline" not in ok.stdout
    tiny = compare(base, same, "--fail-if-slower", "6")  # 1.06x: beyond what 3 runs can see
    assert tiny.returncode == 0 and "1.06x needs about" in tiny.stdout, tiny.stdout
    from dashboard.report import comparison_report
    from engine.results.parse import read_run_group

    report = comparison_report([read_run_group(base)[0], read_run_group(same)[0]])
    assert "could detect (95% of the time): slowdowns of at least" in report  # one voice
    gate = engine_process(
        "compare", base, slow, "--fail-if-slower", "10", "--history", str(tmp_path / "h")
    )
    assert gate.returncode == 1 and "confirmed slower" in gate.stderr
    assert compare(base, slow).returncode == 0  # no gate, no failure
    for bad in ([base], [base, str(tmp_path / "nope.json")], [base, same, "--baseline", "5"]):
        done = compare(*bad)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_sweep_whose_every_point_is_refused_exits_2_before_tensorflow(tmp_path):
    done = engine_process(
        "sweep",
        "--matrices",
        "100000000",
        "--dim",
        "1000",
        "--history",
        str(tmp_path / "h.sqlite3"),
        timeout=60,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: every point of the sweep is refused; the first: single:")
    assert "memory: this run needs" in line


def test_history_listing_shows_control_characters_as_text(tmp_path):
    from tests.factories import make_run

    history = History(tmp_path / "h.sqlite3")
    history.add_run(make_run(label="evil \x1b[31mred\x1b[0m"))
    done = engine_process("history", "--history", str(tmp_path / "h.sqlite3"), timeout=60)
    assert done.returncode == 0 and "\x1b" not in done.stdout
    assert "\\x1b[31mred" in done.stdout


def test_compare_says_a_strategy_one_side_lacks_is_not_in_that_run(tmp_path):
    from tests.factories import make_run

    both, one = tmp_path / "both.json", tmp_path / "one.json"
    make_run({"einsum": [0.001] * 5, "numpy": [0.002] * 5}).write_json(both)
    make_run({"einsum": [0.001] * 5}).write_json(one)
    done = run_cli("compare", str(both), str(one), "--history", str(tmp_path / "h"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("numpy")]
    assert lines[-1].endswith("not in this run")  # the side without numpy says so in words
    assert "no timing" not in done.stdout


def test_the_sweeps_cli_lines_and_json_say_tie_where_the_run_does(tmp_path):
    """`sweep` printed "fastest: X" for points whose runs are ties."""
    import json as json_module

    from engine.cli.history import cells_for_json, point_line, write_sweep_json
    from engine.run_settings.sweep import SweepSpec
    from tests.dashboard.figures.test_sweep import tied_sweep

    clear, tie = tied_sweep()
    assert "fastest: python_loop" in point_line(clear)
    assert "tie: " in point_line(tie) and "fastest" not in point_line(tie)
    failed = tied_sweep()[0]
    for entry in failed.results:
        entry.status, entry.error = "unsupported", "TensorFlow is not installed here"
    assert point_line(failed).endswith(
        "no variant produced a correct result (2 unsupported); python_loop: TensorFlow is not "
        "installed here"
    )  # a point that measured nothing says why
    cells = {cell["matrices"]: cell for cell in cells_for_json([clear, tie])}
    assert cells[10]["verdict"] == "fastest: python_loop" and cells[10]["tied_with"] == []
    assert cells[1000]["verdict"].startswith("tie: ") and cells[1000]["tied_with"]
    out = tmp_path / "sweep.json"
    spec = SweepSpec.from_raw({"matrices": "10,1000", "dim": "10", "strategies": ["numpy"]})
    write_sweep_json(str(out), spec, [clear, tie])
    written = json_module.loads(out.read_text())  # strict JSON: no NaN for a missing margin
    assert [c["verdict"].split(":")[0] for c in written["cells"]] == ["fastest", "tie"]


def test_compare_writes_markdown_for_a_ci_summary_with_every_cell_escaped(tmp_path):
    from tests.factories import make_run

    paths = []
    for name, level, label in (("a", 0.001, "main | *base*"), ("b", 0.003, "pr <b>")):
        path = tmp_path / f"{name}.json"
        path.write_text(make_run({"einsum": [level] * 10}, label=label).to_json())
        paths.append(str(path))
    done = run_cli("compare", *paths, "--format", "markdown", "--history", str(tmp_path / "h"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("**Comparison**: noise floor: 0.350")
    header = "| strategy | run | median | 95% interval | time / baseline [95%] | verdict |"
    assert lines[2] == header and lines[3] == "| --- | --- | --- | --- | --- | --- |"
    rows = [line for line in lines[4:] if line.startswith("| einsum")]
    assert len(rows) == 2 and all(row.count(" | ") == 5 for row in rows)  # no cell broken
    assert "main \\| \\*base\\*" in rows[0] and "pr \\<b\\>" in rows[1]
    assert any(line.startswith("- could detect") for line in lines)
