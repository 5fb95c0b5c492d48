"""The config file's usual form read without a TOML parser: `key = "text"`, `key = 12`, `key = true` lines.

memboard's config is a few top-level keys (`memboard config set` writes them so), and importing tomllib costs
a command 3-5 ms (its regular expressions are compiled at import): a hook with `hook_context = "digest"` pays
that on every new chat. `loads` reads a text made only of blank lines, comments and such key lines — bare keys,
each once; strings with no backslash, quote or control character; decimal integers without `+`, `_` or
leading zeros; `true`/`false`; lines ending in `\\n` or `\\r\\n` — to what tomllib gives for it, and answers
None for anything else (a table, an escape, a float, a date, an error…), which the caller then gives to
tomllib. tests/unit/test_unit_settings.py checks it against tomllib.
"""

from __future__ import annotations

import re

# (control characters, which TOML allows in no comment or basic string, but a comment's tab)
KEY_LINE = re.compile(
    r'[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(?:"([^"\\\x00-\x1f\x7f]*)"|(-?(?:0|[1-9][0-9]{0,17}))|(true|false))'
    r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
)
OTHER_LINE = re.compile(r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")  # a blank line or a comment


def loads(text: str) -> dict[str, object] | None:
    """The keys of text when it holds only blank lines, comments and simple key lines (as tomllib reads them);
    None when it holds anything else."""
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        return None  # (a CR not followed by LF: tomllib's error)
    out: dict[str, object] = {}
    for line in text.split("\n"):
        match = KEY_LINE.fullmatch(line)
        if match is None:
            if OTHER_LINE.fullmatch(line) is None:
                return None
            continue
        key, string, number, boolean = match.groups()
        if key in out:
            return None  # (a key given twice: tomllib's error)
        out[key] = string if string is not None else int(number) if number is not None else boolean == "true"
    return out
