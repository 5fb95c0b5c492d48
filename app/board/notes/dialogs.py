"""The notes view's modals: the note editor, a decision conflict with both texts and a choice, the
supersede chain, and the picker of the note that supersedes another."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea, Tree
from textual.widgets.tree import TreeNode

from memboard.styles import FLOWS_TCSS, NOTES_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable, printable_view

from ...core.errors import UsageError
from ...core.formats.note import SECTIONS, body_of
from ...core.formats.snapshot import Snapshot
from ...core.formats.topic import SCOPES, TYPES
from ...core.ops.notes import NoteFields
from ...core.ops.notes.chain import NoteChainNode, NoteChainView
from ...core.results import NoteConflict, NoteDetail
from ..actions import bindings
from ..loader import without_metadata
from ..screens import SessionPicker
from ..screens.form import FormScreen

EDIT_HINT = (
    "What / Why / Where / Learned as Markdown under their `## ` headings (headings of level 3 and "
    "below are fine inside them). The preview shows exactly what will be written."
)


def note_text(what: str, why: str, where: str, learned: str) -> str:
    """The four sections as the editor shows them: each under its `## ` heading."""
    texts = {"What": what, "Why": why, "Where": where, "Learned": learned}
    return "\n\n".join(f"## {name}\n\n{texts[name]}".rstrip() for name in SECTIONS) + "\n"


def sections_of(text: str) -> dict[str, str]:
    """The four sections' texts from the editor's Markdown; a one-line UsageError for text outside
    them, an unknown section or one written twice (nothing is guessed)."""
    doc = Snapshot(text)
    first = doc.sections[0].heading if doc.sections else len(doc.lines)
    if any(line.strip() for line in doc.lines[:first]):
        raise UsageError("text above the first section: put it under ## What, ## Why, ## Where or ## Learned")
    seen: set[str] = set()
    for sec in doc.sections:
        name = next((n for n in SECTIONS if n.casefold() == sec.name.casefold()), None)
        if name is None:
            raise UsageError(f"unknown section '## {sec.name}': a note has What, Why, Where and Learned")
        if name in seen:
            raise UsageError(f"'## {name}' is written twice")
        seen.add(name)
    return {name: body_of(doc, name) for name in SECTIONS}


@dataclass(frozen=True)
class NoteForm:
    """What the note editor shows (and returns): the values a person edits."""

    note_id: str
    title: str
    type: str
    scope: str
    project: str
    text: str

    @classmethod
    def of(cls, detail: NoteDetail) -> NoteForm:
        """The form of a note as it is (control characters shown as U+FFFD: an edit that keeps one such section
        leaves it as it is; one that changes it writes what the preview shows)."""
        view = printable_view(detail.note)
        return cls(
            view.id,
            view.title,
            view.type,
            view.scope,
            view.project,
            printable(note_text(detail.what, detail.why, detail.where, detail.learned)),
        )

    def changes_from(self, start: NoteForm) -> NoteFields:
        """Only what the person changed, as the store's NoteFields (a UsageError for unreadable sections)."""
        mine, theirs = sections_of(self.text), sections_of(start.text)
        texts = {name.lower(): mine[name] if mine[name] != theirs[name] else None for name in SECTIONS}
        values = {name: getattr(self, name).strip() for name in ("title", "type", "scope", "project")}
        changed = {name: value if value != getattr(start, name).strip() else None for name, value in values.items()}
        return NoteFields(**changed, **texts)


