"""`memboard completion bash|zsh|fish`: shell completion scripts generated from the argparse parser.

The commands, their options, the options that take a value and the fixed choices are read from
the same parser that runs the command line, so the scripts stay in step with it. Values: a
DIR completes folders, a FILE completes files, choices complete themselves, `config set KEY`
completes the config keys; a Session ID (`show ID`, `--as ID`, `--session ID`) and a note's topic
key (`note show ID`, `--topic-key`) complete from the memory root (the `--root` typed on the line,
else the usual one), which the script asks `memboard completion --list ids|keys` for; free text
completes nothing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from ..core.config import KEYS
from ..core.errors import UsageError
from .args import globals_everywhere
from .parser import build_parser


@dataclass
class Node:
    """One command (the top level is the empty path) as completion sees it."""

    path: str
    help: str = ""
    subcommands: dict[str, Node] = field(default_factory=dict)
    flags: list[tuple[list[str], str, str]] = field(default_factory=list)  # (option strings, value kind, help)
    positionals: list[list[str]] = field(default_factory=list)  # the choices of each positional ([] = any)


DYNAMIC = {"as_id": "ids", "session": "ids", "topic_key": "keys"}  # options whose values the root holds


def _kind(action: argparse.Action) -> str:
    """How an option's value completes: `dir`, `file`, `ids`, `keys`, `words:a b c`, or `` (nothing)."""
    if action.choices:
        return "words:" + " ".join(map(str, action.choices))
    if action.dest in DYNAMIC:
        return DYNAMIC[action.dest]
    metavar = str(action.metavar or "")
    return "dir" if "DIR" in metavar else "file" if "FILE" in metavar else ""


def _positional_choices(action: argparse.Action, path: str) -> list[str]:
    """What a positional completes to: its choices, the config keys for `config KEY`, `@ids` (the root's
    Session IDs) for a session's ID, `@keys` (its topic keys) for a note's."""
    if action.choices:
        return [str(c) for c in action.choices]
    if action.metavar == "KEY" and path.startswith("config"):
        return list(KEYS)
    if action.metavar in ("ID", "SOURCE_ID"):
        return ["@keys"] if path.startswith("note") else ["@ids"]
    return []


def listing(what: str, root_dir: str | None) -> list[str]:
    """The words `completion --list` prints: the root's Session IDs (`ids`) or its notes' topic keys (`keys`)."""
    from ..core import config  # lazy: only a shell asking for words reads a root
    from ..core.files.root import MemoryRoot  # lazy: as config

    root = MemoryRoot(config.resolve_root(root_dir))
    if what == "ids":
        from ..core.ops.query import iter_row_views  # lazy: as config

        return list(dict.fromkeys(r.id for r in iter_row_views(root) if not r.problem))
    from ..core.ops.notes.store import list_notes  # lazy: as config

    return sorted({v.topic_key for v in list_notes(root) if v.topic_key and not v.unreadable})


def describe(parser: argparse.ArgumentParser, path: str = "", help_text: str = "") -> Node:
    """The completion tree of a parser and its subparsers."""
    node = Node(path, help_text)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                node.subcommands[name] = describe(sub, f"{path} {name}".strip(), helps.get(name, ""))
        elif action.option_strings:
            kind = _kind(action) if action.nargs != 0 else "-"
            node.flags.append((list(action.option_strings), kind, action.help or ""))
        else:
            node.positionals.append(_positional_choices(action, path))
    return node


def _walk(node: Node) -> list[Node]:
    """The node and every node below it, parents first."""
    out = [node]
    for sub in node.subcommands.values():
        out += _walk(sub)
    return out


def _case(name: str, arms: list[tuple[str, str]], default: str = "") -> str:
    """A POSIX-style shell function that echoes the arm whose pattern matches "$1:$2"."""
    body = "".join(f'        "{pattern}") echo "{value}" ;;\n' for pattern, value in arms if value)
    return f'{name}() {{\n    case "$1:$2" in\n{body}        *) echo "{default}" ;;\n    esac\n}}\n'


def _tables(root: Node) -> str:
    """The shell functions (valid bash and zsh) that hold the parser's facts."""
    nodes = _walk(root)
    subs = [(f"{n.path}:", " ".join(n.subcommands)) for n in nodes]
    opts = [(f"{n.path}:", " ".join(o for flags, _, _ in n.flags for o in flags)) for n in nodes]
    values = [(f"{n.path}:{o}", kind) for n in nodes for flags, kind, _ in n.flags if kind != "-" for o in flags]
    valued = [(pattern, "yes") for pattern, _ in values]
    positional = [(f"{n.path}:{i}", " ".join(c)) for n in nodes for i, c in enumerate(n.positionals)]
    return (
        _case("_memboard_subcommands", subs)
        + _case("_memboard_options", opts)
        + _case("_memboard_value", values)
        + _case("_memboard_takes_value", valued, "no")
        + _case("_memboard_positional", positional)
    )


