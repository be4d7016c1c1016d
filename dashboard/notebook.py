"""One run inline in Jupyter or Colab: the Run page's answer, code, table and charts, read from
the same `RunView` the page and the report read (no Streamlit here).

Engine-written text (the fastest-way answer) is shown as Markdown; anything that came from a
user or a file (the label, errors, warnings) is shown as plain text or inside the table, which
pandas escapes.
"""

from __future__ import annotations

from dashboard.figures.style import empty_reason
from dashboard.run_view import RunView, build
from engine.results.run_result import RunResult

__all__ = ["RunView", "build", "show"]


def show(result: RunResult) -> RunView:
    """Display the run in the notebook (IPython's display); returns what was shown (the
    notebook helper `engine.notebook.show` returns nothing, so a cell does not echo it)."""
    from IPython.display import Markdown, display

    view = build(result)
    print(view.heading)
    if result.config.label:
        print(result.config.label)
    if view.took:
        print(view.took)
    for line in [*result.warnings, *view.failures]:
        print(line)
    display(Markdown("### The fastest way\n\n" + view.answer))
    if view.code:
        display(Markdown(f"```python\n{view.code}\n```"))
    if view.light:
        print(view.light)
    if view.simplest and view.simplest_code:
        print(f"The simplest of the tied strategies, {view.simplest}:")
        display(Markdown(f"```python\n{view.simplest_code}\n```"))
    if view.search is not None:
        display(view.search)
    display(view.table)
    for note in view.notes:
        print(note)
    if not view.replicas.empty:
        display(view.replicas)  # the per-replica read-out
    for figure in [*view.figures.values(), *view.why_figures.values()]:
        reason = empty_reason(figure)
        if reason is None:
            figure.show()
        else:
            print(reason)  # never an empty frame
    return view