class NoteEditScreen(FormScreen[NoteForm | None]):
    """Edit a note's title, type, scope, project and sections; returns the form to preview."""

    CSS_PATH = [FLOWS_TCSS, NOTES_TCSS]
    BINDINGS = bindings("update")

    def __init__(self, form: NoteForm) -> None:
        """Edit form."""
        super().__init__()
        self.form = form

    def compose(self) -> ComposeResult:
        """The title, type / scope / project, the sections' text area and the buttons."""
        form = self.form
        types = [(t, t) for t in TYPES] + ([(form.type, form.type)] if form.type not in TYPES else [])
        scopes = [(s, s) for s in SCOPES] + ([(form.scope, form.scope)] if form.scope not in SCOPES else [])
        with Vertical(id="note-edit-dialog"):
            yield Label(Text(f"Edit note {form.note_id}"), id="note-edit-title")
            with Horizontal(classes="note-edit-field"):
                yield Label("Title", classes="note-edit-label")
                yield Input(form.title, id="note-edit-name", compact=True)
            with Horizontal(classes="note-edit-field"):
                yield Label("Type", classes="note-edit-label")
                yield Select(types, value=form.type, allow_blank=False, id="note-edit-type", compact=True)
                yield Label("Scope", classes="note-edit-label")
                yield Select(scopes, value=form.scope, allow_blank=False, id="note-edit-scope", compact=True)
                yield Label("Project", classes="note-edit-label")
                yield Input(form.project, id="note-edit-project", compact=True)
            yield Static(Text(EDIT_HINT), id="note-edit-hint")
            yield TextArea(form.text, id="note-edit-text", soft_wrap=True, show_line_numbers=False)
            with Horizontal(id="note-edit-buttons"):
                yield Button("Preview (ctrl+s)", variant="primary", id="preview")
                yield Button("Cancel (esc)", variant="error", id="cancel")
        yield KeyBar("update")

    def on_mount(self) -> None:
        """Start in the text of the note."""
        self.query_one("#note-edit-text", TextArea).focus()

    def current(self) -> NoteForm:
        """The form as edited so far."""
        return replace(
            self.form,
            title=self.query_one("#note-edit-name", Input).value,
            type=str(self.query_one("#note-edit-type", Select).value),
            scope=str(self.query_one("#note-edit-scope", Select).value),
            project=self.query_one("#note-edit-project", Input).value,
            text=self.query_one("#note-edit-text", TextArea).text,
        )

    def action_preview(self) -> None:
        """Hand the edited form to the flow, which previews the change."""
        self.dismiss(self.current())

    def action_cancel(self) -> None:
        """Edit nothing."""
        self.dismiss(None)


def conflict_words(c: NoteConflict) -> str:
    """What the store refused, in words: the type change, the statements dropped (nothing was written)."""
    what = [f"changes its type from {printable(c.type) or '(none)'} to {c.new_type}"] if c.new_type else []
    if c.dropped:
        what.append(f"drops or changes {len(c.dropped)} earlier statement(s) of this {printable(c.type)}")
    dropped = "".join(f"\n  ✗ {printable(s.splitlines()[0])}" for s in c.dropped)
    return f"The edit {' and '.join(what)}, so the store did not save it (nothing was written):{dropped}"