# The walk over the words typed so far, shared by bash and zsh: `node` becomes the command path
# ("config set"), `pos` counts the positionals after it, option values are skipped.
_WALK = """    local node="" pos=0 i w root=""
    for ((i = FIRST; i < LAST; i++)); do
        w="${WORDS[i]}"
        if [[ $w == -* ]]; then
            [[ $w == --root ]] && root="${WORDS[i+1]}"
            [[ $(_memboard_takes_value "$node" "$w") == yes ]] && ((i++))
            continue
        fi
        if [[ " $(_memboard_subcommands "$node" "") " == *" $w "* ]]; then
            node="${node:+$node }$w"; pos=0
        else
            ((pos++))
        fi
    done
    local kind=""
    [[ $prev == -* ]] && kind=$(_memboard_value "$node" "$prev")
    local offer="$(_memboard_subcommands "$node" "") $(_memboard_positional "$node" "$pos")"
    [[ $offer == *@ids* ]] && offer="${offer//@ids/$(_memboard_list ids)}"
    [[ $offer == *@keys* ]] && offer="${offer//@keys/$(_memboard_list keys)}"
"""

# What the root holds (Session IDs, topic keys), asked of memboard itself with the --root typed on the line.
_LIST = """_memboard_list() {
    memboard completion --list "$1" ${root:+--root} ${root:+"$root"} 2>/dev/null
}
"""

_BASH = """# bash completion for memboard (generated by `memboard completion bash`)
TABLES
LIST
_memboard() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
WALK    case "$kind" in
        dir|file) compopt -o filenames 2>/dev/null; COMPREPLY=()
            while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen "-${kind:0:1}" -- "$cur")
            return ;;
        words:*) COMPREPLY=($(compgen -W "${kind#words:}" -- "$cur")); return ;;
        ids|keys) COMPREPLY=($(compgen -W "$(_memboard_list "$kind")" -- "$cur")); return ;;
    esac
    if [[ $(_memboard_takes_value "$node" "$prev") == yes ]]; then COMPREPLY=(); return; fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_memboard_options "$node" "")" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$offer" -- "$cur"))
    fi
}
complete -F _memboard memboard
"""

_ZSH = """#compdef memboard
# zsh completion for memboard (generated by `memboard completion zsh`)
TABLES
LIST
_memboard() {
    local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
WALK    case "$kind" in
        dir) _files -/; return ;;
        file) _files; return ;;
        words:*) compadd -- ${=kind#words:}; return ;;
        ids|keys) compadd -- ${(f)"$(_memboard_list $kind)"}; return ;;
    esac
    if [[ $(_memboard_takes_value "$node" "$prev") == yes ]]; then return 1; fi
    if [[ $cur == -* ]]; then
        compadd -- ${=$(_memboard_options "$node" "")}
    else
        compadd -- ${=offer}
    fi
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _memboard "$@"
else
    compdef _memboard memboard
fi
"""


def _fish_quote(text: str) -> str:
    """A fish single-quoted string."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_condition(node: Node) -> str:
    """The fish condition under which a node's own completions apply."""
    if not node.path:
        return "__fish_use_subcommand"
    parts = [f"__fish_seen_subcommand_from {word}" for word in node.path.split()]
    if node.subcommands:
        parts.append("not __fish_seen_subcommand_from " + " ".join(node.subcommands))
    return "; and ".join(parts)


def _fish(root: Node) -> str:
    """The fish script: one `complete` line per command, option and choice."""
    lines = [
        "# fish completion for memboard (generated by `memboard completion fish`)",
        "complete -c memboard -f",
        _FISH_LIST,
    ]
    for node in _walk(root):
        when = f"complete -c memboard -n {_fish_quote(_fish_condition(node))}"
        for name, sub in node.subcommands.items():
            lines.append(f"{when} -a {name} -d {_fish_quote(sub.help)}")
        for flags, kind, help_text in node.flags:
            names = " ".join(f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" for f in flags)
            value = {
                "-": "",
                "": " -x",
                "dir": " -x -a '(__fish_complete_directories)'",
                "file": " -r -F",
                "ids": " -x -a '(__memboard_list ids)'",
                "keys": " -x -a '(__memboard_list keys)'",
            }.get(kind)
            if value is None:
                value = f" -x -a {_fish_quote(kind[len('words:') :])}"
            lines.append(f"{when} {names}{value} -d {_fish_quote(help_text)}")
        for choices in node.positionals[:1]:
            if choices in (["@ids"], ["@keys"]):
                lines.append(f"{when} -a '(__memboard_list {choices[0][1:]})'")
            elif choices:
                lines.append(f"{when} -a {_fish_quote(' '.join(choices))}")
    return "\n".join(lines) + "\n"


_FISH_LIST = """function __memboard_list  # what the root holds, with the --root typed on the line
    set -l words (commandline -opc)
    set -l root
    set -l at (contains -i -- --root $words); and set root --root $words[(math $at + 1)]
    memboard completion --list $argv[1] $root 2>/dev/null
end"""


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for bash, zsh or fish."""
    root = describe(parser)
    if shell == "fish":
        return _fish(root)
    first, words = ("1", "COMP_WORDS") if shell == "bash" else ("2", "words")
    last = "COMP_CWORD" if shell == "bash" else "CURRENT"
    walk = _WALK.replace("FIRST", first).replace("LAST", last).replace("WORDS", words)
    text = (_BASH if shell == "bash" else _ZSH).replace("TABLES", _tables(root)).replace("LIST", _LIST)
    return text.replace("WALK", walk)


def cmd_completion(args: argparse.Namespace) -> int:
    """completion bash|zsh|fish: print the script for that shell; completion --list ids|keys: the words a
    script completes from the root, one a line."""
    if args.list:
        for word in listing(args.list, getattr(args, "root", None)):
            print(word)
        return 0
    if args.shell is None:
        raise UsageError("completion needs a shell: bash, zsh or fish")
    sys.stdout.write(script(args.shell, globals_everywhere(build_parser())))
    return 0
