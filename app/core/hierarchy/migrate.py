"""`hierarchy migrate` and `hierarchy verify`: seed 004's five migration steps as one decided plan (issue 25 §3).

Sorting prose into facts, rules and narrative is judgement, so memboard only *proposes* by explicit
rules (`propose`): every non-blank line of MEMORY.md once, in order, with where it should go; a person
or an agent edits the plan; `planned` then checks the decision against MEMORY.md as it is and turns
it into file changes in the seed's order (the migration copy and the applied plan, facts.yaml, the
project files and the daily log, the lookup rows, MEMORY.md last). Whatever an earlier, stopped run
already wrote is found and not written again, so applying the same plan twice finishes the first.
`verify` is the seed's checklist over the workspace as it is. Pure: the workspace's files come in
through `read` (relative path -> bytes or None), changes go out as exact bytes before and after.

The plan's YAML is written here, not by ruamel.yaml: the format is one flow mapping per line inside a
block sequence under a fixed header comment, with `text` always double-quoted and the other values plain
only when YAML 1.2 and 1.1 readers both read them back as the same string (facts.render's rule, applied
to flow context). ruamel.yaml's emitter picks line breaks, flow/block style and quoting by its own
width and style heuristics (it wraps long flow mappings and quotes by YAML 1.2 rules only), so it
cannot give this exact, deterministic shape; it is used to *read* plans (YAML 1.2, JSON included).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import Refused, UsageError
from ..plan import Change
from . import daily, facts, hot, lookup
from .projects import entry_key, project_listed

Read = Callable[[str], bytes | None]
HOT_FILE = "MEMORY.md"
FACTS_FILE = "memory/facts.yaml"
MIGRATIONS_DIR = "memory/migrations"
HEADER = "# memboard hierarchy migration plan — set `to`, `key`, `value`; then: memboard hierarchy migrate --apply FILE"
FACTS_HEADER = (
    "# memory/facts.yaml\n# Structured factual data — directly addressable, token-efficient\n# Last updated: {today}\n"
)
_IMPERATIVE = re.compile(r"\b(?:always|never|do not|don't|don’t|must|should)\b|总是|不要|必须|禁止|务必", re.IGNORECASE)
_RULES_HEADING = re.compile(r"\b(?:rules?|permissions?|boundar(?:y|ies))\b|规则|权限", re.IGNORECASE)
# `Label: value` (a list marker and bold around the label allowed); an ASCII colon needs a space after it
_LABELLED = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?P<label>[^\s:：*_`|#>\[][^:：*`|]{0,39}?)(?:\*\*|__)?"
    r"\s*(?::(?:\*\*|__)?\s+|：(?:\*\*|__)?\s*)(?P<value>\S.*?)\s*$"
)
_GROUP = {hot.EMAIL: "identity", "phone": "identity", "handle": "identity", hot.PATH: "paths", hot.STATUS: "projects"}
_PROJECT = re.compile(r"project:([a-z0-9_-]+)\Z")
TOS = ("keep", "facts", "daily")


# --- the proposal ---------------------------------------------------------------------------------------


def sha256(data: bytes) -> str:
    """The hex SHA-256 of MEMORY.md's bytes (what a plan was made from)."""
    return hashlib.sha256(data).hexdigest()


def snake(label: str) -> str:
    """A label as a key segment: lower case, runs of other characters than letters and digits as `_`."""
    return re.sub(r"[^\w]+", "_", label.strip().lower()).strip("_")


def labelled(line: str) -> tuple[str, int, str] | None:
    """The (label, value start, value) of a `Label: value` line (the value without a final `.` or `。`)."""
    m = _LABELLED.match(line)
    if m is None or len(m.group("label").split()) > 5:
        return None
    value = m.group("value")
    if value.endswith((".", "。")):
        value = value[:-1].rstrip()
    if not value or not snake(m.group("label")):
        return None
    return m.group("label").strip(), m.start("value"), value


