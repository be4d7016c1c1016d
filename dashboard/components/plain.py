"""User and file text shown as plain text: Streamlit renders Markdown in most elements, so a
label like `![p](http://host/x.png)` would make the browser fetch that URL."""

from __future__ import annotations

import re

MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def plain(text: object) -> str:
    """`text` with every Markdown control character escaped, so it renders as itself."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")
