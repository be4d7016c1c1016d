"""The `import` command: what is valid is stored, what is not is refused in one line."""

import subprocess
import sys

from engine.storage.history import History
from tests.conftest import ROOT


def test_import_command(tmp_path):
    from tests.factories import make_run

    good = tmp_path / "tpu.json"
    make_run(label="colab tpu", device_kind="TPU").write_json(good)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "run_id": ')
    history_path = tmp_path / "h.sqlite3"

    def imports(*files):
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "engine",
                "import",
                *map(str, files),
                "--history",
                str(history_path),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

    first = imports(good)
    assert first.returncode == 0 and "imported" in first.stdout
    second = imports(good, bad)
    assert second.returncode == 2
    assert "already stored" in second.stdout
    assert "not valid JSON (truncated?)" in second.stderr and "Traceback" not in second.stderr
    assert History(history_path).count() == 1
