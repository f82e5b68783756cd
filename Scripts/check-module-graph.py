#!/usr/bin/env python3
"""Fail when a dependency edge or an `import` line leaves Shelf's allowed graph.

The allow-list is written down once, in the "Module graph" table of README.md, and
read from there. Targets are classified by where they live:
  Modules/<X>    a module: may depend only on the modules its README row names
  Apps/<x>       an app: a main.swift that calls its commands library, so it may depend
                 only on modules named `…Commands` (which may import what their README
                 rows allow); nothing may depend on an app, except an end-to-end test
                 target that builds it to run it as a process (it must never import it)
  Tests/<X>, Benchmarks/<X>
                 tests, test support and benchmarks: any module (apps: see above)
A module missing from the table is an error too: a new module needs a row first.

Two things are checked against those rules:
  - the manifest: every dependency a target declares in Package.swift;
  - the sources: every `import` line of every Swift file of every target (tests and
    benchmarks included). The compiler lets a file import a module that is reachable
    through another dependency, so a boundary is only real if each import is checked:
    an imported module of this package must be one of the target's declared
    dependencies, and for a module, on its README row. Violations name file and line.

Usage: check-module-graph.py [--dump FILE] [--readme FILE] [--root DIR] [--manifest-only]
  --dump FILE      read `swift package dump-package` output from FILE instead of running it
  --root DIR       the package's folder, where target paths and sources are read
  --manifest-only  check the declared edges only, not the sources' import lines
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


def load_dump(path, root):
    if path:
        return json.loads(pathlib.Path(path).read_text())
    # A scratch path of its own, so this never waits on a running build's lock.
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(["swift", "package", "--scratch-path", scratch, "dump-package"],
                             cwd=root, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# `import X`, `@testable import X`, `import struct X.Y`, `@preconcurrency import X`, …
IMPORT_LINE = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+"
    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def module_name(target_name):
    """The name a target is imported by (`shelf-sync` is imported as `shelf_sync`)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", target_name)


def source_imports(root, target):
    """(file relative to root, line number, imported module) for every Swift file of `target`."""
    folder = root / (target.get("path") or "")
    for file in sorted(folder.rglob("*.swift")):
        for number, line in enumerate(file.read_text(errors="replace").splitlines(), start=1):
            match = IMPORT_LINE.match(line)
            if match:
                yield file.relative_to(root), number, match.group(1)


def dependency_names(target):
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                yield dep[kind][0]


def imports(root, target, module):
    """Whether any Swift file of `target` imports `module`."""
    return any(name == module_name(module) for _, _, name in source_imports(root, target))


def kind_of(target):
    path = target.get("path") or ""
    top = path.split("/")[0]
    return {"Modules": "module", "Apps": "app", "Tests": "test", "Benchmarks": "test"}.get(top, "unknown")


def violations(dump, allowed, root=ROOT, sources=True):
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
            elif kinds[dep] == "app" and imports(root, target, dep):
                yield f"{name} -> {dep}: a test may run an app as a process, never import it"
            elif kinds[dep] == "test" and kind != "test":
                yield f"{name} -> {dep}: only tests may depend on test support"
            elif kind == "module" and dep not in allowed[name]:
                ok = ", ".join(sorted(allowed[name])) or "nothing of ours"
                yield f"{name} -> {dep}: not allowed ({name} may import: {ok})"
            elif kind == "app" and not dep.endswith("Commands"):
                yield f"{name} -> {dep}: an app depends only on its commands library (a module named …Commands)"
    if sources:
        yield from import_violations(targets, kinds, allowed, root)


def import_violations(targets, kinds, allowed, root):
    """Every `import` of one of this package's modules, against the rules above."""
    by_module_name = {module_name(name): name for name in targets}
    for name, target in sorted(targets.items()):
        kind = kinds[name]
        if kind == "unknown" or (kind == "module" and name not in allowed):
            continue  # already reported
        declared = set(dependency_names(target))
        for file, line, imported in source_imports(root, target):
            dep = by_module_name.get(imported)
            if dep is None or dep == name:
                continue  # the toolchain's modules (Foundation, Testing, Glibc…), or itself
            where = f"{file}:{line}: {name} imports {dep}"
            if kinds[dep] == "app":
                yield f"{where}: nothing may import an app"
            elif kind == "module" and dep not in allowed[name]:
                ok = ", ".join(sorted(allowed[name])) or "nothing of ours"
                yield f"{where}: not allowed ({name} may import: {ok})"
            elif dep not in declared:
                yield f"{where}, which is not a declared dependency of {name} in Package.swift"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump")
    parser.add_argument("--readme")
    parser.add_argument("--root", default=str(ROOT))
    parser.add_argument("--manifest-only", action="store_true")
    args = parser.parse_args()
    root = pathlib.Path(args.root).resolve()
    readme = pathlib.Path(args.readme) if args.readme else root / "README.md"
    found = list(violations(load_dump(args.dump, root), allow_list(readme), root, sources=not args.manifest_only))
    for line in found:
        print(f"module graph: {line}", file=sys.stderr)
    if found:
        sys.exit(1)
    checked = "every dependency edge" + ("" if args.manifest_only else " and every import")
    print(f"module graph: {checked} is allowed")


if __name__ == "__main__":
    main()
