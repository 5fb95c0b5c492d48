"""The Spaces screen's flows: save, research-save, dream, archive, init (and migrate's refusal), and the
Hierarchy screen's writes, each previewed exactly and applied exactly as previewed.

They run as every board flow runs (flowrun.py: one thread worker, a planning thread, the preview, apply
exactly that plan, a plan rebuilt and previewed again when the files changed meanwhile), on a **place**
instead of the memory root: the project's spaces, the global home or the hierarchy workspace
(core/files/places.py). The plans are the service builders' (service/spaces_write.py for init, save and
research-save; core/spaces/cold.py's steps for dream and archive, core/hierarchy's for the workspace),
built from settled reads of the place, as `--dry-run` builds them; the preview's diff is the plan as one
patch relative to its base folder (what `--dry-run` prints after `patch base: DIR`), and its header names
the base and the places touched. `w` and the dream draft's `e` open `$EDITOR` (the board suspended) on a
copy in a temp folder, never on the space's own file.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView

from ..core.errors import MemboardError, Refused
from ..core.files.execute import SETTLE_WAIT, settled_build
from ..core.files.settle import Budget, settle_seconds
from ..core.plan import Plan
from .actions import bindings
from .flowrun import FlowHost, FlowRunner
from .messages import FlowFinished
from .planview import PlanView, ViewLine, build
from .screens import MessageScreen
from .screens.form import FormScreen

EDITOR_FALLBACK = "vi"
EditorRun = Callable[[list[str]], int]


@dataclass
class SpaceFlowFinished(Message):
    """A flow of the Spaces or Hierarchy screen ended; the screen re-reads when it wrote, says so, then
    completes `shown`, which the flow waits on."""

    op: str
    outcome: str
    applied: bool = False
    severity: SeverityLevel = "information"
    select_id: str | None = None
    shown: Future[None] = field(default_factory=Future)


class Listener(Protocol):
    """The screen a flow reports to (from any thread)."""

    def post_message(self, message: Message) -> bool:
        """Queue a message for the screen; False when it is gone."""


def editor_command(path: Path) -> list[str]:
    """The command that edits path: `$VISUAL`, else `$EDITOR` (split as a shell would), else vi."""
    raw = os.environ.get("VISUAL") or os.environ.get("EDITOR") or EDITOR_FALLBACK
    return [*shlex.split(raw), str(path)]


def edit_copy(host: Any, text: str, name: str) -> str | None:
    """From a flow's thread: text in a temp copy named name, edited in $EDITOR with the board suspended
    (headless, the editor simply runs); the edited text, None when the editor failed or left it unchanged."""
    with tempfile.TemporaryDirectory(prefix="memboard-edit-") as folder:
        path = Path(folder) / name
        path.write_bytes(text.encode("utf-8"))
        command = editor_command(path)

        def run() -> int:
            """Run the editor on the board's thread, the terminal handed over while it runs."""
            try:
                with host.suspend():
                    return subprocess.call(command)
            except Exception:  # no terminal to hand over (a headless board): the editor runs as it is
                return subprocess.call(command, stdin=subprocess.DEVNULL)

        code = host.call_from_thread(run)
        if code != 0:
            return None
        edited = path.read_bytes().decode("utf-8", "replace")
    return None if edited == text else edited


