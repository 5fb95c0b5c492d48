"""The reference-chain view: Continues From ancestors and Referenced By descendants as a tree."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static, Tree
from textual.widgets.tree import TreeNode

from ..actions import bindings
from .css import FLOWS_TCSS

LEGEND = "enter jump to session · space fold · esc close   marks: ↔? one-sided link · ⊘ missing · ▣ archived · ⟲ cycle"


def node_label(node: dict) -> Text:
    """A chain node as one line: ID, status or state, topic and its marks."""
    text = Text()
    state = node.get("state", "live")
    text.append(node["id"], style="bold" if state == "live" else "dim")
    if state == "live":
        status = node.get("status") or "?"
        text.append(f"  [{status}]", style={"active": "green", "stale": "yellow", "idle": "dim"}.get(status, ""))
        topic = node.get("topic") or ""
        if topic:
            text.append(f"  {topic}")
    elif state == "archived":
        text.append("  ▣ archived", style="magenta")
    else:
        text.append("  ⊘ missing (neither live nor archived)", style="red")
    if node.get("one_sided"):
        text.append("  ↔? one-sided link", style="bold yellow")
    if node.get("cycle"):
        text.append("  ⟲ cycle", style="bold red")
    return text


class ChainScreen(ModalScreen[str | None]):
    """Walk a session's reference chain; returns the live session chosen with enter."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("chain")

    def __init__(self, chain: dict):
        """Show chain (memboard.core.ops.query.chain's result)."""
        super().__init__()
        self.chain = chain

    def compose(self) -> ComposeResult:
        """Title, the tree and the legend."""
        with Vertical(id="chain-dialog"):
            yield Label(Text(f"Reference chain of {self.chain['id']}"), id="chain-title")
            yield self.build_tree()
            yield Static(Text(LEGEND), id="chain-legend")

    def build_tree(self) -> Tree:
        """The tree: the session at the root, its two directions below."""
        me = {key: self.chain.get(key) for key in ("id", "state", "status", "topic")}
        tree: Tree[dict] = Tree(node_label(me), data=me, id="chain-tree")
        tree.auto_expand = False
        tree.show_root = True
        up = tree.root.add(
            Text(f"Continues From (ancestors: {self.count(self.chain['continues_from'])})", style="bold"),
            expand=True,
        )
        self.add_nodes(up, self.chain["continues_from"], "continues from nothing")
        down = tree.root.add(
            Text(f"Referenced By (descendants: {self.count(self.chain['referenced_by'])})", style="bold"),
            expand=True,
        )
        self.add_nodes(down, self.chain["referenced_by"], "referenced by nobody")
        tree.root.expand()
        return tree

    def count(self, nodes: list[dict]) -> int:
        """How many nodes lie below, counted through the whole subtree."""
        return sum(1 + self.count(n.get("children", [])) for n in nodes)

    def add_nodes(self, parent: TreeNode, nodes: list[dict], empty: str) -> None:
        """Add chain nodes (recursively) under parent."""
        if not nodes:
            parent.add_leaf(Text(empty, style="dim italic"))
            return
        for node in nodes:
            children = node.get("children", [])
            if children:
                branch = parent.add(node_label(node), data=node, expand=True)
                self.add_nodes(branch, children, "")
            else:
                parent.add_leaf(node_label(node), data=node)

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
        if node.get("state") == "live":
            self.dismiss(node["id"])
        elif node.get("state") == "archived":
            self.notify(f"{node['id']} is archived: it is not on the board", severity="warning")
        else:
            self.notify(f"{node['id']} is missing: no row and no archive", severity="warning")

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)
