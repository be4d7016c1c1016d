"""No command writes terminal control: labels, paths and messages from files are text."""

import io

from engine.cli.terminal import PrintableStream, printable
from tests.cli import run_cli
from tests.factories import make_run

EVIL = "evil \x1b[31mred\x1b[0m\rhidden\x07"


def test_control_characters_are_shown_as_visible_text_and_lines_stay_lines():
    assert printable(EVIL) == "evil \\x1b[31mred\\x1b[0m\\x0dhidden\\x07"
    assert printable("a\tb\nc") == "a\tb\\x0ac"  # one value is one line: no forged line
    assert printable(3) == 3
    stream = io.StringIO()
    PrintableStream(stream).write("x\x1b[2Jy\n")
    assert stream.getvalue() == "x\\x1b[2Jy\n"


def test_compare_prints_a_stored_label_and_variant_as_text(tmp_path):
    sides = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.json"
        make_run({"numpy": [0.003] * 4}, label=EVIL).write_json(path)
        sides.append(str(path))
    done = run_cli("compare", *sides, "--history", str(tmp_path / "h.sqlite3"))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout
    assert "\\x1b[31mred" in done.stdout


def test_an_error_naming_a_path_with_escapes_is_one_visible_line(tmp_path):
    done = run_cli("run", "--kernel", f"{tmp_path}/\x1b[2Jk.py:f", "--strategy", "numpy")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: kernel: ") and "\x1b" not in line and "\\x1b[2J" in line