class PlaceRunner(FlowRunner):
    """A FlowRunner whose plans are built and applied on a place (the project, the global home, a workspace)."""

    def __init__(self, host: FlowHost, view: Listener) -> None:
        """Flows for host (the App) that report to view (the screen)."""
        super().__init__(host)
        self.view = view
        self.place: Any = None
        self.places: Sequence[Any] = ()
        self.applier: Callable[[Plan], None] | None = None  # a plan applied its own way (an archive: two plans)

    def tell(self, finished: FlowFinished) -> Future[None] | None:
        """Tell the screen (it re-reads when the flow wrote)."""
        self.log(finished)
        told = SpaceFlowFinished(finished.op, finished.outcome, finished.applied, finished.severity, finished.select_id)
        return told.shown if self.view.post_message(told) else None

    def settled(self, build_plan: Any) -> Plan:
        """The plan built from settled reads of its places, as `--dry-run` builds it."""
        self.place.window = settle_seconds()
        return settled_build(self.place, build_plan, Budget(SETTLE_WAIT))

    def apply(self, plan: Plan, build_plan: Any, title: str) -> None:
        """Apply exactly this previewed plan over its places (places.apply_previewed: StalePlan with the plan
        built again when a file changed since the preview, nothing written then)."""
        from ..core.files.places import apply_previewed  # lazy: loaded on first use (opening the screen stays light)

        if self.applier is not None:
            self.applier(plan)
            return
        with self.progress(title, len(plan.changes)) as tally:
            apply_previewed(self.places, plan, lambda: build_plan(self.place), progress=tally.step if tally else None)

    def plan_view(self, plan: Plan, words: Any) -> PlanView:  # type: ignore[override]
        """The preview of plan: its base folder and places first, then the changes as one patch relative to the
        base (the bytes `--dry-run` prints)."""
        from ..core.files.places import (  # lazy: loaded on first use (opening the screen stays light)
            based,
            plan_base,
            touched,
        )

        places = list(self.places) or [self.place]
        base = plan_base(plan, places)
        shown = Plan(plan.op, plan.result, based(plan, places, base))
        headline = list(words(plan)[0]) if words else list(plan.report)
        headline.insert(0, f"patch base: {base}")
        names = ", ".join(f"{p.kind.name} {p.real}" for p in touched(plan, places)) or "none"
        headline.insert(1, f"places: {names}")
        view = build(shown, headline)
        if not view.pending and view.diff:  # a space's files have no rows or sections to word: the lines themselves
            view.readable = [*view.readable, ViewLine(""), *view.raw]
        return view

    def refuse_message(self, op: str, title: str, text: str) -> None:
        """Say why a flow cannot start, and end it (nothing written)."""
        self.ask(MessageScreen(f"{title}: refused", text))
        self.finish(op, f"{op} refused: nothing written", severity="warning")

    def preview_place(
        self,
        op: str,
        title: str,
        places: Sequence[Any],
        make: Callable[[], Plan],
        applier: Callable[[Plan], None] | None = None,
    ) -> str:
        """Preview the plan make builds over places and, on confirm, apply exactly it (applier: how, when the
        plan is applied otherwise than as one)."""
        self.place, self.places, self.applier = places[0], list(places), applier
        return self.preview_and_apply(op, title, lambda _place: make())


# -- spaces ------------------------------------------------------------------------------------------------


def _where(space_id: str, rule: str) -> Any:
    """The decision for a space on the table, made again now (remembered among the known spaces)."""
    from ..service.spaces_read import where  # lazy: loaded on first use (opening the screen stays light)

    return where(str(Path(space_id).parent), scope_of(rule))


def scope_of(rule: str) -> str:
    """The scope that resolves a space of rule again from its folder."""
    return "global" if rule == "global" else "workspace" if rule == "workspace" else "auto"


