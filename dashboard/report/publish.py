"""`history publish DIR`: the history over time as a static site, as asv publishes one.

An index of every series (one machine, one problem, one variant: its runs, its steps, its
latest median) and a page a series, with its chart (steps marked) and each step's words:
the same series and steps `history changes` prints (`analysis/change_points.py`). Plain files
that open from a file server, a bucket or the disk: plotly.js is written once beside them and
every page loads it from there; no page makes a network request. Every piece of text from a
run (labels, host names, versions) is escaped, in the pages and in the charts.

The folder's files are the site's own: a manifest (`.matvec-site`) lists what a publish
wrote, and the next one removes the pages of it that it does not write again (a narrower
`--label` leaves no page of the wider site behind, served with other data); a file no
publish wrote is left as it is and named. Files get the umask's modes, so a web server
running as another user can serve them.

    python -m dashboard.report.publish DIR [--history PATH] [--label TEXT]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plotly.offline import get_plotlyjs

from dashboard.figures.history import series_figure
from dashboard.report.html import STYLE, escape, figure_html
from engine.analysis.change_points import Series, series_of, step_words
from engine.results.files import write_text_atomically
from engine.results.formatting import format_seconds
from engine.run_settings.fields import ConfigError

PLOTLY_FILE = "plotly.min.js"
MANIFEST = ".matvec-site"  # the names of the files the last publish wrote, one a line
SITE_FILE = re.compile(r"^(index\.html|plotly\.min\.js|series-\d{4,}\.html)$")


def site_page(title: str, sections: Iterable[str]) -> str:
    """A page of the site: plotly.js from the file beside it, nothing from the network."""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style>"
        f"<script src='{PLOTLY_FILE}'></script></head>"
        f"<body>{''.join(sections)}</body></html>\n"
    )


def series_file(index: int) -> str:
    return f"series-{index:04d}.html"


def index_page(found: Sequence[Series], label: str | None) -> str:
    rows = []
    for index, series in enumerate(found):
        latest = series.steps[-1] if series.steps else None
        rows.append(
            "<tr>"
            f"<td>{escape(series.machine)}</td><td>{escape(series.problem)}</td>"
            f"<td><a href='{series_file(index)}'>{escape(series.variant)}</a></td>"
            f"<td>{len(series.run_ids)}</td><td>{len(series.steps)}</td>"
            f"<td>{escape(format_seconds(series.medians_s[-1]))}</td>"
            f"<td>{escape(step_words(latest)) if latest else 'no step'}</td>"
            "</tr>"
        )
    head = (
        "<tr><th>machine</th><th>problem</th><th>variant</th><th>runs</th><th>steps</th>"
        "<th>latest median</th><th>latest step</th></tr>"
    )
    scope = f" (label contains {escape(label)})" if label else ""
    return site_page(
        "Batched MatVec history",
        [
            "<h1>Batched MatVec history</h1>",
            f"<p class='muted'>{len(found)} series{scope}: one machine, one problem and one "
            "variant each; steps found as <code>history changes</code> finds them.</p>",
            f"<table>{head}{''.join(rows)}</table>" if rows else "<p>No stored runs.</p>",
        ],
    )


def series_page(series: Series) -> str:
    steps = "".join(f"<li>{escape(step_words(step))}</li>" for step in series.steps)
    runs = "".join(
        f"<tr><td>{number}</td><td>{escape(created)}</td><td>{escape(run_id)}</td>"
        f"<td>{escape(format_seconds(median))}</td></tr>"
        for number, (run_id, created, median) in enumerate(
            zip(series.run_ids, series.created, series.medians_s, strict=True), start=1
        )
    )
    return site_page(
        f"{series.variant} · {series.problem}",
        [
            "<p><a href='index.html'>All series</a></p>",
            f"<h1>{escape(series.variant)}</h1>",
            f"<p class='muted'>{escape(series.problem)} on {escape(series.machine)}</p>",
            figure_html(series_figure(series)),
            "<h2>Steps</h2>",
            f"<ul>{steps}</ul>" if steps else "<p>No step.</p>",
            "<h2>Runs</h2>",
            "<table><tr><th>run</th><th>created (UTC)</th><th>id</th><th>median</th></tr>"
            f"{runs}</table>",
        ],
    )


def check_folder(folder: Path) -> Path:
    """The site's folder: made if absent; refused if it is a link or not a folder."""
    try:
        info = folder.lstat()
    except FileNotFoundError:
        folder.mkdir(parents=True)
        return folder
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError("DIR", f"{str(folder)!r} is a symbolic link; give the folder itself")
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError("DIR", f"{str(folder)!r} is not a folder")
    return folder


@dataclass
class Published:
    """What a publish did: the files it wrote (the index first), the earlier publish's pages
    it removed, and the files in the folder no publish wrote (left as they are)."""

    written: list[Path]
    removed: list[str]
    foreign: list[str]


def earlier_site(folder: Path) -> set[str]:
    """The files the last publish into `folder` wrote, from its manifest (none without one,
    or when it is not a plain file: a planted link is not followed)."""
    path = folder / MANIFEST
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return set()
        return {n for n in path.read_text(encoding="utf-8").split() if SITE_FILE.match(n)}
    except (OSError, UnicodeDecodeError):
        return set()


def publish(runs: Sequence[Any], folder: Path, label: str | None = None) -> Published:
    """Write the site into `folder`, remove the earlier publish's pages it did not write again,
    and name the files that are not the site's."""
    folder = check_folder(folder)
    before = earlier_site(folder)
    found = [series for series in series_of(runs) if series.run_ids]
    written = [folder / "index.html", folder / PLOTLY_FILE]
    write_text_atomically(written[0], index_page(found, label))
    write_text_atomically(written[1], get_plotlyjs())
    for index, series in enumerate(found):
        path = folder / series_file(index)
        write_text_atomically(path, series_page(series))
        written.append(path)
    names = {path.name for path in written}
    write_text_atomically(folder / MANIFEST, "".join(f"{name}\n" for name in sorted(names)))
    removed = []
    for name in sorted(before - names):
        page = folder / name
        with contextlib.suppress(OSError):
            if stat.S_ISREG(page.lstat().st_mode):
                page.unlink()
                removed.append(name)
    mine = names | {MANIFEST}
    foreign = sorted(path.name for path in folder.iterdir() if path.name not in mine)
    return Published(written, removed, foreign)


def main(argv: Sequence[str] | None = None) -> int:
    from engine.storage.history import History
    from engine.storage.history_file import check_history_readable

    parser = argparse.ArgumentParser(prog="matvec-profiler history publish")
    parser.add_argument("folder", help="where the site goes (made if absent)")
    parser.add_argument("--history", default=None, help="the history to read")
    parser.add_argument("--label", default=None, help="only runs whose label contains this")
    args = parser.parse_args(argv)
    try:
        history = History(check_history_readable(args.history), read_only=True)
        site = publish(history.all_runs(args.label), Path(args.folder), args.label)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: DIR: cannot write {args.folder!r}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {len(site.written) - 2} series pages and the index to {site.written[0]}")
    if site.removed:
        print(f"removed {len(site.removed)} page(s) of the earlier publish not written again")
    if site.foreign:
        shown = ", ".join(repr(name) for name in site.foreign[:10])
        more = f" and {len(site.foreign) - 10} more" if len(site.foreign) > 10 else ""
        print(f"left {len(site.foreign)} file(s) no publish wrote: {shown}{more}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
