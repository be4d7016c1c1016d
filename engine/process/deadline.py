"""The limits a child's exchange runs under (`children.exchange`, `conversation.converse`):
its whole time and its silence once its work has begun."""

from __future__ import annotations

import time
from collections.abc import Callable


class Deadline:
    """A child's limits on one exchange: past `timeout_s`, or silent for `silence_s` once a
    line for which `silence_from` is true has come, it is to be ended; which, if either."""

    def __init__(
        self,
        timeout_s: float | None,
        silence_s: float | None,
        silence_from: Callable[[str], bool],
    ) -> None:
        self.timeout_s, self.silence_s, self.silence_from = timeout_s, silence_s, silence_from
        self.started = self.last = time.monotonic()
        self.seen_a_line = False
        self.why: list[str] = []

    def heard(self, line: str) -> None:
        self.last = time.monotonic()
        self.seen_a_line = self.seen_a_line or self.silence_from(line)

    def passed(self, now: float) -> bool:
        """Whether the child is to be ended now (and why is kept)."""
        if self.timeout_s is not None and now - self.started > self.timeout_s:
            self.why.append("timeout")
        elif self.silence_s is not None and self.seen_a_line and now - self.last > self.silence_s:
            self.why.append("silence")
        return bool(self.why)

    def ended_for(self) -> tuple[bool, bool]:
        """(timed out, silent): why the child was ended, if it was."""
        return self.why == ["timeout"], self.why == ["silence"]
