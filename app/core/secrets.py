"""A credential scanner: memory files must never store keys, tokens or passwords.

Every write that carries user or agent text runs `refuse_secrets` over that text first; a
match raises `SecretFound` (a MemboardError, so the CLI and the board refuse with one line)
naming where it is and what kind it is, with the value masked.

The rules follow the public default rule set of gitleaks (its token formats, keywords and
allowlisted placeholders) for the credentials people paste into notes: connection strings
with passwords, cloud keys, source-host, package-registry, payment and messaging tokens,
webhook URLs that carry their secret, private key blocks and JWTs. Each rule has literal
keywords checked first (as gitleaks does), so a line runs only the few regexes that can match, and
a rule's regex is compiled the first time a line holds its keywords: a hook that scans an agent
name compiles none.

Invisible characters (Unicode format characters, category Cf: zero-width space, joiners, word
joiner, BOM, soft hyphen, bidi controls, tags) are taken out of a line before it is matched, so
`gh<U+200B>p_…` is the GitHub token it shows as. The text written is the caller's, unchanged (a
refused one is not written at all); a refusal shows the value as matched, masked, and says how
many invisible characters it held.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterator
from functools import cache
from typing import NamedTuple

from .errors import MemboardError

ALLOW_HINT = "pass --allow-secrets to write it anyway"


class Rule:
    """One credential format: its kind, the lowercase keywords that must occur, the pattern (compiled on first use).

    The pattern's first group, when it has one, is the value to mask. (A plain class: a dataclass costs
    the hook's import a millisecond.)
    """

    __slots__ = ("_pattern", "flags", "keywords", "kind", "source")

    def __init__(self, kind: str, keywords: tuple[str, ...], source: str, flags: int = 0):
        """A rule of this kind for lines holding one of keywords, matched by the regex source."""
        self.kind, self.keywords, self.source, self.flags = kind, keywords, source, flags
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (the first line that holds a keyword compiles it)."""
        if self._pattern is None:
            self._pattern = re.compile(self.source, self.flags)
        return self._pattern


def _rule(kind: str, keywords: str, pattern: str, flags: int = 0) -> Rule:
    """A Rule from space-separated keywords and a pattern."""
    return Rule(kind, tuple(keywords.split()), pattern, flags)


END = r"(?![A-Za-z0-9_-])"  # a token ends where its alphabet does
CONNECTION_KIND = "connection string with a password"
ASSIGNMENT_KIND = "credential assignment"
AWS_SECRET_KIND = "AWS secret access key"

