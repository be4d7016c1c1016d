"""A figure on a page, or the one line saying why there is none: never an empty frame."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.components.plain import plain
from dashboard.figures.style import empty_reason


def chart(figure: Any, key: str, where: Any = st) -> None:
    """Draw the plotly `figure` in `where` (the page, or a column) full width, or its reason
    as a caption (components draw figures; figures/ builds them)."""
    reason = empty_reason(figure)
    if reason is not None:
        where.caption(plain(reason))
        return
    where.plotly_chart(figure, width="stretch", key=key)
