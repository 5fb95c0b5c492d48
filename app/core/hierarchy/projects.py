"""Which `memory/project-*.md` files facts.yaml's `projects` group lists: one rule for lint (`project_unlisted`)
and for the migration that creates project files (it adds the entry lint would ask for)."""

from __future__ import annotations


def project_name(rel: str) -> str:
    """The project's name in a `memory/project-<name>.md` path."""
    return rel.removeprefix("memory/project-").removesuffix(".md")


def entry_key(rel: str) -> str:
    """The `projects` key a project file gets (`-` as `_`, the seed's keys)."""
    return project_name(rel).replace("-", "_")


def _norm(path: str) -> str:
    """A workspace-relative path compared loosely (`./` and outer `/` dropped)."""
    return path.strip().removeprefix("./").rstrip("/")


def project_listed(entries: dict[str, tuple[str | None, int]], rel: str) -> bool:
    """Whether the `projects` entries (name → (its `file`, line)) list the project file rel: by name, by the name
    with `_` for `-`, or by a `file` naming it."""
    name = project_name(rel)
    if name in entries or entry_key(rel) in entries:
        return True
    return any(file is not None and rel in (_norm(file), "memory/" + _norm(file)) for file, _ in entries.values())
