"""The side pane: the selected session's metadata, its snapshot as Markdown and merge diffs."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memboard.board.loader import MergeView, SessionDetail, without_metadata
from memboard.board.model import BoardRow
from memboard.core.formats.snapshot import LIST_MARK_RE

MARKERS_TEXT = "[superseded], [resolved] or [done]"


def metadata_text(row: BoardRow, now) -> Text:
    """The row's fields as styled text (user text is plain, never markup)."""
    out = Text()
    out.append(row.id + "\n", style="bold")
    if row.problem:
        out.append("unparseable row: ", style="bold red")
        out.append(row.problem + "\n", style="red")
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
        out.append(value + "\n")
    return out


def merge_text(view: MergeView) -> Text:
    """A merge as text: policy breaks first, then each changed section's added/removed lines."""
    out = Text()
    if view.breaks:
        out.append(f"⚠ {len(view.breaks)} policy break(s): items dropped without {MARKERS_TEXT}\n", style="bold red")
        for section, item in view.breaks:
            out.append(f"  ✗ {section}: ", style="red")
            out.append(LIST_MARK_RE.sub("", item.strip().splitlines()[0]) + "\n", style="red")
    else:
        out.append("✓ no item dropped without a marker\n", style="green")
    for sec in view.sections:
        out.append(f"\n## {sec.name}\n", style="bold")
        for line in sec.lines:
            if line.startswith("+"):
                out.append(line + "\n", style="green")
            elif line.startswith("-"):
                out.append(line + "\n", style="red")
            else:
                out.append(line + "\n", style="dim")
    if not view.sections:
        out.append("(no section changed)\n", style="dim")
    return out


class SnapshotPane(VerticalScroll, can_focus=True):
    """Metadata, revision position, the merge diff of that revision and the snapshot itself."""

    def compose(self) -> ComposeResult:
        """Lay out the pane's parts."""
        yield Static(id="pane-meta")
        yield Static(id="pane-revision")
        yield Static(id="pane-merge")

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

    def show(self, row: BoardRow | None, detail: SessionDetail | None, position: int, now) -> None:
        """Show row and, when loaded, detail at revision position."""
        meta = self.query_one("#pane-meta", Static)
        revision = self.query_one("#pane-revision", Static)
        merge = self.query_one("#pane-merge", Static)
        if row is None:
            meta.update(Text("No session selected.", style="dim"))
            revision.update("")
            merge.display = False
            self._markdown("")
            return
        meta.update(metadata_text(row, now))
        if detail is None or detail.session_id != row.id:
            revision.update(Text("loading…", style="dim"))
            merge.display = False
            return
        if not detail.revisions:
            revision.update(Text("No snapshot (sessions/<id>.md does not exist).", style="dim"))
            merge.display = False
            self._markdown("")
            return
        total = len(detail.revisions)
        position = max(0, min(position, total - 1))
        label = Text()
        label.append(f"Revision {position + 1}/{total}", style="bold")
        label.append(" latest" if position == total - 1 else " earlier", style="dim")
        if total > 1:
            label.append(" · [ ] step", style="dim")
        revision.update(label)
        view = detail.merge(position)
        if view is None:
            merge.display = False
        else:
            merge.display = True
            merge.set_class(bool(view.breaks), "-breaks")
            merge.update(merge_text(view))
        self._markdown(without_metadata(detail.revisions[position]))