class SpaceFlows(PlaceRunner):
    """The Spaces screen's changing keys, each one a flow that previews exactly and applies what it showed."""

    def start_flow(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """Start a flow unless one is running or a modal is open."""
        if self.may_start():
            self.start(op, body, *args)

    def flow_init(self, space_id: str, rule: str) -> None:
        """Preview and apply `space init` (create-only)."""
        from ..service.spaces_write import (  # lazy: loaded on first use (opening the screen stays light)
            init_plan,
            write_job,
        )

        where = _where(space_id, rule)
        places, make = write_job(where, lambda read: init_plan(where, read))
        self.preview_place("init", "Init the space", places, make)

    def flow_save(self, space_id: str, rule: str) -> None:
        """$EDITOR on a copy of current.md, then the layering preview; apply exactly it."""
        from ..core.spaces import templates  # lazy: loaded on first use (opening the screen stays light)
        from ..service.spaces_write import (  # lazy: loaded on first use (opening the screen stays light)
            CURRENT,
            SaveRequest,
            save_plan,
            write_job,
        )

        where = _where(space_id, rule)
        folder = where.memory_folder() or where.require()
        path = folder / CURRENT
        text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else templates.CURRENT
        edited = edit_copy(self.host, text, "current.md")
        if edited is None:
            self.finish("save", "save: current.md left as it was, nothing written")
            return
        request = SaveRequest(current=edited, reason="memboard board save")
        places, make = write_job(where, lambda read: save_plan(where, request, read))
        self.preview_place("save", "Save the space", places, make)

    def flow_research(self, space_id: str, rule: str) -> None:
        """The research form, then the preview of the appended entry."""
        from ..core.errors import UsageError  # lazy: loaded on first use (opening the screen stays light)
        from ..service.spaces_write import (  # lazy: loaded on first use (opening the screen stays light)
            ResearchRequest,
            check_research,
            write_job,
        )

        where = _where(space_id, rule)
        where.require()
        fields: dict[str, str] = {}
        while True:
            answer = self.ask(ResearchForm(fields))
            if answer is None:
                self.finish("research-save", "research-save cancelled: nothing written")
                return
            fields = answer
            request = ResearchRequest(
                topic=fields.get("topic", ""),
                conclusion=fields.get("conclusion", ""),
                valid=fields.get("valid", "") or "unknown",
                merged=fields.get("merged", "") or "no",
                evidence=_many(fields.get("evidence", "")),
                key_paths=_many(fields.get("key_paths", "")),
                next_step=fields.get("next_step", ""),
                tags=_many(fields.get("tags", "")),
                context=fields.get("context") or None,
            )
            try:
                check_research(request)
            except UsageError as exc:
                self.ask(MessageScreen("Research-save: not yet", str(exc), footnote="Nothing was written."))
                continue
            places, make = write_job(where, partial(_research, where, request))
            if self.preview_place("research-save", "Research-save", places, make) != "refused":
                return

    def flow_dream(self, space_id: str, rule: str) -> None:
        """The extraction as a draft (e: $EDITOR), then the preview of dream-notes.md and its snapshot."""
        from ..service.spaces_dream import dream_run  # lazy: loaded on first use (opening the screen stays light)

        folder = Path(space_id).parent
        probe = dream_run(str(folder), scope_of(rule))
        plan = self.settled(lambda _p: probe.build()) if self._set(probe.places) else None
        result = plan.result if plan is not None and isinstance(plan.result, dict) else {}
        if plan is None or plan.empty:
            self.ask(
                MessageScreen(
                    "Dream",
                    "nothing to distil: no list item, table cell or research field to extract.",
                    error=False,
                )
            )
            self.finish("dream", "dream: nothing to distil")
            return
        draft = draft_text(result.get("sections", {}))
        notes: str | None = None
        while True:
            answer = self.ask(DraftScreen(draft, result.get("left_out", []), edited=notes is not None))
            if answer is None:
                self.finish("dream", "dream cancelled: nothing written")
                return
            if answer == "edit":
                edited = edit_copy(self.host, draft, "dream-notes.md")
                if edited is not None:
                    draft, notes = edited, edited
                continue
            break
        job = dream_run(str(folder), scope_of(rule), notes)
        self.preview_place("dream", "Dream", job.places, job.build)

    def _set(self, places: Sequence[Any]) -> bool:
        """Make places the ones this flow builds on."""
        self.place, self.places, self.applier = places[0], list(places), None
        return True

    def flow_archive(self, space_id: str, rule: str) -> None:
        """Preview the archive as one plan, and on confirm write it as `space archive` does (a migration first,
        the archive files, then the sources) when the files are still those previewed."""
        from ..core.errors import StalePlan  # lazy: loaded on first use (opening the screen stays light)
        from ..service.spaces_dream import (  # lazy: loaded on first use (opening the screen stays light)
            apply,
            archive_run,
        )

        job = archive_run(str(Path(space_id).parent), scope_of(rule))

        def applier(previewed: Plan) -> None:
            """Write the archive unless its files changed since the preview (then the preview is built again)."""
            fresh = self.settled(lambda _p: job.build())
            if [(c.path, c.before, c.after, c.dest) for c in fresh.changes + fresh.elsewhere] != [
                (c.path, c.before, c.after, c.dest) for c in previewed.changes + previewed.elsewhere
            ]:
                raise StalePlan("the files changed since this preview; review the new plan", fresh)
            apply(job, dry_run=False)

        self.preview_place("archive", "Archive", job.places, job.build, applier)

    def flow_migrate(self, space_id: str, rule: str) -> None:
        """Preview and apply `space migrate` for the space's project (or, for the global space, --global)."""
        from ..service.spaces_migrate import migrate_plan  # lazy: loaded on first use (opening the screen stays light)

        places, make = migrate_plan(str(Path(space_id).parent), scope_of(rule), rule == "global")
        self.preview_place("migrate", "Migrate legacy data", places, make)


# -- the hierarchy workspace --------------------------------------------------------------------------------


class HierarchyFlows(SpaceFlows):
    """The Hierarchy screen's changing keys: a fact's value, the todos, today's log; each previewed exactly, with
    the builders the facts and hierarchy commands run (service/facts.py, service/hierarchy.py)."""

    def _workspace(self, workspace: Path) -> list[Any]:
        """The workspace as the one place its plans are built and applied on."""
        from ..core.files.places import workspace_tree  # lazy: loaded on first use (opening the screen stays light)

        return [workspace_tree(workspace.resolve())]

    def _unchanged(self, previewed: Plan, make: Callable[[], Plan]) -> None:
        """StalePlan with the plan built again when the files changed since the preview (nothing written)."""
        from ..core.errors import StalePlan  # lazy: loaded on first use (opening the screen stays light)

        fresh = self.settled(lambda _p: make())
        if [(c.path, c.before, c.after) for c in fresh.changes] != [
            (c.path, c.before, c.after) for c in previewed.changes
        ]:
            raise StalePlan("the files changed since this preview; review the new plan", fresh)

    def flow_set(self, workspace: Path, key: str, value: str) -> None:
        """A form with the fact's value, then the preview of `facts set` (the value and Last updated)."""
        from ..service.facts import set_plan  # lazy: loaded on first use (opening the screen stays light)

        places = self._workspace(workspace)
        answer = self.ask(TextForm(f"facts set {key}", "the new value (one line)", value))
        if answer is None or answer == value:
            self.finish("facts set", "facts set: nothing changed, nothing written")
            return
        self.preview_place("facts set", f"facts set {key}", places, partial(set_plan(key, answer), places[0]))

    def flow_todo(self, workspace: Path, which: str | None, text: str) -> None:
        """Mark the selected todo done (`- [x] TEXT` appended to today's log, then the item removed, as `facts todo
        done` writes it), or add one; previewed first."""
        from ..service.facts import (  # lazy: loaded on first use (opening the screen stays light)
            todo_add_plan,
            todo_done_plan,
            todo_done_run,
        )

        places = self._workspace(workspace)
        place = places[0]
        if which is not None:
            if self.ask(TextForm("Todo done", "enter marks it done and moves it to today's log", text)) is None:
                self.finish("todo", "todo cancelled: nothing written")
                return
            make = partial(todo_done_plan(which), place)

            def applier(previewed: Plan) -> None:
                """Write the todo done as the command does, once the files are still those previewed."""
                self._unchanged(previewed, make)
                todo_done_run(place, which)

            self.preview_place("todo", "Todo done", places, make, applier)
            return
        answer = self.ask(TextForm("Add a todo", "the todo (one line)", ""))
        if not answer:
            self.finish("todo", "todo cancelled: nothing written")
            return
        self.preview_place("todo", "Add a todo", places, partial(todo_add_plan(answer), place))

    def flow_log(self, workspace: Path) -> None:
        """A line for today's daily log, then the preview of the append; written as `hierarchy log` writes it
        (an append under the workspace's lock: a line OpenClaw appends meanwhile is kept)."""
        from ..core.files.places import assemble  # lazy: loaded on first use (opening the screen stays light)
        from ..core.hierarchy.appendlog import append_log  # lazy: loaded on first use (opening the screen stays light)
        from ..core.hierarchy.plans import plan_log  # lazy: loaded on first use (opening the screen stays light)
        from ..core.secrets import refuse_secrets  # lazy: loaded on first use (opening the screen stays light)
        from ..service.hierarchy import local_today  # lazy: loaded on first use (opening the screen stays light)

        places = self._workspace(workspace)
        answer = self.ask(TextForm("Append to today's log", "the text appended to memory/<today>.md", ""))
        if not answer:
            self.finish("log", "log cancelled: nothing written")
            return
        refuse_secrets({"text": answer}, False)
        day = local_today().isoformat()

        def make() -> Plan:
            """The append on the log as read now."""
            planned = plan_log(places[0].read, answer, day)
            plan = assemble("hierarchy log", None, places, planned.changes)
            plan.report.extend(planned.done)
            return plan

        def applier(previewed: Plan) -> None:
            """Append as the command does, once the log is still the one previewed."""
            self._unchanged(previewed, make)
            append_log(places[0], answer, day)

        self.preview_place("log", "Append to today's log", places, make, applier)

    def flow_migrate_hot(self, workspace: Path) -> None:
        """`hierarchy migrate`: the proposed plan as a table (k f p d K decide each line), then the preview of the
        whole migration as decided, applied as `hierarchy migrate --apply` applies it once the files are still
        those previewed."""
        from ..core.files.places import assemble  # lazy: loaded on first use (opening the screen stays light)
        from ..service.hierarchy_migrate import (  # lazy: loaded on first use (opening the screen stays light)
            apply_write,
            plan_result,
        )

        places = self._workspace(workspace)
        decided = self.ask(MigrationScreen(plan_result(workspace)))
        if decided is None:
            self.finish("migrate", "migrate cancelled: nothing written")
            return

        def make() -> Plan:
            """The migration's writes as one plan (its dry run)."""
            dry = apply_write(workspace, decided, dry_run=True)
            changes = [c for w in dry.writes for c in w.plan.changes]
            plan = assemble("hierarchy migrate", None, places, changes)
            plan.report.extend(dry.done)
            return plan

        def applier(previewed: Plan) -> None:
            """Apply the decided plan as the command does, once the files are still those previewed."""
            self._unchanged(previewed, make)
            apply_write(workspace, decided, dry_run=False)

        self.preview_place("migrate", "Migrate MEMORY.md", places, make, applier)


class TextForm(FormScreen[str | None]):
    """A one-line input: enter or ctrl+s previews, escape closes."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("update")

    def __init__(self, title: str, hint: str, value: str) -> None:
        """The form under title, with hint and the value to start from."""
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value

    def compose(self) -> ComposeResult:
        """Title, hint, the input, the buttons."""
        with Vertical(id="update-dialog"):
            yield Label(self.title_text, id="update-title")
            yield Static(self.hint, id="update-hint")
            yield Input(self.value, id="text-form-input", compact=True)
            with Horizontal(id="update-buttons"):
                yield Button("Preview (enter)", variant="success", id="preview", compact=True)
                yield Button("Close (esc)", variant="error", id="close", compact=True)
        yield KeyBar("update")

    def on_mount(self) -> None:
        """Focus the input."""
        self.query_one(Input).focus()

    def action_preview(self) -> None:
        """Hand the text to the flow."""
        self.dismiss(self.query_one(Input).value)

    def action_cancel(self) -> None:
        """Close: nothing is written."""
        self.dismiss(None)


class MigrationScreen(ModalScreen[dict[str, Any] | None]):
    """The migration plan as a table: each non-blank line of MEMORY.md with its destination; k f p d set it, K its
    key and value, enter previews the whole plan as decided, escape closes (nothing written)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("migration")

    def __init__(self, plan: dict[str, Any]) -> None:
        """The proposed plan (hierarchy migrate --plan's data)."""
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        """Title, the table of lines, the keys."""
        from textual.widgets import DataTable  # lazy: loaded on first use (opening the screen stays light)

        with Vertical(id="preview-dialog"):
            lines = self.plan["memory_md"]["lines"]
            yield Label(f"Migrate MEMORY.md ({lines} lines): where each line goes", id="preview-title")
            table: DataTable[str] = DataTable(id="migration-table", cursor_type="row", zebra_stripes=True)
            yield table
        yield KeyBar("migration")

    def on_mount(self) -> None:
        """Fill the table."""
        from textual.widgets import DataTable  # lazy: loaded on first use (opening the screen stays light)

        table = self.query_one(DataTable)
        table.add_columns("n", "to", "key", "value", "line", "why")
        for item in self.plan["lines"]:
            table.add_row(*self.cells(item), key=str(item["n"]))
        table.focus()

    @staticmethod
    def cells(item: dict[str, Any]) -> tuple[str, ...]:
        """A plan line's cells."""
        return (
            str(item["n"]),
            str(item.get("to") or ""),
            str(item.get("key") or ""),
            str(item.get("value") or ""),
            str(item["text"]),
            str(item.get("why") or ", ".join(item.get("found") or [])),
        )

    def _current(self) -> dict[str, Any] | None:
        """The plan line under the cursor."""
        from textual.widgets import DataTable  # lazy: loaded on first use (opening the screen stays light)

        table = self.query_one(DataTable)
        if not self.plan["lines"]:
            return None
        return self.plan["lines"][table.cursor_row]

    def _redraw(self, item: dict[str, Any]) -> None:
        """Show a changed line."""
        from textual.widgets import DataTable  # lazy: loaded on first use (opening the screen stays light)

        table = self.query_one(DataTable)
        for column, value in zip(table.columns, self.cells(item)):
            table.update_cell(str(item["n"]), column, value)

    def action_to(self, where: str) -> None:
        """Send the line to keep, facts, a project (its name asked) or the daily log."""
        item = self._current()
        if item is None:
            return
        if where == "project":

            def named(name: str | None) -> None:
                """Set the project once named."""
                if name:
                    item["to"] = f"project:{name.strip()}"
                    self._redraw(item)

            self.app.push_screen(TextForm("Project", "the project's name (a-z 0-9 - _)", ""), named)
            return
        item["to"] = where
        self._redraw(item)

    def action_key(self) -> None:
        """Edit the line's facts key and value (`key = value`)."""
        item = self._current()
        if item is None:
            return

        def edited(text: str | None) -> None:
            """Set key and value from `key = value`."""
            if text and "=" in text:
                key, _, value = text.partition("=")
                item.update({"to": "facts", "key": key.strip() or None, "value": value.strip() or None})
                self._redraw(item)

        start = f"{item.get('key') or ''} = {item.get('value') or ''}"
        self.app.push_screen(
            TextForm("Key and value", "key = value (the value must be text of the line)", start), edited
        )

    def on_data_table_row_selected(self, event: Any) -> None:
        """enter on the table (which takes the key) previews, as the footer says."""
        event.stop()
        self.action_preview()

    def action_preview(self) -> None:
        """Hand the plan as decided to the flow."""
        self.dismiss(self.plan)

    def action_cancel(self) -> None:
        """Write nothing."""
        self.dismiss(None)


def _research(where: Any, request: Any, read: Any) -> Any:
    """research-save's plan on the files as read."""
    from ..service.spaces_write import research_plan  # lazy: loaded on first use (opening the screen stays light)

    return research_plan(where, request, read)


def _many(text: str) -> tuple[str, ...]:
    """A form's repeated option: values separated by `;`."""
    return tuple(part.strip() for part in text.split(";") if part.strip())


def draft_text(sections: dict[str, list[str]]) -> str:
    """The dream's sections as the text `e` edits (and `space dream --from` reads)."""
    out = []
    for name, items in sections.items():
        out.append(f"## {name}\n\n" + "".join(f"- {item}\n" for item in items))
    return "\n".join(out)


# -- the modals ---------------------------------------------------------------------------------------------

RESEARCH_FIELDS = (
    ("topic", "研究主题 topic (required)"),
    ("conclusion", "当前结论 conclusion (required)"),
    ("valid", "是否有效 valid: yes / no / partial / unknown"),
    ("merged", "是否并入主线 merged: yes / no"),
    ("evidence", "关键证据 evidence (several: separate with ;)"),
    ("key_paths", "关键文件与路径 key paths (several: separate with ;)"),
    ("next_step", "下一步 next step"),
    ("tags", "关键词 / 标签 tags (several: separate with ;)"),
    ("context", "work context (empty: the skill's default, branch@name)"),
)


class ResearchForm(FormScreen[dict[str, str] | None]):
    """research-save's form: the skill's fields; ctrl+s or enter previews, escape closes."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("update")

    def __init__(self, values: dict[str, str]) -> None:
        """The form, filled with values (an earlier try)."""
        super().__init__()
        self.values = dict(values)

    def compose(self) -> ComposeResult:
        """Title, one input per field, the buttons."""
        with Vertical(id="update-dialog"):
            yield Label("Research-save: a research entry appended to research.md", id="update-title")
            with VerticalScroll():
                for name, label in RESEARCH_FIELDS:
                    yield Static(label, classes="update-label")
                    yield Input(self.values.get(name, ""), id=f"research-{name}", compact=True)
            with Horizontal(id="update-buttons"):
                yield Button("Preview (ctrl+s)", variant="success", id="preview", compact=True)
                yield Button("Close (esc)", variant="error", id="close", compact=True)
        yield KeyBar("update")

    def on_mount(self) -> None:
        """Focus the first field."""
        self.query_one("#research-topic", Input).focus()

    def action_preview(self) -> None:
        """Hand the fields to the flow."""
        self.dismiss({name: self.query_one(f"#research-{name}", Input).value for name, _ in RESEARCH_FIELDS})

    def action_cancel(self) -> None:
        """Close: nothing is written."""
        self.dismiss(None)


class DraftScreen(ModalScreen[str | None]):
    """The dream's draft (the extraction, or the person's edit of it): enter previews, e edits, escape cancels."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("draft")

    def __init__(self, draft: str, left_out: list[dict[str, str]], edited: bool = False) -> None:
        """Show draft (and the candidates the extraction left out)."""
        super().__init__()
        self.draft = draft
        self.left_out = left_out
        self.edited = edited

    def compose(self) -> ComposeResult:
        """Title, the draft, what was left out, the buttons."""
        lines = [ViewLine(line, "section" if line.startswith("## ") else "text") for line in self.draft.splitlines()]
        if self.left_out:
            lines += [ViewLine(""), ViewLine(f"left out ({len(self.left_out)}):", "muted")]
            lines += [ViewLine(f"  {o['section']}: {o['item']} ({o['why']})", "muted") for o in self.left_out]
        with Vertical(id="preview-dialog"):
            what = (
                "your edit (written as notes, shape checked)"
                if self.edited
                else "extraction: verbatim items, not distilled"
            )
            yield Label(f"Dream draft · {what}", id="preview-title")
            yield LineView(lines, id="preview-body")
            with Horizontal(id="preview-buttons"):
                yield Button("Preview (enter)", variant="success", id="confirm", compact=True)
                yield Button("Edit (e)", variant="primary", id="edit", compact=True)
                yield Button("Cancel (esc)", variant="error", id="cancel", compact=True)
        yield KeyBar("draft")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons do what their keys do."""
        event.stop()
        {"confirm": self.action_preview, "edit": self.action_edit}.get(event.button.id or "", self.action_cancel)()

    def action_preview(self) -> None:
        """Preview the dream as drafted."""
        self.dismiss("preview")

    def action_edit(self) -> None:
        """Edit the draft in $EDITOR."""
        self.dismiss("edit")

    def action_cancel(self) -> None:
        """Write nothing."""
        self.dismiss(None)


def refused_text(exc: BaseException) -> str:
    """A refusal's one line."""
    return str(exc) if isinstance(exc, (MemboardError, Refused)) else f"{type(exc).__name__}: {exc}"