class ConflictScreen(ModalScreen[str | None]):
    """A decision conflict: the statements the edit drops, both texts side by side, and the choice
    (supersede, keep both, back to the editor); None cancels."""

    CSS_PATH = [FLOWS_TCSS, NOTES_TCSS]
    BINDINGS = bindings("conflict")

    def __init__(self, conflict: NoteConflict) -> None:
        """Show conflict (a save's NoteConflict: nothing was written)."""
        super().__init__()
        self.conflict = conflict

    def compose(self) -> ComposeResult:
        """Title, what was refused, the dropped statements, both texts and the choices."""
        c = self.conflict
        with Vertical(id="conflict-dialog"):
            yield Label(Text(f"Decision conflict on {c.note_id}"), id="conflict-title")
            yield Static(Text(conflict_words(c)), id="conflict-text")
            with Horizontal(id="conflict-texts"):
                with VerticalScroll(classes="conflict-side") as old:
                    old.border_title = "now"
                    yield Static(Text(printable(without_metadata(c.old_text))), classes="conflict-body")
                with VerticalScroll(classes="conflict-side") as new:
                    new.border_title = "the edit"
                    yield Static(Text(printable(without_metadata(c.new_text))), classes="conflict-body")
            yield Static(
                Text(
                    f"supersede: the edit becomes {c.note_id}; the note as it is moves aside, marked "
                    f"superseded, both linked · keep both: the edit is saved as {c.keep_both_id}, both "
                    "active, each with its scope"
                ),
                id="conflict-choices",
            )
            with Horizontal(id="conflict-buttons"):
                yield Button("Supersede (s)", variant="warning", id="supersede")
                yield Button("Keep both (k)", variant="primary", id="keep_both")
                yield Button("Edit (e)", id="edit")
                yield Button("Cancel (esc)", variant="error", id="cancel")
        yield KeyBar("conflict")

    def on_mount(self) -> None:
        """Focus the first choice."""
        self.query_one("#supersede").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A choice from the buttons."""
        event.stop()
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_choose(self, choice: str) -> None:
        """Choose supersede, keep_both or edit (back to the editor)."""
        self.dismiss(choice)

    def action_cancel(self) -> None:
        """Write nothing."""
        self.dismiss(None)


LEGEND = "marks: ↔? link written on one note only · ⊘ missing · ⟲ cycle"


def no_colour(part: str) -> Style:
    """No colour for any part (chain_label outside a screen)."""
    return Style()


def chain_label(node: NoteChainNode | NoteChainView, colour: Callable[[str], Style] = no_colour) -> Text:
    """A note of a supersede chain as one line: ID, status, type and title, and its marks."""
    text = Text()
    if isinstance(node, NoteChainNode) and node.state == "missing":
        text.append(node.id, style="dim")
        text.append("  ⊘ missing (no such note)", style=colour("missing"))
    else:
        status = node.status or "?"
        text.append(node.id, style="bold")
        text.append(f"  [{status}]", style=colour(status) if status in ("active", "superseded") else "")
        text.append(f"  {node.type or '?'} · {node.title or ''}")
    if isinstance(node, NoteChainNode):
        if node.only_on:
            side = "this note" if node.only_on == node.id else "the note above"
            text.append(f"  ↔? written on {side} only", style=colour("one-sided"))
        if node.cycle:
            text.append("  ⟲ cycle", style=colour("cycle"))
        if node.more:
            text.append("  … the chain goes on", style="dim")
    return text


class NoteChainScreen(ModalScreen[str | None]):
    """Walk a note's supersede chain; returns the note chosen with enter."""

    CSS_PATH = [FLOWS_TCSS, NOTES_TCSS]
    BINDINGS = bindings("chain")
    COMPONENT_CLASSES = {f"note-chain--{part}" for part in ("active", "superseded", "missing", "one-sided", "cycle")}

    def __init__(self, chain: NoteChainView) -> None:
        """Show chain (memboard.core.ops.notes.chain.note_chain's result)."""
        super().__init__()
        self.chain = chain

    def compose(self) -> ComposeResult:
        """Title, the tree and the legend."""
        with Vertical(id="note-chain-dialog"):
            yield Label(Text(f"Supersede chain of {self.chain.id}"), id="note-chain-title")
            yield self.build_tree()
            yield Static(Text(LEGEND), id="note-chain-legend")
        yield KeyBar("chain")

    def build_tree(self) -> Tree[NoteChainNode | NoteChainView]:
        """The tree: the note at the root, the notes it replaced and those that replaced it below."""
        me = self.chain
        tree: Tree[NoteChainNode | NoteChainView] = Tree(chain_label(me, self.colour), data=me, id="note-chain-tree")
        tree.auto_expand = False
        for heading, nodes, empty in (
            ("Supersedes (older notes it replaced)", me.supersedes, "replaced no note"),
            ("Superseded By (newer notes that replaced it)", me.superseded_by, "not replaced"),
        ):
            branch = tree.root.add(Text(f"{heading}: {self.count(nodes)}", style="bold"), expand=True)
            self.add_nodes(branch, nodes, empty)
        tree.root.expand()
        return tree

    def colour(self, part: str) -> Style:
        """The colour of a part of a line (a status, missing, one-sided, cycle), from the stylesheet."""
        return self.get_component_rich_style(f"note-chain--{part}", partial=True)

    def count(self, nodes: tuple[NoteChainNode, ...]) -> int:
        """How many notes lie below, counted through the whole subtree."""
        return sum(1 + self.count(n.children) for n in nodes)

    def add_nodes(
        self, parent: TreeNode[NoteChainNode | NoteChainView], nodes: tuple[NoteChainNode, ...], empty: str
    ) -> None:
        """Add chain nodes (recursively) under parent."""
        if not nodes:
            parent.add_leaf(Text(empty, style="dim italic"))
        for node in nodes:
            if node.children:
                self.add_nodes(parent.add(chain_label(node, self.colour), data=node, expand=True), node.children, "")
            else:
                parent.add_leaf(chain_label(node, self.colour), data=node)

    def on_mount(self) -> None:
        """Focus the tree on the note itself."""
        tree = self.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NoteChainNode | NoteChainView]) -> None:
        """Enter on a note jumps there; a missing one says so."""
        event.stop()
        node = event.node.data
        if node is None:
            return
        if isinstance(node, NoteChainNode) and node.state == "missing":
            self.notify(f"{node.id} is missing: no such note under notes/", severity="warning")
            return
        self.dismiss(node.id)

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)


class NotePicker(SessionPicker):
    """The session picker's filterable list, offering notes (the note that supersedes another)."""

    def on_mount(self) -> None:
        """Say what the filter searches, then focus it as the session picker does."""
        self.query_one(Input).placeholder = "type to filter by ID, type or title"
        super().on_mount()
