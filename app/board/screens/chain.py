"""The reference-chain view: Continues From ancestors and Referenced By descendants as a tree."""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static, Tree
from textual.widgets.tree import TreeNode

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ...core.formats.index import STATUSES
from ...core.results import ChainNode, ChainView
from ..actions import bindings

LEGEND = "marks: ↔? one-sided link · ⊘ missing · ▣ archived · ⟲ cycle"


def no_colour(part: str) -> Style:
    """No colour for any part (node_label outside a screen)."""
    return Style()


def node_label(node: ChainNode | ChainView, colour: Callable[[str], Style] = no_colour) -> Text:
    """A chain node as one line: ID, status or state, topic and its marks (colours from colour(part))."""
    text = Text()
    state = node.state
    text.append(printable(node.id), style="bold" if state == "live" else "dim")
    if state == "live":
        status = node.status or "?"
        text.append(f"  [{status}]", style=colour(status) if status in STATUSES else "")
        topic = node.topic or ""
        if topic:
            text.append(f"  {printable(topic)}")
    elif state == "archived":
        text.append("  ▣ archived", style=colour("archived"))
    else:
        text.append("  ⊘ missing (neither live nor archived)", style=colour("missing"))
    if isinstance(node, ChainNode) and node.one_sided:
        text.append("  ↔? one-sided link", style=colour("one-sided"))
    if isinstance(node, ChainNode) and node.cycle:
        text.append("  ⟲ cycle", style=colour("cycle"))
    if isinstance(node, ChainNode) and node.unreadable:
        text.append(f"  cannot read its snapshot: {printable(node.unreadable)}", style="bold")
    return text


class ChainScreen(ModalScreen[str | None]):
    """Walk a session's reference chain; returns the live session chosen with enter."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("chain")
    COMPONENT_CLASSES = {f"chain--{part}" for part in (*STATUSES, "archived", "missing", "one-sided", "cycle")}

    def __init__(self, chain: ChainView):
        """Show chain (memboard.core.ops.query.chain's result)."""
        super().__init__()
        self.chain = chain

    def compose(self) -> ComposeResult:
        """Title, the tree and the legend."""
        with Vertical(id="chain-dialog"):
            yield Label(Text(f"Reference chain of {self.chain.id}"), id="chain-title")
            yield self.build_tree()
            yield Static(Text(LEGEND), id="chain-legend")
        yield KeyBar("chain")

    def build_tree(self) -> Tree:
        """The tree: the session at the root, its two directions below."""
        me = self.chain
        tree: Tree[ChainNode | ChainView] = Tree(node_label(me, self.colour), data=me, id="chain-tree")
        tree.auto_expand = False
        tree.show_root = True
        up = tree.root.add(
            Text(f"Continues From (ancestors: {self.count(self.chain.continues_from)})", style="bold"),
            expand=True,
        )
        self.add_nodes(up, self.chain.continues_from, "continues from nothing")
        down = tree.root.add(
            Text(f"Referenced By (descendants: {self.count(self.chain.referenced_by)})", style="bold"),
            expand=True,
        )
        self.add_nodes(down, self.chain.referenced_by, "referenced by nobody")
        tree.root.expand()
        return tree

    def colour(self, part: str) -> Style:
        """The colour of a part of a node's line (a status, archived, missing, one-sided, cycle), from the stylesheet."""
        return self.get_component_rich_style(f"chain--{part}", partial=True)

    def count(self, nodes: tuple[ChainNode, ...]) -> int:
        """How many nodes lie below, counted through the whole subtree."""
        return sum(1 + self.count(n.children) for n in nodes)

    def add_nodes(self, parent: TreeNode, nodes: tuple[ChainNode, ...], empty: str) -> None:
        """Add chain nodes (recursively) under parent."""
        if not nodes:
            parent.add_leaf(Text(empty, style="dim italic"))
            return
        for node in nodes:
            children = node.children
            if children:
                branch = parent.add(node_label(node, self.colour), data=node, expand=True)
                self.add_nodes(branch, children, "")
            else:
                parent.add_leaf(node_label(node, self.colour), data=node)

    def on_mount(self) -> None:
        """Focus the tree on the session itself."""
        tree = self.query_one(Tree)
        tree.focus()
        tree.move_cursor(tree.root)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        """Enter on a live session jumps there; archived and missing ones explain why not."""
        event.stop()
        node = event.node.data
        if not node:
            return
        if node.state == "live":
            self.dismiss(node.id)
        elif node.state == "archived":
            self.notify(f"{node.id} is archived: it is not on the board", severity="warning")
        else:
            self.notify(f"{node.id} is missing: no row and no archive", severity="warning")

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)
