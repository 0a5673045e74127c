#!/usr/bin/env python3
"""Man pages and shell completions for `ttd`, generated at build time from
the CLI definitions themselves: the CLI11 `--help` of the built executable
and of each subcommand, so they cannot drift from the code.

usage: ttd_cli_docs.py TTD_EXECUTABLE VERSION OUT_DIR
writes OUT_DIR/man/ttd.1, OUT_DIR/man/ttd-<command>.1 (one per subcommand),
       OUT_DIR/completions/ttd.bash (bash) and OUT_DIR/completions/_ttd (zsh)"""

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import List


@dataclass
class Entry:
    names: List[str]       # ["-o", "--output"], or ["TRACE"] for a positional
    value: str             # "TEXT REQUIRED", "UINT ...", "" for a flag
    text: str              # the description

    @property
    def takes_value(self):
        return bool(self.value) and self.value.split()[0] not in ("REQUIRED", "Excludes:", "Needs:")

    @property
    def repeatable(self):
        return "..." in self.value


@dataclass
class Help:
    summary: str = ""
    usage: str = ""
    positionals: List[Entry] = field(default_factory=list)
    options: List[Entry] = field(default_factory=list)
    commands: List[Entry] = field(default_factory=list)
    footer: List[str] = field(default_factory=list)


ENTRY = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


def parse_help(text):
    """CLI11's help layout: summary, Usage:, then Positionals:/Options:/
    Subcommands: sections of two-space-indented entries (descriptions that
    wrap or follow a long name are indented further), then free text."""
    h = Help()
    section = None
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not lines[i].startswith("Usage:"):
        if lines[i].strip():
            h.summary = (h.summary + " " + lines[i].strip()).strip()
        i += 1
    if i < len(lines):
        h.usage = lines[i][len("Usage:"):].strip()
        i += 1
    for line in lines[i:]:
        if line.rstrip() in ("Positionals:", "Options:", "Subcommands:"):
            section = {"Positionals:": h.positionals, "Options:": h.options,
                       "Subcommands:": h.commands}[line.rstrip()]
            continue
        if not line.strip():
            section = None  # a blank line ends a section
            if h.footer and h.footer[-1]:
                h.footer.append("")
            continue
        if section is None:
            h.footer.append(line.rstrip())
            continue
        if line.startswith("   ") and section:
            e = section[-1]
            e.text = (e.text + " " + line.strip()).strip()
            continue
        m = ENTRY.match(line)
        if not m:
            h.footer.append(line.rstrip())
            continue
        left, text = m.group(1), m.group(2) or ""
        first, _, value = left.partition(" ")
        if section is h.positionals:
            names = [first]
        else:
            names = first.split(",")
        section.append(Entry(names, value.strip(), text.strip()))
    while h.footer and not h.footer[-1]:
        h.footer.pop()
    return h


def run_help(ttd, *args):
    r = subprocess.run([ttd, *args, "--help"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"ttd_cli_docs: `{ttd} {' '.join(args)} --help` failed: {r.stderr.strip()}")
    # The usage line names the binary as invoked; the pages say `ttd`.
    return re.sub(r"^Usage: \S+", "Usage: ttd", r.stdout, flags=re.M)


# ---- man pages (roff) ----

def roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def man_entries(entries):
    out = []
    for e in entries:
        names = ", ".join(f"\\fB{roff(n)}\\fR" for n in e.names)
        value = f" \\fI{roff(e.value)}\\fR" if e.value else ""
        out += [".TP", names + value, roff(e.text) or "."]
    return out


def man_page(name, section_title, version, h, see_also):
    title = name.upper()
    out = [f'.TH {roff(title)} 1 "" "ttd {version}" "{section_title}"',
           ".SH NAME", f"{roff(name)} \\- {roff(h.summary)}",
           ".SH SYNOPSIS", f".B {roff(' '.join(name.split('-', 1)))}" if "-" in name else f".B {name}",
           roff(h.usage.split(" ", 2)[2] if name != "ttd" and h.usage.count(" ") >= 2 else
                h.usage.split(" ", 1)[1] if " " in h.usage else ""),
           ".SH DESCRIPTION", roff(h.summary[:1].upper() + h.summary[1:]) + "."]
    if h.positionals:
        out += [".SH ARGUMENTS"] + man_entries(h.positionals)
    if h.options:
        out += [".SH OPTIONS"] + man_entries(h.options)
    if h.commands:
        out += [".SH COMMANDS", "Each command has its own page, \\fBttd\\-\\fIcommand\\fR(1), and \\fB\\-\\-help\\fR."]
        for e in h.commands:
            out += [".TP", f"\\fB{roff(e.names[0])}\\fR", roff(e.text)]
    if h.footer:
        out += [".SH NOTES", ".nf"] + [roff(line) for line in h.footer] + [".fi"]
    out += [".SH EXIT STATUS", "0 on success; non\\-zero on an error, which is reported on standard error "
            "naming the file, offset or argument at fault."]
    out += [".SH SEE ALSO", ",\n".join(f"\\fB{roff(s)}\\fR(1)" for s in see_also)]
    return "\n".join(out) + "\n"


# ---- completions ----

def bash_completion(top, subs):
    lines = ["# bash completion for ttd (generated from `ttd --help` by cmake/ttd_cli_docs.py)",
             "_ttd() {",
             "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i",
             "  for ((i = 1; i < COMP_CWORD; i++)); do",
             "    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac",
             "  done",
             "  local opts= valued=",
             "  case $cmd in"]
    top_opts = " ".join(n for e in top.options for n in e.names)
    lines.append(f"    '') opts='{top_opts}' ;;")
    for name, h in subs:
        opts = " ".join(n for e in h.options for n in e.names)
        valued = " ".join(n for e in h.options if e.takes_value for n in e.names)
        lines.append(f"    {name}) opts='{opts}'; valued=' {valued} ' ;;")
    cmds = " ".join(name for name, _ in subs)
    lines += ["  esac",
              "  if [[ -n $cmd && $valued == *\" $prev \"* ]]; then",
              "    COMPREPLY=($(compgen -f -- \"$cur\")); return",
              "  fi",
              "  if [[ $cur == -* ]]; then",
              "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
              "  elif [[ -z $cmd ]]; then",
              f"    COMPREPLY=($(compgen -W '{cmds}' -- \"$cur\"))",
              "  else",
              "    COMPREPLY=($(compgen -f -- \"$cur\"))",
              "  fi",
              "}",
              "complete -o filenames -o bashdefault -F _ttd ttd", ""]
    return "\n".join(lines)


def zsh_quote(s):
    # Inside [...] and _describe's descriptions a colon is plain text; brackets are not.
    return s.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "(").replace("]", ")")


