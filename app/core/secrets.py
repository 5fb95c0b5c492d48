"""A credential scanner: memory files must never store keys, tokens or passwords.

Every write that carries user or agent text runs `refuse_secrets` over that text first; a
match raises `SecretFound` (a MemboardError, so the CLI and the board refuse with one line)
naming where it is and what kind it is, with the value masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import MemboardError

ALLOW_HINT = "pass --allow-secrets to write it anyway"

# (kind, pattern). The first group of a pattern, when present, is the value to mask.
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private key", re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----")),
    ("AWS access key", re.compile(r"\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b")),
    ("GitHub token", re.compile(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,})\b")),
    ("GitHub token", re.compile(r"\b(github_pat_[A-Za-z0-9_]{30,})\b")),
    ("Slack token", re.compile(r"\b(xox[abposr]-[A-Za-z0-9-]{10,})\b")),
    ("Anthropic API key", re.compile(r"\b(sk-ant-[A-Za-z0-9_-]{20,})")),
    ("OpenAI API key", re.compile(r"\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})")),
    ("Google API key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})")),
    ("JSON Web Token", re.compile(r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})")),
    ("bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)")),
    (
        "credential assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?key|auth[_-]?token|token)"
            r"\s*[:=]\s*[\"']?([^\s\"'`,;|]{4,})"
        ),
    ),
]

# Values that look like assignments but are not credentials (placeholders and prose).
PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^>]*>|\$\{?[A-Z_][A-Z0-9_]*\}?|\*+|x+|\.\.\.+|none|null|true|false|redacted|"
    r"changeme|example|placeholder|env|os\.environ.*|getenv.*|secrets?\..*)$"
)


@dataclass(frozen=True)
class SecretMatch:
    """One credential-looking value: where (label and 1-based line), what kind, masked."""

    label: str
    line: int
    kind: str
    masked: str

    def describe(self) -> str:
        """`summary line 1: OpenAI API key sk-p***(40 chars)`."""
        return f"{self.label} line {self.line}: {self.kind} {self.masked}"


class SecretFound(MemboardError):
    """The text to write holds a credential; nothing was written."""

    def __init__(self, matches: list[SecretMatch]):
        """Build the one-line refusal from the matches."""
        self.matches = matches
        first = matches[0].describe()
        more = f" (and {len(matches) - 1} more)" if len(matches) > 1 else ""
        super().__init__(f"refusing to write a credential into memory: {first}{more}; {ALLOW_HINT}")


PUBLIC_PREFIX_KINDS = {"AWS access key", "GitHub token", "Slack token", "Anthropic API key", "OpenAI API key", "Google API key", "JSON Web Token"}


def mask(value: str, kind: str = "") -> str:
    """Hide a secret: token kinds keep their public 4-character prefix, others show only a length."""
    keep = 4 if kind in PUBLIC_PREFIX_KINDS and len(value) >= 12 else 0
    return f"{value[:keep]}***({len(value)} chars)"


def scan(text: str, label: str = "text") -> list[SecretMatch]:
    """Every credential-looking value in text, line by line, with values masked."""
    out: list[SecretMatch] = []
    if not text:
        return out
    for number, line in enumerate(text.splitlines(), start=1):
        taken: list[tuple[int, int]] = []
        for kind, pattern in PATTERNS:
            for m in pattern.finditer(line):
                start, end = m.span(1) if m.groups() else m.span()
                if any(s < end and start < e for s, e in taken):
                    continue
                value = m.group(1) if m.groups() else m.group(0)
                if kind == "credential assignment" and not _credential_value(m.group(0), value):
                    continue
                taken.append((start, end))
                shown = "-----BEGIN ... PRIVATE KEY----- block" if kind == "private key" else mask(value, kind)
                out.append(SecretMatch(label, number, kind, shown))
    return out


def _credential_value(assignment: str, value: str) -> bool:
    """Whether an assigned value looks like a real credential rather than prose or a placeholder.

    `password = hunter` (an `=` assignment) counts; `Password: required` (a plain word after
    a colon) and short numbers (`token: 4096`) do not; placeholders such as `<token>`,
    `$TOKEN` or `***` never do.
    """
    if PLACEHOLDER.match(value) or value[0] in "$%{<":
        return False
    if value.isdigit() and len(value) < 8:
        return False
    if "=" in assignment:
        return True
    return not (value.isalpha() and (value.islower() or value.istitle()))


def refuse_secrets(fields: dict[str, str | None], allow: bool = False) -> None:
    """Raise SecretFound when any field's text holds a credential (unless allowed)."""
    if allow:
        return
    matches: list[SecretMatch] = []
    for label, text in fields.items():
        if text:
            matches += scan(text, label)
    if matches:
        raise SecretFound(matches)
