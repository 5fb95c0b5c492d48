"""Doctor's checks of references: both sides of every link (Continues From ↔ Referenced By), and links to
sessions that are archived or gone."""

from __future__ import annotations

from ...errors import MemboardError, Remedy, said
from ...formats.ids import is_valid_id
from ...formats.index import Row, format_refs
from ...formats.layout import session_path
from ...formats.snapshot import add_items, lists_an_id
from ...formats.sources import continues_from
from .checkup import Checkup


def with_source(text: str, src: str) -> str | None:
    """The snapshot text with src added under Continues From, or None when that cannot be
    done so that the snapshot then lists it (a fix that would not hold is not offered)."""
    try:
        fixed = add_items(text, "Continues From", [src])
    except MemboardError:
        return None
    return fixed if src in continues_from(fixed) else None


def source_link(c: Checkup, sid: str, src: str, linkable: set[str], additions: dict[str, list[str]]) -> None:
    """One source a snapshot continues from: one_sided_link when its row does not list the session,
    link_to_archived or link_to_missing (history, nothing to do) when it is no live session."""
    if src in linkable:
        if sid not in c.refs_of(src) and sid not in additions.get(src, []):
            if c.repairs("one_sided_link"):
                additions.setdefault(src, []).append(sid)
            c.add(
                "one_sided_link",
                sid,
                f"continues from {src}, but {src} does not list it in Referenced By",
                f"add {sid} to {src}'s Referenced By",
                src,
            )
    elif src in c.archived or src in c.finishing:
        c.add("link_to_archived", sid, f"continues from archived session {src} (history: nothing to do)", subject=src)
    else:
        c.add(
            "link_to_missing",
            sid,
            f"continues from {src}, which is neither live nor archived (history: nothing to do)",
            subject=src,
        )


def check_continues_from(c: Checkup, linkable: set[str]) -> dict[str, list[str]]:
    """Continues From → Referenced By: sessions each source row must list too (returned, not yet planned)."""
    additions: dict[str, list[str]] = {}
    for sid in [s for s in c.live if s in linkable and s in c.snaps] + sorted(c.restored):
        rel = session_path(sid)
        if rel not in c.new_texts and not lists_an_id(c.root.read(rel) or b""):
            continue  # no ID under Continues From: skip the Markdown parse (1,000 snapshots take seconds)
        for src in c.sources_in(c.snapshot_text(rel) or ""):
            source_link(c, sid, src, linkable, additions)
    return additions


def one_sided_reference(c: Checkup, src: str, ref: str) -> None:
    """one_sided_link: src's row lists ref, whose snapshot does not list src (added when its Markdown allows)."""
    rel = session_path(ref)
    if isinstance(c.new_texts.get(rel), Row):
        # a snapshot this repair creates from its row (missing_snapshot), not yet rendered: it lists under Continues
        # From every live row whose Referenced By lists it (Referrers), src among them: nothing to add, and the
        # 70k texts of a root with few snapshots stay unrendered when nothing applies them
        return
    text = c.snapshot_text(rel) if ref in c.snaps or rel in c.new_texts else None
    if text is None:
        c.add(
            "one_sided_link",
            ref,
            said(
                f"{src} lists it in Referenced By, but it has no snapshot: run ",
                (Remedy.CONTINUE_LINK, f"`memboard continue {src} --as {ref}`", src, ref),
                " to record the link there, or ",
                (Remedy.RELEASE_LINK, f"`memboard release {src} --as {ref}`", src, ref),
                " to drop it",
            ),
            subject=src,
        )
    elif src not in c.sources_in(text):
        fixed = with_source(text, src)
        if fixed is not None and c.repairs("one_sided_link"):
            c.set_text(rel, fixed)
        c.add(
            "one_sided_link",
            ref,
            f"{src} lists it in Referenced By, but its Continues From lacks {src}"
            + ("" if fixed is not None else " (its Markdown keeps memboard from adding it: edit it by hand)"),
            f"add {src} to its Continues From" if fixed is not None else None,
            src,
        )


def reference_to_gone(c: Checkup, src: str, ref: str) -> str:
    """reference_to_archived, reference_to_missing: Referenced By names a session that is no longer live (the
    kind found is returned)."""
    state = "archived" if ref in c.archived or ref in c.finishing else "missing"
    c.add("reference_to_" + state, src, f"Referenced By lists {state} session {ref}", f"remove {ref} from it", ref)
    return "reference_to_" + state


def check_referenced_by(c: Checkup, linkable: set[str], additions: dict[str, list[str]]) -> None:
    """Referenced By → Continues From, and references to sessions that are gone."""
    outside = {r.id for r in c.index.outside}  # (rows outside the table: outside_row moves them in, none is gone)
    for src, row in c.live.items():
        if src in c.finishing:
            continue
        drop = []
        for ref in row.refs:
            if ref in linkable:
                one_sided_reference(c, src, ref)
            elif ref in outside or ref in c.kept_orphans:  # (a snapshot left unrestored is no missing session)
                continue
            elif ref in c.archived or ref in c.finishing or not is_valid_id(ref) or not c.in_table(ref):
                kind = reference_to_gone(c, src, ref)
                if c.repairs(kind):
                    drop.append(ref)
        relink(c, row, drop, additions.pop(src, []))
    for src, added in additions.items():  # the rows restored from orphan snapshots
        c.restored[src]["referenced_by"] = format_refs(c.refs_of(src) + added)


def relink(c: Checkup, row: Row, drop: list[str], added: list[str]) -> None:
    """Plan a row's Referenced By without the dropped sessions and with the added ones."""
    if drop or added:
        c.change_row(row, {"referenced_by": format_refs([r for r in row.refs + added if r not in drop])})


def check_links(c: Checkup) -> None:
    """Both directions of every reference, among the rows this repair leaves live."""
    linkable = {sid for sid in c.live if sid not in c.finishing} | set(c.restored)
    additions = check_continues_from(c, linkable)
    check_referenced_by(c, linkable, additions)
