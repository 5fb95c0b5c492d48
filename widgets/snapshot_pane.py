"""The side pane: the selected session's metadata, its snapshot as Markdown and merge diffs.

It renders what the board's loader prepared off the UI thread (memboard.widgets.panes):
no reading, no parsing here.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memboard.widgets.panes import PaneMerge, PaneSnapshot
from memboard.widgets.rows import BoardRow, printable

MARKERS_TEXT = "[superseded], [resolved] or [done]"


Colour = Callable[[str], Style]


def metadata_text(row: BoardRow, now, colour: Colour) -> Text:
    """The row's fields as styled text (user text is plain, never markup, and printable)."""
    out = Text()
    out.append(printable(row.id) + "\n", style="bold")
    if row.problem:
        out.append("unparseable row: ", style=Style(bold=True) + colour("problem"))
        out.append(printable(row.problem) + "\n", style=colour("problem"))
    if row.dups:
        out.append("duplicate Session ID: ", style=Style(bold=True) + colour("problem"))
        out.append(
            f"row {row.dup} of {row.dups} with this ID; changes to it are refused until one is left (d: doctor)\n",
            style=colour("problem"),
        )
    fields = [
        ("Agent", row.agent),
        ("Topic", row.topic),
        ("Status", row.status),
        ("Summary", row.summary),
        ("Keywords", row.keywords),
        ("Ref. by", ", ".join(row.refs) or "-"),
        ("Started", row.started_at),
        ("Updated", f"{row.updated_at}  ({row.age(now)} ago)" if row.updated_at else ""),
    ]
    for label, value in fields:
        out.append(f"{label:<9}", style="dim")
        out.append(printable(value) + "\n")
    return out


def merge_text(view: PaneMerge, colour: Colour) -> Text:
    """A merge as text: policy breaks first, then each changed section's added/removed lines."""
    out = Text()
    if view.breaks:
        heading = f"⚠ {len(view.breaks)} policy break(s): items dropped without {MARKERS_TEXT}\n"
        out.append(heading, style=Style(bold=True) + colour("break"))
        for found in view.breaks:
            out.append(f"  ✗ {found.section}: ", style=colour("break"))
            out.append(found.item + "\n", style=colour("break"))
    else:
        out.append("✓ no item dropped without a marker\n", style=colour("clean"))
    for sec in view.sections:
        out.append(f"\n## {sec.name}\n", style="bold")
        for line in sec.lines:
            if line.startswith("+"):
                out.append(line + "\n", style=colour("added"))
            elif line.startswith("-"):
                out.append(line + "\n", style=colour("removed"))
            else:
                out.append(line + "\n", style="dim")
    if not view.sections:
        out.append("(no section changed)\n", style="dim")
    return out


class SnapshotPane(VerticalScroll, can_focus=True):
    """Metadata, revision position, the merge diff of that revision and the snapshot itself."""

    COMPONENT_CLASSES = {
        "snapshot-pane--problem",
        "snapshot-pane--break",
        "snapshot-pane--clean",
        "snapshot-pane--added",
        "snapshot-pane--removed",
    }

    shown_id: str | None = None
    """The Session ID the pane last showed: another one starts at the top."""

    def compose(self) -> ComposeResult:
        """Lay out the pane's parts."""
        yield Static(id="pane-meta")
        yield Static(id="pane-revision")
        yield Static(id="pane-merge")

    def colour(self, part: str) -> Style:
        """The colour of a part (problem, break, clean, added, removed), from the stylesheet."""
        return self.get_component_rich_style(f"snapshot-pane--{part}", partial=True)

    def _markdown(self, text: str) -> None:
        """Show text in the Markdown view, mounting it on first use (after the first paint)."""
        found = self.query("#pane-markdown")
        if not found and not text:
            return
        # lazy: mounted after the first paint (start-up stays light)
        from textual.widgets import Markdown

        if found:
            found.first(Markdown).update(text)
        else:
            self.mount(Markdown(text, id="pane-markdown"))

    def show(self, row: BoardRow | None, snapshot: PaneSnapshot | None, position: int, now, empty: str = "") -> None:
        """Show row and, when loaded, its snapshot at revision position (empty: why there is no row)."""
        meta = self.query_one("#pane-meta", Static)
        revision = self.query_one("#pane-revision", Static)
        merge = self.query_one("#pane-merge", Static)
        if row is None:
            self.shown_id = None
            meta.update(Text(empty or "No session selected.", style="dim"))
            revision.update("")
            merge.display = False
            self._markdown("")
            return
        if row.id != self.shown_id:  # a newly selected row opens at its metadata, however far the last was scrolled
            self.shown_id = row.id
            self.scroll_home(animate=False, immediate=True)
        meta.update(metadata_text(row, now, self.colour))
        if snapshot is None or snapshot.session_id != row.id:
            revision.update(Text("loading…", style="dim"))
            merge.display = False
            self._markdown("")  # never the previous row's text under this row's header
            return
        if snapshot.unreadable and not snapshot.count:
            revision.update(Text(f"{snapshot.unreadable}.", style="bold"))
            merge.display = False
            self._markdown("")
            return
        if not snapshot.count:
            revision.update(Text("No snapshot (sessions/<id>.md does not exist).", style="dim"))
            merge.display = False
            self._markdown("")
            return
        total = snapshot.count
        position = max(0, min(position, total - 1))
        view = snapshot.views.get(position)
        label = Text()
        label.append(f"Revision {position + 1}/{total}", style="bold")
        label.append(" latest" if position == total - 1 else " earlier", style="dim")
        if total > 1:
            label.append(" · [ ] step", style="dim")
        if snapshot.unreadable:  # the revisions kept in local state, while the file itself cannot be read
            label.append(f" · {snapshot.unreadable}", style="bold")
        if view is None:  # an older revision, being prepared
            label.append(" · loading…", style="dim")
        revision.update(label)
        if view is None or view.merge is None:
            merge.display = False
        else:
            merge.display = True
            merge.set_class(bool(view.merge.breaks), "-breaks")
            merge.update(merge_text(view.merge, self.colour))
        self._markdown(view.body if view is not None else "")
