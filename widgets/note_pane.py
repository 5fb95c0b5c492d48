"""The notes view's side pane: the selected note's metadata, its change since the previous revision
(like the snapshot pane's merge) and its What / Why / Where / Learned.

It renders what the notes loader prepared off the UI thread (memboard.widgets.panes): no
reading, no parsing here. User text is plain Text, never markup.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memboard.widgets.panes import NoteChange, NotePaneView
from memboard.widgets.rows import NoteRow

Colour = Callable[[str], Style]


def links(ids: list[str]) -> str:
    """A list of note IDs as one line (`-` for none)."""
    return ", ".join(ids) or "-"


def metadata_text(row: NoteRow, colour: Colour) -> Text:
    """The note's metadata as styled text (the values as written)."""
    view = row.view
    out = Text()
    out.append(view.title + "\n", style="bold")
    if view.problem:
        out.append("metadata: ", style=Style(bold=True) + colour("problem"))
        out.append(view.problem + "\n", style=colour("problem"))
    fields = [
        ("ID", view.id),
        ("Type", f"{view.type} · {view.scope}"),
        ("Status", view.status),
        ("Supersedes", links(view.supersedes)),
        ("Superseded", links(view.superseded_by)),
        ("Project", view.project or "-"),
        ("Session", view.session or "-"),
        ("Created", view.created),
        ("Updated", view.updated),
    ]
    for label, value in fields:
        out.append(f"{label:<11}", style="dim")
        style = colour(value) if label == "Status" and value in ("active", "superseded") else Style()
        out.append(value + "\n", style=style)
    return out


def change_text(change: NoteChange, colour: Colour) -> Text:
    """A change as text: statements left out first, then changed fields, then each changed section."""
    out = Text()
    if change.left_out:
        out.append(
            f"{len(change.left_out)} earlier statement(s) left out (kept in the revision)\n",
            style=Style(bold=True) + colour("left-out"),
        )
        for statement in change.left_out:
            out.append("  ✗ " + statement.splitlines()[0] + "\n", style=colour("left-out"))
    else:
        out.append("✓ every earlier statement kept\n", style=colour("kept"))
    for found in change.fields:
        out.append(f"{found.name}: ", style="bold")
        out.append(found.before, style=colour("removed"))
        out.append(" → ")
        out.append(found.after + "\n", style=colour("added"))
    for sec in change.sections:
        out.append(f"\n## {sec.name}\n", style="bold")
        for line in sec.lines:
            part = "added" if line.startswith("+") else "removed" if line.startswith("-") else ""
            out.append(line + "\n", style=colour(part) if part else Style(dim=True))
    return out


class NotePane(VerticalScroll, can_focus=True):
    """Metadata, the last change and the note's sections."""

    COMPONENT_CLASSES = {
        "note-pane--problem",
        "note-pane--active",
        "note-pane--superseded",
        "note-pane--left-out",
        "note-pane--kept",
        "note-pane--added",
        "note-pane--removed",
    }

    def compose(self) -> ComposeResult:
        """Lay out the pane's parts."""
        yield Static(id="note-meta")
        yield Static(id="note-revision")
        yield Static(id="note-change")

    def colour(self, part: str) -> Style:
        """The colour of a part (problem, a status, left-out, kept, added, removed), from the stylesheet."""
        return self.get_component_rich_style(f"note-pane--{part}", partial=True)

    def _markdown(self, text: str) -> None:
        """Show text in the Markdown view, mounting it on first use."""
        found = self.query("#note-markdown")
        if not found and not text:
            return
        # lazy: the Markdown widget loads when the first note is shown (opening the view stays light)
        from textual.widgets import Markdown

        if found:
            found.first(Markdown).update(text)
        else:
            self.mount(Markdown(text, id="note-markdown"))

    def show(self, row: NoteRow | None, pane: NotePaneView | None, empty: str = "No note selected.") -> None:
        """Show row and, once loaded, its sections and its last change (empty says why there is no row)."""
        meta = self.query_one("#note-meta", Static)
        revision = self.query_one("#note-revision", Static)
        change = self.query_one("#note-change", Static)
        if row is None:
            meta.update(Text(empty, style="dim"))
            revision.update("")
            change.display = False
            self._markdown("")
            return
        meta.update(metadata_text(row, self.colour))
        if pane is None or pane.note_id != row.id:
            revision.update(Text("loading…", style="dim"))
            change.display = False
            return
        if pane.error is not None:
            revision.update(Text(pane.error, style=self.colour("problem")))
            change.display = False
            self._markdown("")
            return
        label = Text()
        if pane.change is None:
            label.append("No earlier revision differs", style="dim")
        else:
            label.append("Changed since its previous revision", style="bold")
        label.append(f" · {pane.revisions} kept" if pane.revisions else "", style="dim")
        revision.update(label)
        change.display = pane.change is not None
        if pane.change is not None:
            change.set_class(bool(pane.change.left_out), "-left-out")
            change.update(change_text(pane.change, self.colour))
        self._markdown(pane.body)
