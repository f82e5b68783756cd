#!/usr/bin/env python3
"""Writes a roff man page (section 1) for a Shelf binary from its own --help output.

    Scripts/help-to-man.py BINARY > NAME.1

The help text is generated from each command's declaration (OVERVIEW, USAGE, OPTIONS,
SUBCOMMANDS and the root's epilogue sections), so the page says what `--help` says.
For a binary with subcommands, every subcommand's help (`BINARY help PATH…`) becomes a
subsection of COMMANDS, without the global options it inherits. The date comes from
SOURCE_DATE_EPOCH when set, so builds are reproducible.
"""
import datetime
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": "/nonexistent"})
    if result.returncode != 0:
        sys.exit(f"help-to-man: {binary} {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def escape(text):
    """Roff-safe text: backslashes, hyphens, and a leading control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def sections(help_text):
    """[(TITLE, [lines])] in order; the lines before the first title belong to ''."""
    result = [("", [])]
    for line in help_text.rstrip("\n").split("\n"):
        match = re.match(r"^([A-Z][A-Z ]+):(?:\s(.*))?$", line)
        if match:
            result.append((match.group(1), [match.group(2)] if match.group(2) else []))
        else:
            result[-1][1].append(line)
    return [(title, lines) for title, lines in result if title or any(l.strip() for l in lines)]


def paragraphs(lines):
    out, current = [], []
    for line in lines + [""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(" ".join(current))
            current = []
    return out


def entries(lines, skip=()):
    """Roff for "  term   description" lines (continuations indented further)."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        match = ENTRY.match(line)
        if match and not line.startswith("   "):
            term, text = match.group(1), match.group(2)
            if term.split(",")[0].split(" ")[0] in skip:
                out.append(None)  # a skipped entry: its continuation lines are skipped too
                continue
            if term.startswith("See "):
                out += [".PP", escape(line.strip())]
                continue
            out += [".TP", "\\fB" + escape(term) + "\\fR"]
            if text:
                out.append(escape(text))
        elif out and out[-1] is None:
            continue
        else:
            out.append(escape(line.strip()))
    return [line for line in out if line is not None]


def preformatted(lines):
    body = [escape(line) for line in lines if line.strip()]
    return [".PP", ".nf"] + body + [".fi"]


def body(help_text, level, skip_options=()):
    """Roff for one help text; level 0 is the page itself, 1 a COMMANDS subsection."""
    out = []
    ordered = sections(help_text)
    if level == 0:  # man's order: SYNOPSIS before DESCRIPTION
        ordered.sort(key=lambda section: section[0] != "USAGE")
    for title, lines in ordered:
        if title == "OVERVIEW":
            # The first line is the abstract (NAME); what follows is the discussion.
            discussion = paragraphs(lines[1:])
            if discussion and level == 0:
                out += [".SH DESCRIPTION"]
            for paragraph in discussion:
                out += [".PP", escape(paragraph)]
        elif title == "USAGE":
            usage = " ".join(l.strip() for l in lines if l.strip())
            out += [".SH SYNOPSIS" if level == 0 else ".PP", "\\fB" + escape(usage) + "\\fR"]
        elif title in ("OPTIONS", "ARGUMENTS", "SUBCOMMANDS", "EXIT CODES", "ENVIRONMENT"):
            rendered = entries(lines, skip_options if title == "OPTIONS" else ())
            if not rendered:
                continue
            out += [(".SH " if level == 0 else ".PP\n\\fI") + escape(title) + ("" if level == 0 else ":\\fR")] + rendered
        else:
            out += [(".SH " if level == 0 else ".PP\n\\fI") + escape(title) + ("" if level == 0 else ":\\fR")] + preformatted(lines)
    return out


def overview(help_text):
    for title, lines in sections(help_text):
        if title == "OVERVIEW" and lines:
            return lines[0].strip()
    return ""


def subcommands(help_text):
    for title, lines in sections(help_text):
        if title == "SUBCOMMANDS":
            return [m.group(1) for m in map(ENTRY.match, lines) if m and not m.group(1).startswith("See ")]
    return []


def option_names(help_text):
    for title, lines in sections(help_text):
        if title == "OPTIONS":
            return {m.group(1).split(",")[0].split(" ")[0] for m in map(ENTRY.match, lines) if m}
    return set()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: help-to-man.py BINARY")
    binary = sys.argv[1]
    name = os.path.basename(binary)
    root = run(binary, "--help")
    version = run(binary, "--version").strip()
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch else datetime.datetime.now(datetime.timezone.utc)
    lines = [
        f'.TH "{name.upper()}" "1" "{when:%Y-%m-%d}" "{escape(version)}" "User Commands"',
        ".SH NAME",
        f"{escape(name)} \\- {escape(overview(root))}",
    ]
    lines += body(root, 0)
    global_options = option_names(root) - {"--version"}
    commands = []

    def walk(path, text):
        for sub in subcommands(text):
            sub_path = path + [sub]
            sub_help = run(binary, "help", *sub_path)
            commands.append((sub_path, sub_help))
            walk(sub_path, sub_help)

    walk([], root)
    if commands:
        lines.append(".SH COMMANDS")
        for path, text in commands:
            lines += [".SS " + escape(" ".join([name] + path)), escape(overview(text))]
            lines += body(text, 1, global_options | {"-h"})
    print("\n".join(lines))


if __name__ == "__main__":
    main()
