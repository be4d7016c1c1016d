"""User and file text shown as plain text: Streamlit renders Markdown in most elements, so a
label like `![p](http://host/x.png)` would make the browser fetch that URL."""

from __future__ import annotations

import re

MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def plain(text: object) -> str:
    """`text` with every Markdown control character escaped, so it renders as itself."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")


def with_code(text: object) -> str:
    """Engine text whose `backticked` spans are commands to copy (`pip install cupy-cuda12x`):
    those as code, everything else plain; unbalanced backticks leave it all plain. A code
    span renders literally, so nothing in it becomes a link, an image or markup."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:
        return plain(text)
    return "".join(
        plain(part) if index % 2 == 0 or not part or "\n" in part else f"`{part}`"
        for index, part in enumerate(parts)
    )