RULES: list[Rule] = [
    _rule("private key", "private", r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"),
    # cloud
    _rule("AWS access key", "akia asia abia acca a3t", r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b"),
    _rule(
        AWS_SECRET_KIND,
        "aws secret",
        r"(?i)(?:aws.{0,20}?(?:secret|sk)|secret[_-]?access[_-]?key).{0,20}?[\"']?\s*(?:[:=]|=>)\s*[\"']?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    ),
    _rule("Google API key", "aiza", r"\b(AIza[0-9A-Za-z_-]{35})"),
    _rule("Google OAuth client secret", "gocspx", r"\b(GOCSPX-[A-Za-z0-9_-]{28})" + END),
    _rule("Azure storage account key", "accountkey", r"(?i)\bAccountKey\s*=\s*([A-Za-z0-9+/]{86}==)"),
    _rule("Azure shared access signature", "sig=", r"[?&;]sig=([A-Za-z0-9%+/=]{30,})"),
    _rule(
        "Azure AD client secret",
        "q~",
        r"(?:^|[\\'\"`\s>=:(,)])([a-zA-Z0-9_~.]{3}[0-9]Q~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'\"`\s<),])",
    ),
    _rule("DigitalOcean token", "do_v1 dop_v1 dor_v1 doo_v1", r"\b(do[opr]_v1_[a-f0-9]{64})\b"),
    # source hosts and package registries
    _rule("GitHub token", "ghp_ gho_ ghu_ ghs_ ghr_", r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,})\b"),
    _rule("GitHub token", "github_pat_", r"\b(github_pat_[A-Za-z0-9_]{30,})\b"),
    _rule(
        "GitLab token",
        "glpat- gldt- glrt- glcbt- glimt- glagent- gloas- glft- glsoat- glffct-",
        r"\b((?:glpat|gldt|glrt|glcbt|glimt|glagent|gloas|glft|glsoat|glffct)-[A-Za-z0-9_.-]{20,})" + END,
    ),
    _rule("GitLab token", "glptt-", r"\b(glptt-[0-9a-f]{40})\b"),
    _rule("GitLab token", "gr1348941", r"\b(GR1348941[A-Za-z0-9_-]{20})" + END),
    _rule("npm token", "npm_", r"\b(npm_[A-Za-z0-9]{36})\b"),
    _rule(
        "npm token", "_auth", r"(?i)(?<![A-Za-z0-9])_(?:authToken|auth|password)\s*=\s*[\"']?([^\s\"'$][^\s\"']{7,})"
    ),
    _rule("PyPI token", "pypi-", r"\b(pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,})"),
    _rule("Docker Hub token", "dckr_pat_", r"\b(dckr_pat_[A-Za-z0-9_-]{27,})"),
    _rule("Hugging Face token", "hf_", r"\b(hf_[A-Za-z]{34})\b"),
    _rule("HashiCorp Vault token", "hvs. hvb.", r"\b(hv[sb]\.[A-Za-z0-9_-]{90,})"),
    _rule("Atlassian API token", "atatt3", r"\b(ATATT3[A-Za-z0-9_=-]{186})"),
    _rule("Databricks token", "dapi", r"\b(dapi[a-f0-9]{32}(?:-[0-9])?)\b"),
    # payments and messaging
    _rule("Stripe key", "sk_ rk_", r"\b((?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99})\b"),
    _rule("Stripe webhook secret", "whsec_", r"\b(whsec_[A-Za-z0-9]{32,})\b"),
    _rule(
        "Square token",
        "sq0atp- sq0csp- eaaa",
        r"\b((?:sq0atp|sq0csp)-[A-Za-z0-9_-]{22,43}|EAAA[A-Za-z0-9_-]{60})" + END,
    ),
    _rule("Shopify token", "shpat_ shpca_ shppa_ shpss_", r"\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b"),
    _rule("Slack token", "xox", r"\b(xox[abposre]-[A-Za-z0-9-]{10,})\b"),
    _rule("Slack token", "xapp-", r"\b(xapp-[0-9]-[A-Z0-9]+-[0-9]+-[A-Za-z0-9]+)\b"),
    _rule("Twilio API key", "sk", r"\b(SK[0-9a-fA-F]{32})\b"),
    _rule("SendGrid API key", "sg.", r"\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})" + END),
    _rule("Mailchimp API key", "-us", r"\b([0-9a-f]{32}-us[0-9]{1,2})\b"),
    _rule("Telegram bot token", ":a", r"(?<![0-9])([0-9]{5,16}:A[A-Za-z0-9_-]{34})" + END),
    # webhook URLs that carry their secret
    _rule(
        "Slack webhook URL",
        "hooks.slack.com",
        r"(?:https?://)?hooks\.slack\.com/((?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56})",
    ),
    _rule(
        "Discord webhook URL",
        "discord",
        r"https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/([0-9]{17,20}/[A-Za-z0-9_-]{60,68})",
    ),
    _rule(
        "Microsoft Teams webhook URL",
        "webhook.office.com",
        r"https://[A-Za-z0-9-]+\.webhook\.office\.com/(webhookb2/[A-Za-z0-9@/_-]{40,})",
    ),
    # AI providers
    _rule("Anthropic API key", "sk-ant-", r"\b(sk-ant-[A-Za-z0-9_-]{20,})"),
    _rule("OpenAI API key", "sk-", r"\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})"),
    # generic forms
    _rule("JSON Web Token", "eyj", r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"),
    _rule("bearer token", "bearer", r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)"),
    _rule("basic auth header", "basic", r"(?i)\bauthorization\s*:\s*basic\s+([A-Za-z0-9+/]{12,}={0,2})"),
    _rule(CONNECTION_KIND, "://", r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@\"'`<>]*:([^\s@/\"'`<>]+)@[^\s@/\"'`<>]"),
    _rule(
        ASSIGNMENT_KIND,
        "pass pwd secret key token",
        r"(?i)(?<![A-Za-z0-9])(?:password|passwd|pwd|secret|secret[_-]?key|client[_-]?secret|api[_-]?secret|"
        r"app[_-]?secret|private[_-]?key|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token)"
        r"[\"']?\s*(?::=|=>|[:=])\s*[\"']?([^\s\"'`,;|]{4,})",
    ),
]

# The next two patterns are compiled on first use too, by re's own cache (`re.match(PATTERN, …)`).
# an AWS secret access key written near its access key ID (same text), without a label
AWS_SECRET_NEAR = r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"

# Values that look like assignments but are not credentials (placeholders and prose), after
# gitleaks' global allowlist: variables, templates, format verbs, masks, example words.
PLACEHOLDER = (
    r"(?i)^(?:<[^>]*>|\[[^\]]*\]|\$\{?[A-Z_][A-Z0-9_]*\}?|\{\{.*\}\}|%[A-Z_]+%|%[sdv]|\*+|x+|\.\.\.+|none|null|nil|"
    r"true|false|redacted|hidden|masked|changeme|example|sample|dummy|placeholder|env|os\.environ.*|getenv.*|secrets?\..*|"
    r"password|passwd|pass|pwd|secret|token|user|username)$"
)


class SecretMatch(NamedTuple):
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
        super().__init__(self.refusal(ALLOW_HINT))

    def refusal(self, then: str) -> str:
        """The one-line refusal, ending with what to do next (the command line's hint, or a face's own)."""
        first = self.matches[0].describe()
        more = f" (and {len(self.matches) - 1} more)" if len(self.matches) > 1 else ""
        return f"refusing to write a credential into memory: {first}{more}; {then}"


# kinds whose first characters are a public, fixed prefix (showing them tells the kind, not the secret)
PUBLIC_PREFIX_KINDS = {
    "AWS access key",
    "GitHub token",
    "GitLab token",
    "npm token",
    "PyPI token",
    "Docker Hub token",
    "Stripe key",
    "Stripe webhook secret",
    "Slack token",
    "Twilio API key",
    "SendGrid API key",
    "Anthropic API key",
    "OpenAI API key",
    "Google API key",
    "JSON Web Token",
    "Hugging Face token",
    "Shopify token",
    "DigitalOcean token",
}


def mask(value: str, kind: str = "", note: str = "") -> str:
    """Hide a secret: token kinds keep their public 4-character prefix, others show only a length (and the note)."""
    keep = 4 if kind in PUBLIC_PREFIX_KINDS and len(value) >= 12 else 0
    return f"{value[:keep]}***({len(value)} chars{'; ' + note if note else ''})"


def _placeholder(value: str) -> bool:
    """Whether an assigned value or URL password is a placeholder rather than a credential."""
    return bool(re.match(PLACEHOLDER, value)) or value[0] in "$%{<[" or value.startswith(("os.", "process.env"))


def _credential_value(assignment: str, value: str) -> bool:
    """Whether an assigned value looks like a real credential rather than prose or a placeholder.

    `password = hunter` (an `=` assignment) counts; `Password: required` (a plain word after
    a colon) and short numbers (`token: 4096`) do not; placeholders such as `<token>`,
    `$TOKEN` or `***` never do.
    """
    if _placeholder(value):
        return False
    if value.isdigit() and len(value) < 8:
        return False
    if "=" in assignment:
        return True
    return not (value.isalpha() and (value.islower() or value.istitle()))


def _accepts(kind: str, whole: str, value: str) -> bool:
    """Rule-specific second looks that gitleaks does with allowlists and entropy."""
    if kind == ASSIGNMENT_KIND:
        return _credential_value(whole, value)
    if kind == CONNECTION_KIND:
        return not _placeholder(value)
    return True


def _mixed(token: str) -> bool:
    """Whether a 40-character token mixes upper and lower case letters (no hex hash or word does)."""
    return any(c.islower() for c in token) and any(c.isupper() for c in token)


VISIBLE = set(map(chr, range(128)))  # characters known not to be format characters (ASCII, and those met so far)


def _invisible_in(line: str) -> set[str]:
    """The invisible (Unicode category Cf) characters a line holds (none in an ASCII line)."""
    if line.isascii() or VISIBLE.issuperset(line):  # (isascii takes constant time in CPython: most lines)
        return set()
    found = set()
    for ch in set(line) - VISIBLE:
        if unicodedata.category(ch) == "Cf":
            found.add(ch)
        else:
            VISIBLE.add(ch)
    return found


def _offsets(line: str, ch: str) -> Iterator[int]:
    """Where ch occurs in line."""
    at = line.find(ch)
    while at >= 0:
        yield at
        at = line.find(ch, at + 1)


def _masked(value: str, kind: str, hidden: int) -> str:
    """The value as a refusal shows it (see mask), saying how many invisible characters it held."""
    note = f"{hidden} invisible character{'s' if hidden > 1 else ''} inside" if hidden else ""
    if kind == "private key":
        return "-----BEGIN ... PRIVATE KEY----- block" + (f" ({note})" if note else "")
    return mask(value, kind, note)


Place = Callable[[int, int], tuple[int, int, int]]  # a match's span -> its span in the visible line, invisibles inside


def _plain(start: int, end: int) -> tuple[int, int, int]:
    """The place of a span in a line without invisible characters: itself."""
    return start, end, 0


_PLAIN: Place = _plain


def _visible_place(at: list[int]) -> Place:
    """Where a span of the visible line is, and how many invisible characters (removed at offsets `at`) it held."""
    return lambda start, end: (start, end, sum(1 for pos in at if start < pos < end))


def _raw_place(raw_at: list[int]) -> Place:
    """Where a span of the line as written lies in its visible line (invisible characters at offsets raw_at)."""

    def place(start: int, end: int) -> tuple[int, int, int]:
        before, through = bisect_left(raw_at, start), bisect_left(raw_at, end)
        return start - before, end - through, through - before

    return place


@cache
def _keyword_index() -> tuple[tuple[str, ...], dict[str, tuple[int, ...]]]:
    """Every rule keyword once, and the rules (positions in RULES) each one calls for (worked out on first use)."""
    keywords = tuple(dict.fromkeys(k for rule in RULES for k in rule.keywords))
    return keywords, {k: tuple(i for i, rule in enumerate(RULES) if k in rule.keywords) for k in keywords}


def _scan_line(
    line: str, number: int, label: str, taken: list[tuple[int, int]], place: Place, invisible: set[str]
) -> list[SecretMatch]:
    """The matches of every rule whose keywords occur in one line, except those overlapping a span in taken (spans of
    the visible line: place says where a match lies there; invisible: the characters taken out of it)."""
    out: list[SecretMatch] = []
    lowered = line.lower()
    keywords, rules_of = _keyword_index()
    hits = [k for k in keywords if k in lowered]  # (one look per keyword, not per rule: most lines hold none)
    if not hits:
        return out
    order = rules_of[hits[0]] if len(hits) == 1 else sorted({i for k in hits for i in rules_of[k]})
    for i in order:  # in the order of RULES: an earlier rule's match takes its span first
        rule = RULES[i]
        for m in rule.pattern.finditer(line):
            start, end, hidden = place(*(m.span(1) if m.groups() else m.span()))
            if any(s < end and start < e for s, e in taken):
                continue
            value = m.group(1) if m.groups() else m.group(0)
            if not _accepts(rule.kind, m.group(0), value):
                continue
            taken.append((start, end))
            if hidden:
                value = value.translate(dict.fromkeys(map(ord, invisible)))
            out.append(SecretMatch(label, number, rule.kind, _masked(value, rule.kind, hidden)))
    return out


def scan(text: str, label: str = "text") -> list[SecretMatch]:
    """Every credential-looking value in text, line by line, with values masked.

    A line holding invisible characters is matched without them (a token they split is found whole), then as
    written (where they stand between words, as a space would); a value is reported once."""
    out: list[SecretMatch] = []
    if not text:
        return out
    lines: list[tuple[str, Place]] = []
    spans: list[list[tuple[int, int]]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        invisible = _invisible_in(raw)
        taken: list[tuple[int, int]] = []
        if not invisible:
            out += _scan_line(raw, number, label, taken, _PLAIN, invisible)
            lines.append((raw, _PLAIN))
        else:
            raw_at = sorted(at for ch in invisible for at in _offsets(raw, ch))
            line = raw.translate(dict.fromkeys(map(ord, invisible)))
            place = _visible_place([pos - k for k, pos in enumerate(raw_at)])  # (where each was, in the visible line)
            out += _scan_line(line, number, label, taken, place, invisible)
            out += _scan_line(raw, number, label, taken, _raw_place(raw_at), invisible)
            lines.append((line, place))
        spans.append(taken)
    if any(m.kind == "AWS access key" for m in out):  # its secret key is often pasted right beside it
        for number, (line, place) in enumerate(lines, start=1):
            for m in re.finditer(AWS_SECRET_NEAR, line):
                start, end, hidden = place(*m.span(1))
                if _mixed(m.group(1)) and not any(s < end and start < e for s, e in spans[number - 1]):
                    spans[number - 1].append((start, end))
                    out.append(
                        SecretMatch(label, number, AWS_SECRET_KIND, _masked(m.group(1), AWS_SECRET_KIND, hidden))
                    )
    return sorted(out, key=lambda m: m.line)


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
