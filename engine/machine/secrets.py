"""A store's address as it may be shown: its password hidden before anything parses it.

A URL parser gives up on a password holding an unencoded `/`, `#`, `?` or space, or a
malformed `%` escape, and a library's error then quotes the text it could not parse: the
password reached the terminal and the History page. Here the password is found by position
(everything between the first `:` of the part before the last `@` and that `@`, and any
`password=` parameter), without decoding anything, and every message about the store is
passed through `hidden`, which also removes the password wherever a library quoted it.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

MASK = "***"
PASSWORD_PARAMETER = re.compile(r"(?i)([?&;]password=)([^&#;]*)")


def _authority_password(url: str) -> tuple[int, int] | None:
    """Where the address's password is in `url` (start, end), found by position only."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return None
    at = rest.rfind("@")
    if at < 0:
        return None
    colon = rest.find(":", 0, at)
    if colon < 0:
        return None
    start = len(scheme) + len(separator) + colon + 1
    return start, len(scheme) + len(separator) + at


def secrets_in(url: str) -> list[str]:
    """The password texts of `url` (as written, decoded and re-encoded), longest first."""
    found = []
    place = _authority_password(url)
    if place is not None:
        found.append(url[place[0] : place[1]])
    found += [m.group(2) for m in PASSWORD_PARAMETER.finditer(url)]
    spellings = {
        form for text in found if text for form in (text, unquote(text), quote(text, safe=""))
    }
    return sorted((s for s in spellings if s and s != MASK), key=len, reverse=True)


def shown_url(url: str) -> str:
    """`url` with its password, in the address or as a parameter, as `***`."""
    place = _authority_password(url)
    if place is not None:
        url = f"{url[: place[0]]}{MASK}{url[place[1] :]}"
    return PASSWORD_PARAMETER.sub(lambda m: f"{m.group(1)}{MASK}", url)


def hidden(text: str, url: str) -> str:
    """`text` (an error, a message) with every spelling of `url`'s password as `***`, and the
    URL itself shown without it."""
    text = text.replace(url, shown_url(url))
    for secret in secrets_in(url):
        text = text.replace(secret, MASK)
    return text