def zsh_spec(e):
    desc = zsh_quote(e.text or e.names[-1])
    # The message field ends at a colon: UINT:POSITIVE becomes "uint positive".
    arg = f":{zsh_quote(e.value.split()[0].lower().replace(':', ' '))}:_files" if e.takes_value else ""
    star = "*" if e.repeatable else ""
    if len(e.names) == 1:
        return f"'{star}{e.names[0]}[{desc}]{arg}'"
    excl = "" if star else "(" + " ".join(e.names) + ")"
    return f"'{excl}'{star}{{{','.join(e.names)}}}'[{desc}]{arg}'"


def zsh_completion(top, subs):
    lines = ["#compdef ttd", "# zsh completion for ttd (generated from `ttd --help` by cmake/ttd_cli_docs.py)",
             "_ttd() {", "  local -a commands", "  commands=("]
    lines += [f"    '{name}:{zsh_quote(h.summary)}'" for name, h in subs]
    lines += ["  )", "  if (( CURRENT == 2 )); then",
              "    _describe -t commands 'ttd command' commands", "    _arguments " +
              " ".join(zsh_spec(e) for e in top.options), "    return", "  fi",
              "  local cmd=$words[2]", "  shift words", "  (( CURRENT-- ))", "  case $cmd in"]
    for name, h in subs:
        specs = [zsh_spec(e) for e in h.options] + ["'*:file:_files'"]
        lines.append(f"    {name}) _arguments -s {' '.join(specs)} ;;")
    lines += ["    *) _files ;;", "  esac", "}", '_ttd "$@"', ""]
    return "\n".join(lines)


def main():
    ttd, version, out = sys.argv[1:4]
    top = parse_help(run_help(ttd))
    top.summary = re.sub(r"^ttd: ", "", top.summary)  # NAME says "ttd - ..." already
    if not top.commands:
        sys.exit("ttd_cli_docs: `ttd --help` lists no subcommands")
    subs = [(e.names[0], parse_help(run_help(ttd, e.names[0]))) for e in top.commands]
    os.makedirs(os.path.join(out, "man"), exist_ok=True)
    os.makedirs(os.path.join(out, "completions"), exist_ok=True)

    def write(rel, text):
        path = os.path.join(out, rel)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)  # never a half-written page

    names = [f"ttd-{n}" for n, _ in subs]
    write("man/ttd.1", man_page("ttd", "User Commands", version, top, names))
    for n, h in subs:
        write(f"man/ttd-{n}.1", man_page(f"ttd-{n}", "User Commands", version, h, ["ttd"]))
    write("completions/ttd.bash", bash_completion(top, subs))
    write("completions/_ttd", zsh_completion(top, subs))
    print(f"ttd_cli_docs: {len(subs) + 1} man pages and bash/zsh completions in {out}")


if __name__ == "__main__":
    main()
