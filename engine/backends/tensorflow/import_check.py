"""`python -m engine.backends.tensorflow.import_check`: import TensorFlow as a run would and
say in one line whether it worked ("ok", or why not). Run by `backends/tensorflow/import_guard.py`
in a child process, where an import that never finishes can be ended from outside."""

from __future__ import annotations

import sys

from engine.backends.tensorflow.import_guard import OK, import_failure


def main() -> int:
    try:
        from engine.backends.tensorflow.loader import import_tensorflow

        import_tensorflow()
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any failure makes it unusable
        print(import_failure(error), flush=True)
        return 0
    print(OK, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
