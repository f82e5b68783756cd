#!/usr/bin/env python3
"""Fail when Package.swift declares a dependency edge outside Shelf's allowed graph.

The allow-list is written down once, in the "Module graph" table of README.md, and
read from there. Targets are classified by where they live:
  Modules/<X>    a module: may depend only on the modules its README row names
  Apps/<x>       an app: may depend on any module; nothing may depend on an app, except
                 an end-to-end test target that builds it to run it as a process
                 (it must never import it)
  Tests/<X>, Benchmarks/<X>
                 tests, test support and benchmarks: any module; end-to-end tests may
                 depend on an app so the build makes the binary they run as a process
A module missing from the table is an error too: a new module needs a row first.

Usage: check-module-graph.py [--dump FILE] [--readme FILE]
  --dump FILE    read `swift package dump-package` output from FILE instead of running it
Exit status: 0 when every edge is allowed, 1 with one line per violation otherwise.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def allow_list(readme):
    """{module: set(allowed deps)} from the README table between the graph markers."""
    text = readme.read_text()
    match = re.search(r"<!-- module-graph:begin -->(.*?)<!-- module-graph:end -->", text, re.S)
    if not match:
        sys.exit(f"check-module-graph: no module-graph table in {readme}")
    allowed = {}
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("module", "") or set(cells[0]) <= set("-: "):
            continue
        deps = {d.strip(" `") for d in cells[1].split(",")} - {"—", "-", ""}
        for name in cells[0].split(","):
            allowed[name.strip(" `")] = deps
    return allowed


def load_dump(path):
    if path:
        return json.loads(pathlib.Path(path).read_text())
    # A scratch path of its own, so this never waits on a running build's lock.
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(["swift", "package", "--scratch-path", scratch, "dump-package"],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def dependency_names(target):
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                yield dep[kind][0]


def imports(target, module):
    """Whether any Swift file of `target` imports `module`."""
    pattern = re.compile(rf"^\s*(@testable\s+)?import\s+{re.escape(module)}\b", re.M)
    folder = ROOT / (target.get("path") or "")
    return any(pattern.search(f.read_text(errors="replace")) for f in folder.rglob("*.swift"))


def kind_of(target):
    path = target.get("path") or ""
    top = path.split("/")[0]
    return {"Modules": "module", "Apps": "app", "Tests": "test", "Benchmarks": "test"}.get(top, "unknown")


def violations(dump, allowed):
    targets = {t["name"]: t for t in dump["targets"]}
    kinds = {name: kind_of(t) for name, t in targets.items()}
    for name, target in sorted(targets.items()):
        kind = kinds[name]
        if kind == "unknown":
            yield f"{name}: lives at '{target.get('path')}', outside Modules/, Apps/, Tests/, Benchmarks/"
            continue
        if kind == "module" and name not in allowed:
            yield f"{name}: module has no row in README.md's module graph"
            continue
        for dep in dependency_names(target):
            if dep not in targets:
                yield f"{name} -> {dep}: not a target of this package (no outside packages)"
            elif kinds[dep] == "app" and not (target.get("type") == "test" and targets[dep].get("type") == "executable"):
                yield f"{name} -> {dep}: nothing may depend on an app"
            elif kinds[dep] == "app" and imports(target, dep):
                yield f"{name} -> {dep}: a test may run an app as a process, never import it"
            elif kinds[dep] == "test" and kind != "test":
                yield f"{name} -> {dep}: only tests may depend on test support"
            elif kind == "module" and dep not in allowed[name]:
                ok = ", ".join(sorted(allowed[name])) or "nothing of ours"
                yield f"{name} -> {dep}: not allowed ({name} may import: {ok})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump")
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    args = parser.parse_args()
    found = list(violations(load_dump(args.dump), allow_list(pathlib.Path(args.readme))))
    for line in found:
        print(f"module graph: {line}", file=sys.stderr)
    if found:
        sys.exit(1)
    print("module graph: every dependency edge is allowed")


if __name__ == "__main__":
    main()