def propose_line(line: str, under_rules: bool) -> dict[str, Any]:
    """The proposal for one non-blank line not a heading or pointer (the rules in issue 25 §3's order)."""
    found = hot.line_facts(line)
    out: dict[str, Any] = {}
    if found:
        out["found"] = list(dict.fromkeys(m.kind for m in found))
    if _IMPERATIVE.search(line) or under_rules:
        return {**out, "to": "keep", "why": "rule"}
    if found:
        shaped = labelled(line)
        # the match is the value's (`Email: a@b`), or a status or todo marker in the label (`TODO: x`); a
        # match in the label alone (`2026-05-30: rotated the keys`) is no label but the fact itself
        in_value = [m for m in found if shaped is not None and m.start >= shaped[1]]
        marker = [m for m in found if m.kind in (hot.STATUS, hot.TODO)]
        if shaped is not None and (in_value or marker):
            label, _at, value = shaped
            kind = (in_value or marker)[0].kind
            key = "todos" if kind == hot.TODO else f"{_GROUP.get(kind, 'misc')}.{snake(label)}"
            return {**out, "to": "facts", "key": key, "value": value}
        return {**out, "to": "facts", "key": None, "value": None}
    return {**out, "to": "keep", "why": "narrative"}


def hot_text(data: bytes) -> str:
    """MEMORY.md's text; refused in one line when it is not UTF-8 (a plan quotes its lines exactly)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise Refused(f"MEMORY.md is not UTF-8 (line {line}); nothing written") from None


def propose(data: bytes, date: str) -> dict[str, Any]:
    """The migration plan proposed for MEMORY.md's bytes, as data: memory_md, date, lines."""
    text = hot_text(data)
    lines = hot.lines_of(text)
    heads = {i: (level, h) for i, level, h in hot.headings(lines)}
    out: list[dict[str, Any]] = []
    open_heads: list[tuple[int, bool]] = []  # the headings a line is under: (level, about rules or permissions)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        item: dict[str, Any] = {"n": i + 1, "text": line}
        under_rules = any(rules for _level, rules in open_heads)
        if i in heads:
            level, heading = heads[i]
            open_heads = [h for h in open_heads if h[0] < level]
            open_heads.append((level, _RULES_HEADING.search(heading) is not None))
            item.update({"to": "keep", "why": "heading"})
        elif hot.pointer_of(line) is not None:
            item.update({"to": "keep", "why": "pointer"})
        else:
            item.update(propose_line(line, under_rules))
        out.append(item)
    return {"memory_md": {"path": HOT_FILE, "sha256": sha256(data), "lines": len(lines)}, "date": date, "lines": out}


