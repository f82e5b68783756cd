#!/usr/bin/env python3
"""Per-module figures for the restructuring's before/after table.

    python3 Scripts/module-metrics.py [--root DIR] [--json]

For every target under Modules/ and Apps/: Swift lines, files, the longest function (by
lines from its `func`/`init` to its closing brace, comments and strings stripped), and the
calls to `Date()` and `() -> Date` parameters; then the module graph's critical path from
Package.swift (the longest chain of target dependencies among Modules/ and Apps/ targets).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

DECL = re.compile(r"\b(func\s+[A-Za-z_][A-Za-z0-9_]*|init\??|deinit)\b")


def strip(source: str) -> str:
    """Comments and string literals blanked out, newlines kept, so braces and lines count true."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * source.count("\n", i, j))
            i = j
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('""' + "\n" * source.count("\n", i, j))
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"' and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def functions(text: str):
    """(name, lines) of every function body: from the declaration to its matching brace."""
    for match in DECL.finditer(text):
        open_at = text.find("{", match.end())
        if open_at < 0:
            continue
        between = text[match.end():open_at]
        if "\n}" in between or ";" in between:  # a protocol requirement, no body
            continue
        depth, j = 0, open_at
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        yield match.group(1), text.count("\n", match.start(), j) + 1


def target_dirs(root: pathlib.Path) -> dict[str, pathlib.Path]:
    dirs = {}
    for parent in ("Modules", "Apps"):
        for d in sorted((root / parent).iterdir()):
            if d.is_dir() and any(d.rglob("*.swift")):
                dirs[d.name] = d
    return dirs


def critical_path(root: pathlib.Path, names: set[str]) -> list[str]:
    package = (root / "Package.swift").read_text()
    deps: dict[str, list[str]] = {}
    for block in re.finditer(r'\.(?:target|executableTarget)\(\s*name:\s*"([^"]+)"(.*?)\n\s{8}\)', package, re.S):
        name, body = block.group(1), block.group(2)
        found = re.search(r"dependencies:\s*\[(.*?)\]", body, re.S)
        deps[name] = [d for d in re.findall(r'"([^"]+)"', found.group(1)) if d in names] if found else []
    memo: dict[str, list[str]] = {}

    def longest(name: str) -> list[str]:
        if name not in memo:
            best = max((longest(d) for d in deps.get(name, [])), key=len, default=[])
            memo[name] = best + [name]
        return memo[name]

    return max((longest(n) for n in names if n in deps), key=len, default=[])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for name, directory in target_dirs(args.root).items():
        lines = files = dates = date_params = 0
        longest = ("", 0, "")
        for path in sorted(directory.rglob("*.swift")):
            source = path.read_text()
            files += 1
            lines += source.count("\n")
            text = strip(source)
            dates += len(re.findall(r"(?<![A-Za-z0-9_.])Date\(\)", text))
            # NB: a function type, not a function returning a date: no name before its `()`.
            date_params += len(re.findall(r"(?<![A-Za-z0-9_])\(\)\s*(?:async\s*)?(?:throws\s*)?->\s*Date\b", text))
            for fn, count in functions(text):
                if count > longest[1]:
                    longest = (fn.replace("func ", ""), count, str(path.relative_to(args.root)))
        rows.append({"module": name, "files": files, "lines": lines, "longest_function": longest[0],
                     "longest_lines": longest[1], "longest_in": longest[2], "Date()": dates, "() -> Date": date_params})
    path = critical_path(args.root, {r["module"] for r in rows})
    if args.json:
        json.dump({"modules": rows, "critical_path": path}, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'module':<16} {'files':>5} {'lines':>6}  {'longest function':<40} {'lines':>5}  Date()  () -> Date")
    for r in rows:
        print(f"{r['module']:<16} {r['files']:>5} {r['lines']:>6}  {r['longest_function'][:40]:<40} {r['longest_lines']:>5}  "
              f"{r['Date()']:>6}  {r['() -> Date']:>10}")
    total = sum(r["lines"] for r in rows)
    print(f"{'total':<16} {sum(r['files'] for r in rows):>5} {total:>6}  "
          f"{'':<40} {'':>5}  {sum(r['Date()'] for r in rows):>6}  {sum(r['() -> Date'] for r in rows):>10}")
    print(f"critical path ({len(path)} modules): {' → '.join(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
