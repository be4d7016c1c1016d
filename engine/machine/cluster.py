"""The multi-worker layout from the standard `TF_CONFIG` variable, read without TensorFlow."""

from __future__ import annotations

import json
import os
from typing import Any


def _tf_config() -> dict[str, Any]:
    try:
        parsed = json.loads(os.environ.get("TF_CONFIG", "{}"))
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def worker_count() -> int:
    """Hosts named in TF_CONFIG (1 when absent): more than one means a multi-worker run."""
    cluster = _tf_config().get("cluster", {})
    return max(1, len(cluster.get("worker", [])) + len(cluster.get("chief", [])))


def task_index() -> int:
    """This host's position among the workers (0 = chief when there is no chief task)."""
    task = _tf_config().get("task", {})
    offset = len(_tf_config().get("cluster", {}).get("chief", []))
    return int(task.get("index", 0)) + (offset if task.get("type") == "worker" else 0)