def _scalar(value: Any) -> str:
    """A plan value in flow context: null, an integer, plain text when every reader reads it back, else quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_scalar(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if facts.DECIMAL.match(text) or not facts.plain_ok(text, "value", flow=True):
        return facts.double_quoted(text)
    return text


def dump_yaml(plan: dict[str, Any]) -> str:
    """The plan as its YAML: the header comment, memory_md, date, then one flow mapping per line."""
    out = [
        HEADER,
        f"memory_md: {_scalar(plan['memory_md'])}",
        f"date: {plan['date'] if daily.real_date(str(plan['date'])) else _scalar(plan['date'])}",
        "lines:",
    ]
    for item in plan["lines"]:
        cells = [
            f"{k}: {facts.double_quoted(v) if k == 'text' else _scalar(v)}" for k, v in item.items() if k != "text"
        ]
        cells.insert(1, f"text: {facts.double_quoted(item['text'])}")
        out.append("  - {" + ", ".join(cells) + "}")
    if not plan["lines"]:
        out[-1] = "lines: []"
    return "\n".join(out) + "\n"


def dump_json(plan: dict[str, Any]) -> str:
    """The plan as JSON (which is YAML too)."""
    return json.dumps(plan, ensure_ascii=False, indent=2) + "\n"


# --- reading a decided plan -----------------------------------------------------------------------------


@dataclass
class Fact:
    """One fact a plan moves: the plan line it comes from, its key, value and whether it may replace."""

    n: int
    key: str
    value: str
    replace: bool = False


@dataclass
class Decided:
    """A plan checked against MEMORY.md: its date, the destination of each line, the facts it moves."""

    date: str
    sha: str
    to: dict[int, str] = field(default_factory=dict)  # line n -> keep|facts|daily|project:<name>
    kept: dict[int, str] = field(default_factory=dict)  # line n -> text, of the lines kept on purpose
    facts: list[Fact] = field(default_factory=list)
    moved: dict[str, list[str]] = field(default_factory=dict)  # project:<name>|daily -> lines, in order


def load(data: bytes) -> dict[str, Any]:
    """A plan file's data (YAML 1.2 or JSON); a one-line refusal when it is no plan."""
    # lazy: ruamel.yaml is loaded only to read a plan back, not by --plan's proposal
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError  # lazy: as above

    try:
        plan = YAML(typ="safe", pure=True).load(data.decode("utf-8-sig"))
    except (YAMLError, UnicodeDecodeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Refused(f"the plan is not YAML: {first}; nothing written") from None
    if not isinstance(plan, dict) or not isinstance(plan.get("lines"), list):
        raise Refused("the plan has no `lines` list; nothing written")
    md = plan.get("memory_md")
    if not isinstance(md, dict) or not isinstance(md.get("sha256"), str):
        raise Refused("the plan has no memory_md.sha256; nothing written")
    date = str(plan.get("date", ""))
    if not daily.real_date(date):
        raise Refused(f"the plan's date {date!r} is no real date YYYY-MM-DD; nothing written")
    plan["date"] = date
    return plan


def _text(value: Any) -> str | None:
    """A plan value as text (an integer as its digits; null as None)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _fact(n: int, text: str, entry: Any, what: str) -> Fact:
    """One fact of a plan line (the line's own, or one of its `also`), checked."""
    if not isinstance(entry, dict):
        raise Refused(f"plan line {n}: {what} is no mapping with key and value; nothing written")
    key, value = _text(entry.get("key")), _text(entry.get("value"))
    if not key or value is None or value == "":
        raise Refused(f"plan line {n}: a facts line needs a key and a value ({what}); nothing written")
    try:
        facts.split_path(key)
    except Exception:
        raise Refused(f"plan line {n}: {key!r} is no key path; nothing written") from None
    if value not in text:
        raise Refused(f"plan line {n}: the value {value!r} is not in the line's text; nothing written")
    return Fact(n, key, value, entry.get("replace") is True)


def decide(plan: dict[str, Any], hot_data: bytes) -> Decided:
    """The plan checked against MEMORY.md's bytes: every refusal of issue 25 §3, each naming the plan line
    (an unknown `to` is a usage error, exit 2)."""
    entries = plan["lines"]
    for entry in entries:
        to = entry.get("to") if isinstance(entry, dict) else None
        if not isinstance(to, str) or not (to in TOS or _PROJECT.match(to)):
            n = entry.get("n") if isinstance(entry, dict) else "?"
            raise UsageError(f"plan line {n}: unknown `to` {to!r} (keep, facts, project:<name>, daily)")
    if sha256(hot_data) != plan["memory_md"]["sha256"]:
        raise Refused("MEMORY.md changed since the plan (its SHA-256 differs); make a new plan; nothing written")
    lines = hot.lines_of(hot_text(hot_data))
    want = {i + 1: line for i, line in enumerate(lines) if line.strip()}
    out = Decided(plan["date"], plan["memory_md"]["sha256"])
    for entry in entries:
        n = entry.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n not in want:
            raise Refused(f"plan line {n}: no such non-blank line in MEMORY.md; nothing written")
        if n in out.to:
            raise Refused(f"plan line {n}: repeated; nothing written")
        if entry.get("text") != want[n]:
            raise Refused(f"plan line {n}: its text is not MEMORY.md's line {n}; nothing written")
        to = entry["to"]
        out.to[n] = to
        if to == "keep":
            out.kept[n] = want[n]
        elif to == "facts":
            out.facts.append(_fact(n, want[n], entry, "its key and value"))
        else:
            out.moved.setdefault(to, []).append(want[n])
        also = entry.get("also")
        if also is not None:
            if to != "facts" or not isinstance(also, list):
                raise Refused(f"plan line {n}: `also` is a list of facts on a facts line; nothing written")
            out.facts.extend(_fact(n, want[n], a, "an `also` fact") for a in also)
    missing = [n for n in want if n not in out.to]
    if missing:
        raise Refused(f"MEMORY.md line {missing[0]} is missing from the plan; nothing written")
    _one_value_per_key(out.facts)
    return out


def _one_value_per_key(plan_facts: list[Fact]) -> None:
    """Refuse two facts of the plan at one key with different values: the later one would replace the earlier
    in facts.yaml while MEMORY.md lost both lines (todos is a list: each is an item of its own)."""
    first: dict[str, Fact] = {}
    for fact in plan_facts:
        if fact.key == "todos":
            continue
        seen = first.setdefault(fact.key, fact)
        if seen.value != fact.value:
            raise Refused(
                f"plan line {fact.n}: {fact.key} is also plan line {seen.n}'s key, with another value "
                f"({seen.value!r}); give one of them another key; nothing written"
            )


# --- the changes ----------------------------------------------------------------------------------------


@dataclass
class Planned:
    """A migration's changes in the seed's order (MEMORY.md's last, when it changes) and what they do in words."""

    changes: list[Change] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    hot: Change | None = None  # step 5, kept apart: it is written last, on its own check of the SHA-256

    def all(self) -> list[Change]:
        """Every change, MEMORY.md's last."""
        return self.changes + ([self.hot] if self.hot else [])


def _eol(data: bytes) -> bytes:
    """A file's line end (CRLF when its first line ends so)."""
    at = data.find(b"\n")
    return b"\r\n" if at > 0 and data[at - 1 : at] == b"\r" else b"\n"


def _block(lines: list[str], eol: bytes) -> bytes:
    """Lines joined in a line end, each ending in it."""
    return b"".join(line.encode("utf-8") + eol for line in lines)


def appended(before: bytes | None, block_lines: list[str], eol: bytes) -> bytes | None:
    """before with the block appended (a line end first when missing, an empty line when it has content);
    None when the block is already in it, verbatim."""
    if before is None:
        return _block(block_lines, eol)
    eol = _eol(before) if b"\n" in before else eol
    block = _block(block_lines, eol)
    if block in before or before.endswith(block[: -len(eol)]):
        return None
    tail = before
    if tail and not tail.endswith((b"\n", b"\r")):
        tail += eol
    if tail.strip():
        tail += eol
    return tail + block


def migration_paths(read: Read, old: bytes, date: str) -> tuple[str, str]:
    """Where this migration's copy and plan go: `<date>-MEMORY.md`, or `<date>-K-MEMORY.md` when an earlier
    migration of that day holds other bytes (the same bytes: an earlier stopped run of this one)."""
    k = 1
    while True:
        stem = f"{MIGRATIONS_DIR}/{date}" + (f"-{k}" if k > 1 else "")
        there = read(f"{stem}-MEMORY.md")
        if there is None or there == old:
            return f"{stem}-MEMORY.md", f"{stem}-plan.yaml"
        k += 1


def _hot_after(old: bytes, moved: set[int]) -> bytes:
    """MEMORY.md without the moved lines (whole lines, their line ends too) and with the pointers appended
    when absent; every other byte unchanged."""
    text = old.decode("utf-8", "surrogateescape")
    bom = hot.BOM if text.startswith(hot.BOM) else ""
    parts = [p for p in re.split(r"(?<=\n)|(?<=\r)(?!\n)", text[len(bom) :]) if p]
    kept = "".join(p for i, p in enumerate(parts) if i + 1 not in moved)
    data = (bom + kept).encode("utf-8", "surrogateescape")
    have = hot.pointers(hot.lines_of(kept))
    missing = [p for k, p in (("facts", hot.FACTS_POINTER), ("lookup", hot.LOOKUP_POINTER)) if not have[k]]
    if not missing:
        return data
    eol = _eol(old)
    if data and not data.endswith((b"\n", b"\r")):
        data += eol
    return data + _block(missing, eol)


def _todo_items(parsed: facts.Facts) -> list[str]:
    """The texts of the todos list's items."""
    found = facts.lookup(parsed, ["todos"])
    node = found.node.deref() if found.node is not None else None
    if node is None or node.kind != "seq":
        return []
    return [item.value for item in node.items if item.kind == "scalar"]


def _facts_step(before: bytes | None, decided: Decided, today: str) -> tuple[bytes, list[str]]:
    """facts.yaml with every fact of the plan at its key (created as init creates it when absent); the
    facts already there with the same value are left as they are."""
    import datetime as dt  # lazy: only a migration that writes facts needs dates

    day = dt.date.fromisoformat(today)
    data = before if before is not None else FACTS_HEADER.format(today=today).encode()
    done: list[str] = []
    for fact in decided.facts:
        where = f"plan line {fact.n}"
        try:
            parsed = facts.read(data)
        except facts.FactsInvalid as exc:
            raise Refused(f"memory/facts.yaml: {exc}; nothing written") from None
        if fact.key == "todos":
            if fact.value in _todo_items(parsed):
                continue
            edit = facts.todo_add(data, fact.value, today=day)
        else:
            found = facts.lookup(parsed, facts.split_path(fact.key))
            if found.via or (found.node is not None and found.node.kind == "alias"):
                raise Refused(f"{where}: {fact.key} is reached through an alias in memory/facts.yaml; nothing written")
            node = found.node
            if node is not None and node.kind == "scalar" and node.value == fact.value:
                continue
            if node is not None and node.kind == "scalar" and not fact.replace:
                raise Refused(
                    f"{where}: {fact.key} exists in memory/facts.yaml with another value ({node.value!r}); "
                    "add `replace: true` to that line to replace it; nothing written"
                )
            try:
                edit = facts.set_value(data, fact.key, fact.value, today=day, create=True)
            except Refused as exc:
                raise Refused(f"{where}: {exc}") from None
        if edit.changed:
            data = edit.data
            done.append(f"{fact.key}: {fact.value}")
    return data, done


def _project_entries(data: bytes, created: list[str], today: str) -> tuple[bytes, list[str]]:
    """facts.yaml with a `projects.<name>.file` entry for each project file the migration creates that the
    `projects` group does not list yet (what lint's project_unlisted would ask for)."""
    import datetime as dt  # lazy: only a migration that writes facts needs dates

    done: list[str] = []
    for rel in created:
        try:
            entries = facts.project_entries(facts.read(data))
        except facts.FactsInvalid as exc:
            raise Refused(f"memory/facts.yaml: {exc}; nothing written") from None
        if project_listed(entries, rel):
            continue
        key = f"projects.{entry_key(rel)}.file"
        try:
            edit = facts.set_value(data, key, rel, today=dt.date.fromisoformat(today), create=True)
        except Refused as exc:
            raise Refused(f"the entry of {rel}: {exc}") from None
        if edit.changed:
            data = edit.data
            done.append(f"{key}: {rel}")
    return data, done


def _covered(index_text: str) -> tuple[set[str], set[str]]:
    """The paths and the facts groups the lookup rows target."""
    paths: set[str] = set()
    groups: set[str] = set()
    for row in lookup.parse_index(index_text).rows:
        for t in row.targets:
            path = t.path.strip().removeprefix("./").rstrip("/")
            paths.add(path)
            if t.section and path == FACTS_FILE:
                groups.add(lookup.split_key_path(t.section)[0])
    return paths, groups


def planned(read: Read, plan_bytes: bytes, today: str, projects: list[str]) -> Planned:
    """The migration's changes from the plan file's bytes and the workspace as it is (projects: its
    memory/project-*.md files, relative). Refusals are one line; nothing already written is written again."""
    plan = load(plan_bytes)
    old = read(HOT_FILE)
    if old is None:
        raise Refused("no MEMORY.md in the workspace; nothing written")
    decided = decide(plan, old)
    out = Planned()
    date = decided.date
    eol = _eol(old)
    # 1. the migration copy and the applied plan
    copy, plan_copy = migration_paths(read, old, date)
    if read(copy) is None:
        out.changes.append(Change.write(copy, None, old))
        out.done.append(f"copied MEMORY.md to {copy}")
    there = read(plan_copy)
    if there != plan_bytes:
        out.changes.append(Change.write(plan_copy, there, plan_bytes))
        out.done.append(f"wrote the applied plan to {plan_copy}")
    # 2. facts.yaml
    facts_before = read(FACTS_FILE)
    facts_after, moved_facts = _facts_step(facts_before, decided, today)
    created = [f"memory/project-{to.split(':', 1)[1]}.md" for to in decided.moved if to != "daily"]
    facts_after, listed = _project_entries(facts_after, created, today)
    moved_facts += listed
    if facts_after != facts_before:
        out.changes.append(Change.write(FACTS_FILE, facts_before, facts_after))
        out.done.append(f"{'created' if facts_before is None else 'extended'} {FACTS_FILE} ({len(moved_facts)} facts)")
    # 3. project files and the daily log
    new_projects: list[str] = []
    for to, lines in decided.moved.items():
        if to == "daily":
            rel = daily.log_path(date)
            before = read(rel)
            if before is not None and _block(lines, _eol(before) if b"\n" in before else b"\n") in before:
                continue
            after = daily.appended(before, "\n".join(lines), date)
        else:
            rel = f"memory/project-{to.split(':', 1)[1]}.md"
            new_projects.append(rel)
            before = read(rel)
            after = appended(before, [f"## From MEMORY.md ({date})", *lines], eol)
        if after is not None:
            out.changes.append(Change.write(rel, before, after))
            out.done.append(f"appended {len(lines)} lines to {rel}")
    # 4. the lookup rows
    index_before = read(lookup.LOOKUP_FILE)
    index_text = (index_before or lookup.HEADER.encode()).decode("utf-8", "surrogateescape")
    paths, groups = _covered(index_text)
    for rel in sorted(set(projects) | set(new_projects)):
        if rel not in paths:
            name = rel.removeprefix("memory/project-").removesuffix(".md")
            index_text = lookup.append_row(index_text, f"{name} project", rel)
    for group, _line in facts.groups(facts.read(facts_after)):
        if group not in groups:
            index_text = lookup.append_row(index_text, f"{group} facts", f"{FACTS_FILE} → {group}")
    index_after = index_text.encode("utf-8", "surrogateescape")
    if index_after != index_before:
        out.changes.append(Change.write(lookup.LOOKUP_FILE, index_before, index_after))
        out.done.append(f"{'created' if index_before is None else 'added rows to'} {lookup.LOOKUP_FILE}")
    # 5. MEMORY.md, last
    moved = {n for n, to in decided.to.items() if to != "keep"}
    hot_after = _hot_after(old, moved)
    if hot_after != old:
        out.hot = Change.write(HOT_FILE, old, hot_after)
        out.done.append(f"removed {len(moved)} moved lines from MEMORY.md")
    return out


def hot_step(read: Read, plan_bytes: bytes) -> Planned:
    """Step 5 alone, on a fresh read of MEMORY.md: refused when it changed since the plan (the destinations
    are then written, MEMORY.md is whole; a new plan finishes)."""
    plan = load(plan_bytes)
    old = read(HOT_FILE)
    if old is None or sha256(old) != plan["memory_md"]["sha256"]:
        raise Refused(
            "MEMORY.md changed while the migration wrote its destinations (they are written; MEMORY.md is whole): "
            "make a new plan with `hierarchy migrate --plan` and apply it to finish"
        )
    decided = decide(plan, old)
    moved = {n for n, to in decided.to.items() if to != "keep"}
    after = _hot_after(old, moved)
    out = Planned()
    if after != old:
        out.hot = Change.write(HOT_FILE, old, after)
        out.done.append(f"removed {len(moved)} moved lines from MEMORY.md")
    return out


def already_applied(read: Read, plan_bytes: bytes) -> bool:
    """Whether this plan's migration is finished: a copy of its day holds the plan's MEMORY.md and MEMORY.md
    is what the plan makes of it."""
    plan = load(plan_bytes)
    current = read(HOT_FILE)
    k = 1
    while True:
        old = read(f"{MIGRATIONS_DIR}/{plan['date']}" + (f"-{k}" if k > 1 else "") + "-MEMORY.md")
        if old is None:
            return False
        if sha256(old) == plan["memory_md"]["sha256"]:
            try:
                decided = decide(plan, old)
            except (Refused, UsageError):
                return False
            return current == _hot_after(old, {n for n, to in decided.to.items() if to != "keep"})
        k += 1


# --- verify ---------------------------------------------------------------------------------------------


@dataclass
class Check:
    """One item of the seed's checklist: its name, whether it holds, the offending (or listed) lines."""

    name: str
    ok: bool
    details: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """`{"name", "ok", "details"}`."""
        return {"name": self.name, "ok": self.ok, "details": list(self.details)}


def last_plan(read: Read, names: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The last applied plan among memory/migrations' `*-plan.yaml` names (by date, then its day's number)."""

    def order(rel: str) -> tuple[str, int]:
        stem = rel.rsplit("/", 1)[-1].removesuffix("-plan.yaml")
        date, _, k = stem[:10], stem[10:11], stem[11:]
        return (date, int(k) if k.isdigit() else 1)

    for rel in sorted(names, key=order, reverse=True):
        data = read(rel)
        if data is None:
            continue
        try:
            return rel, load(data)
        except Refused:
            continue
    return None


def verify(read: Read, projects: list[str], plan_names: list[str], hot_max_lines: int) -> list[Check]:
    """The seed's checklist: facts_moved, lookup_covers, hot_has_no_facts, hot_under_80_lines, where_is_x."""
    hot_data = read(HOT_FILE) or b""
    hot_lines = hot.lines_of(hot_data.decode("utf-8", "replace"))
    facts_data = read(FACTS_FILE)
    parsed: facts.Facts | None = None
    if facts_data is not None:
        try:
            parsed = facts.read(facts_data)
        except facts.FactsInvalid:
            parsed = None
    moved, kept = _facts_moved(last_plan(read, plan_names), parsed)
    index_data = read(lookup.LOOKUP_FILE)
    index_text = (index_data or b"").decode("utf-8", "replace")
    fgroups = [g for g, _ in facts.groups(parsed)] if parsed is not None else []
    size = Check("hot_under_80_lines", len(hot_lines) <= hot_max_lines)
    size.details.append(f"MEMORY.md has {len(hot_lines)} lines (limit {hot_max_lines})")
    if not size.ok:
        size.details.append(hot.describe_sections(hot.largest_sections(hot_lines)))
    return [
        moved,
        _lookup_covers(index_data is not None, index_text, projects, fgroups),
        _hot_has_no_facts(hot_lines, kept),
        size,
        _where_is_x(index_text, projects, fgroups),
    ]


def _facts_moved(found: tuple[str, dict[str, Any]] | None, parsed: facts.Facts | None) -> tuple[Check, set[str]]:
    """facts_moved: every fact of the last applied plan is a scalar at its key with its value; and the lines that
    plan kept on purpose."""
    moved = Check("facts_moved", True)
    kept: set[str] = set()
    if found is None:
        moved.details.append("no applied migration plan in memory/migrations/")
        return moved, kept
    rel, plan = found
    for entry in plan["lines"]:
        if not isinstance(entry, dict):
            continue
        if entry.get("to") == "keep" and isinstance(entry.get("text"), str):
            kept.add(entry["text"])
        if entry.get("to") != "facts":
            continue
        pairs = [entry, *(a for a in entry.get("also") or [] if isinstance(a, dict))]
        for p in pairs:
            key, value = _text(p.get("key")), _text(p.get("value"))
            if not key or value is None:
                continue
            if not _at_key(parsed, key, value):
                moved.ok = False
                moved.details.append(f"{rel} line {entry.get('n')}: {key} is not {value!r} in {FACTS_FILE}")
    return moved, kept


def _lookup_covers(exists: bool, index_text: str, projects: list[str], fgroups: list[str]) -> Check:
    """lookup_covers: every project file and facts group has a row."""
    paths, groups = _covered(index_text)
    covers = Check("lookup_covers", True)
    for rel in projects:
        if rel not in paths:
            covers.ok = False
            covers.details.append(f"no lookup row targets {rel}")
    for g in fgroups:
        if g not in groups:
            covers.ok = False
            covers.details.append(f"no lookup row targets the facts group {g}")
    if not exists:
        covers.ok = False
        covers.details.insert(0, f"no {lookup.LOOKUP_FILE}")
    return covers


def _hot_has_no_facts(hot_lines: list[str], kept: set[str]) -> Check:
    """hot_has_no_facts: no fact_in_hot finding except on lines the plan kept on purpose (listed)."""
    clean = Check("hot_has_no_facts", True)
    for i, line in enumerate(hot_lines):
        matches = hot.line_facts(line)
        if not matches:
            continue
        kinds = ", ".join(dict.fromkeys(m.kind for m in matches))
        if line in kept:
            clean.details.append(f"MEMORY.md:{i + 1}: kept on purpose ({kinds}): {line}")
        else:
            clean.ok = False
            clean.details.append(f"MEMORY.md:{i + 1}: {kinds}: {line}")
    return clean


def _where_is_x(index_text: str, projects: list[str], fgroups: list[str]) -> Check:
    """where_is_x: every facts group and project file is reached by `lookup` of its own row's need text."""
    rows = lookup.parse_index(index_text).rows
    where = Check("where_is_x", True)
    wanted = [(rel, None) for rel in projects] + [(FACTS_FILE, g) for g in fgroups]
    for path, group in wanted:
        name = path if group is None else f"{path} → {group}"
        own = [r for r in rows if _targets(r, path, group)]
        if not own:
            where.ok = False
            where.details.append(f"{name}: no row to look it up by")
            continue
        missed: list[str] = []
        for row in own:  # reached when one of its rows' own need finds that row's target first
            best = lookup.matches(rows, row.need)
            if best and _targets(best[0], path, group):
                break
            missed.append(f'lookup "{row.need}" finds {best[0].target if best else "nothing"}, not {name}')
        else:
            where.ok = False
            where.details.extend(missed)
    return where


def _targets(row: lookup.Row, path: str, group: str | None) -> bool:
    """Whether a lookup row targets path (and, for facts, the group)."""
    for t in row.targets:
        p = t.path.strip().removeprefix("./").rstrip("/")
        if p != path:
            continue
        if group is None or (t.section and lookup.split_key_path(t.section)[0] == group):
            return True
    return False


def _at_key(parsed: facts.Facts | None, key: str, value: str) -> bool:
    """Whether facts hold value as a scalar at key (for `todos`: as one of its items)."""
    if parsed is None:
        return False
    if key == "todos":
        return value in _todo_items(parsed)
    try:
        node = facts.lookup(parsed, facts.split_path(key)).node
    except Exception:
        return False
    node = node.deref() if node is not None else None
    return node is not None and node.kind == "scalar" and node.value == value


def render_checks(checks: list[Check]) -> str:
    """The checklist as text: each item ✓ or ✗, its details indented below."""
    out: list[str] = []
    for c in checks:
        out.append(f"{'✓' if c.ok else '✗'} {c.name}")
        out.extend(f"    {d}" for d in c.details)
    return "\n".join(out) + "\n"
