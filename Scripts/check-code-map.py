#!/usr/bin/env python3
"""Fail when ARCHITECTURE.md or a module README names code that is gone.

The map of the code (ARCHITECTURE.md, Modules/*/README.md, Apps/*/README.md) names types,
functions, files and folders in backticks. Each backticked span outside a fenced block is
read as one of these, and checked against the package's sources (Swift, Python, shell and
C files under Modules/, Apps/, Tests/, Benchmarks/, Scripts/; comments do not count):

  a path        has a `/` (`Modules/Sync/RunLock.swift`, `Rules/`, `Transaction/*+History.swift`)
                or a file's extension (`SyncEngine.swift`, `shim.h`): it must exist. A path
                whose first folder is one at the package's top is read from there; any other
                from the document's folder or, failing that, as the end of a path anywhere
                (a code map says "in Modules/Sync unless named"). `*` matches as in a shell.
  a file part   `+Rows`, `SyncRun+Keyring`: some file's name must contain it.
  a code name   `SyncEngine`, `IntegrityGate.judge`, `.alreadyRunning`, `@Option`,
                `saveLocal(_:id:json:)`, `CachedResult<Value>`, `BookRepository: BookService`:
                every part must occur in the code. A member of one of Shelf's types must be
                declared (func, var, let, case…) in a file that declares or extends that type
                (or a protocol it adopts); argument labels, when given, must be those of a
                declaration (parameters with defaults may be left out). A name Shelf uses but
                never declares (Foundation's, Swift Testing's, libc's) need only occur.
Not code names, and not checked: spans with a space (`make test`, `shelf sync`, SQL,
`POST /batch`), option flags (`--json`), numbers and durations (`90s`), ALL_CAPS names
(environment variables, C constants), snake_case names (JSON members, SQL columns, C
functions), hyphenated words (`Next-Page`, `shelf-sync`), one-word lowercase names without
arguments (`apply`, `merge`, `default`: commands, values and words as often as code),
settings (`KeyringMode=private`), URLs, `$VARIABLES`, `~/` and absolute paths.

Usage: check-code-map.py [--root DIR] [DOC ...]
  --root DIR   the package's folder (default: this script's package)
  DOC          the documents to check, relative to the root (default: the map's documents)
Exit status: 0 when every name resolves, 1 with one `file:line: name: why` line per stale
name otherwise.
"""
import argparse
import fnmatch
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE_FOLDERS = ("Modules", "Apps", "Tests", "Benchmarks", "Scripts")
SOURCE_SUFFIXES = {".swift", ".py", ".sh", ".h", ".c", ".service", ".timer"}
FILE_SUFFIXES = SOURCE_SUFFIXES | {".md", ".json", ".modulemap", ".ini", ".txt", ".svg"}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# One part of a code name: an identifier, maybe generic, maybe called or with labels.
PART = rf"({IDENT})(?:<[^<>]*>)?(\([^()]*\))?\??"
CODE_NAME = re.compile(rf"^[@.]?{PART}(?:\.{PART})*$")
CONFORMANCE = re.compile(rf"^{IDENT}(?:<[^<>]*>)?:\s*{IDENT}(?:,\s*{IDENT})*$")
LABELS = re.compile(rf"^(?:(?:{IDENT}|_):)+$")
TYPE_KEYWORDS = r"(?:struct|class|enum|protocol|actor|typealias|extension)"
DECLARATION = re.compile(
    rf"\b(?:func|var|let|case|struct|class|enum|protocol|actor|typealias|associatedtype|def)\s+({IDENT})")
SWIFT_COMMENT_OR_STRING = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|(//[^\n]*|/\*[\s\S]*?\*/)')
PYTHON_COMMENT_OR_STRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|(#[^\n]*)')


# MARK: - The sources

class Sources:
    """Every file of the package (for paths) and the code of its sources (for names)."""

    def __init__(self, root):
        self.root = root
        self.paths = set()      # every file and folder, relative to root, folders ending in "/"
        self.code = {}          # relative path -> source text without comments
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            relative = pathlib.Path(folder).relative_to(root).as_posix()
            prefix = "" if relative == "." else relative + "/"
            if prefix:
                self.paths.add(prefix)
            for name in files:
                path = prefix + name
                self.paths.add(path)
                if (prefix.split("/")[0] in SOURCE_FOLDERS and pathlib.Path(name).suffix in SOURCE_SUFFIXES
                        or path == "Package.swift"):
                    self.code[path] = without_comments(path, (root / path).read_text(errors="replace"))
        self.words = set()
        self.declared = {}      # name -> set of files declaring it
        self.type_files = {}    # type name -> files that declare or extend it
        for path, text in self.code.items():
            self.words.update(re.findall(IDENT, text))
            for name in DECLARATION.findall(text):
                self.declared.setdefault(name, set()).add(path)
            for name in enum_case_names(text):
                self.declared.setdefault(name, set()).add(path)
            for name in re.findall(rf"\b{TYPE_KEYWORDS}\s+(?:{IDENT}\.)*({IDENT})", text):
                self.type_files.setdefault(name, set()).add(path)
        self.basenames = {p.rstrip("/").rsplit("/", 1)[-1] for p in self.paths}
        self.top_folders = {p[:-1] for p in self.paths if p.endswith("/") and p.count("/") == 1}

    def signatures(self, name, files):
        """The argument labels of every `func name(…)`, `case name(…)` (or `init(…)` for a type) in `files`."""
        if name == "init" or name[0].isupper():
            keyword = r"\binit"
        else:  # `func name(`, `case name(` or `case a, name(`
            keyword = rf"(?:\bfunc\s+|^[ \t]*(?:indirect\s+)?case\b[^\n:]*?\b){re.escape(name)}"
        pattern = re.compile(rf"{keyword}\s*(?:<[^()]*?>)?\s*\(", re.M)
        for path in files:
            text = self.code[path]
            for match in pattern.finditer(text):
                inside = balanced(text, match.end() - 1)
                if inside is not None:
                    yield [(external_label(p), has_default(p)) for p in split_top_level(inside) if p.strip()]


def without_comments(path, text):
    pattern = PYTHON_COMMENT_OR_STRING if path.endswith((".py", ".sh")) else SWIFT_COMMENT_OR_STRING
    return pattern.sub(lambda m: " " if m.group(1) else m.group(0), text)


def enum_case_names(text):
    """`case a, b(x: Int), c` declares a, b and c (a `case …:` line is a switch's, not a declaration)."""
    for line in re.findall(r"^\s*(?:indirect\s+)?case\s+(.*)$", text, re.M):
        if line.rstrip().endswith(":"):
            continue
        for item in split_top_level(line):
            match = re.match(rf"\s*({IDENT})", item)
            if match:
                yield match.group(1)


def balanced(text, open_index):
    """The text inside the parenthesis that opens at `open_index`, or None if it never closes."""
    depth = 0
    for index in range(open_index, min(len(text), open_index + 4000)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[open_index + 1:index]
    return None


def split_top_level(text):
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def has_default(parameter):
    """Whether a parameter may be left out of a call (`x: T = value`)."""
    return "=" in re.sub(r"\([^()]*\)|->|==", "", parameter.split(":", 1)[-1])


def accepts(parameters, wanted):
    """Whether labels `wanted` name a call of a declaration with `parameters` ((label, has default)…),
    in full or leaving out parameters that have defaults."""
    remaining = list(wanted)
    for label, optional in parameters:
        if remaining and remaining[0] == label:
            remaining.pop(0)
        elif not optional:
            return False
    return not remaining


def external_label(parameter):
    """`_ x: T` → `_`, `label x: T` → `label`, `x: T` → `x`, an enum case's bare `T` → `_`."""
    head = parameter.split(":", 1)[0].strip() if ":" in parameter else "_"
    words = [w for w in head.split() if not w.startswith("@") and w not in ("inout", "borrowing", "consuming")]
    return words[0] if words else "_"


# MARK: - The documents

def spans(text):
    """(line number, span) for every backticked span outside fenced blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in re.finditer(r"(`+)(.+?)\1", line):
            yield number, match.group(2).strip()


def kind_of(span):
    """What `span` names: "path", "file part", "conformance", "code", or None for no code name."""
    if not span or (" " in span and not CONFORMANCE.match(span)):
        return None
    if span.startswith(("-", "$", "~", "/")) or re.search(r"[=:]//|=|\$|\{|\||'|\"|\\", span):
        return None
    if CONFORMANCE.match(span):
        return "conformance"
    if re.fullmatch(rf"(?:{IDENT})?\+{IDENT}(?:\.[a-z]+)?", span):
        return "file part"
    if "/" in span:
        first = span.split("/")[0]
        if "<" in span or re.fullmatch(r"[A-Z][A-Z0-9_]*", first):
            return None  # `PREFIX/bin`, `<account>.lock`: a pattern, not a file of the package
        return "path"
    if pathlib.PurePosixPath(span).suffix in FILE_SUFFIXES and re.fullmatch(r"[\w.*+-]+", span):
        return "path"
    match = CODE_NAME.match(span)
    if not match:
        return None
    bare = span.lstrip("@.")
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", bare) or len(bare) == 1:
        return None  # `COLUMNS`, `HEAD`, `SHELF_PASSWORD`; a key
    first = re.match(IDENT, bare).group(0)
    if "_" in first.strip("_") or first.startswith("_"):
        return None  # `last_modified`, `_since`, `sodium_init()`
    if re.fullmatch(r"[a-z][a-z0-9]*", span):
        return None  # `apply`, `default`, `vi`: a word as often as a name
    return "code"


def resolve_path(span, doc, sources):
    """True when `span` names a file or folder (see the rule at the top), else None."""
    wanted = span.rstrip("/")
    folder_only = span.endswith("/")
    candidates = [p for p in sources.paths if not folder_only or p.endswith("/")]
    plain = {p.rstrip("/") for p in candidates}

    def exists(path):
        if "*" in path:
            return any(fnmatch.fnmatchcase(p, path) for p in plain)
        return path in plain

    if "/" not in wanted and "*" not in wanted:
        return wanted in sources.basenames or None
    if wanted.split("/")[0] in sources.top_folders:
        return exists(wanted) or None
    doc_folder = pathlib.PurePosixPath(doc).parent.as_posix()
    if doc_folder != "." and exists(f"{doc_folder}/{wanted}"):
        return True
    if exists(wanted):
        return True
    return any(fnmatch.fnmatchcase(p, f"*/{wanted}") for p in plain) or None


def problem_with_code_name(span, sources):
    """Why `span` does not resolve, or None when it does."""
    if CONFORMANCE.match(span):
        names = re.findall(IDENT, re.sub(r"<[^<>]*>", "", span))
        missing = [n for n in names if n not in sources.words]
        return f"{', '.join(missing)} not found in the code" if missing else None
    parts = re.findall(PART, span.lstrip("@."))
    for name, _ in parts:
        if name not in sources.words:
            return f"{name} not found in the code"
    name, arguments = parts[-1]
    owner = parts[-2][0] if len(parts) > 1 else None
    if owner in sources.type_files and name != "init":
        # A member of Shelf's own type: declared with the type, in an extension, or in a
        # protocol it adopts.
        scope = set(sources.type_files[owner])
        scope |= {f for t in adopted_protocols(owner, sources) for f in sources.type_files.get(t, ())}
        if not sources.declared.get(name, set()) & scope:
            return f"{name} is declared nowhere in {owner}'s files"
    elif name in sources.declared or name[0].isupper():
        scope = set(sources.code)
    else:
        return None  # a name Shelf uses but never declares: Foundation's, Swift Testing's, libc's
    labels = (arguments or "").strip("()").replace(" ", "")
    if arguments and LABELS.match(labels):
        wanted = re.findall(r"([A-Za-z0-9_]+):", labels)
        found = list(sources.signatures(name, scope))
        if not any(accepts(parameters, wanted) for parameters in found):
            shapes = sorted({"(" + "".join(f"{label}:" for label, _ in f) + ")" for f in found})
            known = f" (declared: {', '.join(name + s for s in shapes)})" if shapes else ""
            return f"no declaration of {name} takes ({labels}){known}"
    return None


def adopted_protocols(owner, sources):
    """The names after `owner:` in its declarations (`actor X: P, Q`), for members a protocol extension gives."""
    adopted = set()
    for path in sources.type_files.get(owner, ()):
        for match in re.finditer(rf"\b{TYPE_KEYWORDS}\s+{re.escape(owner)}\s*(?:<[^{{]*?>)?\s*:\s*([^{{]+)\{{", sources.code[path]):
            adopted.update(re.findall(IDENT, match.group(1).split("where")[0]))
    return adopted


def check(root, docs):
    sources = Sources(root)
    problems, checked = [], 0
    for doc in docs:
        text = (root / doc).read_text()
        for line, span in spans(text):
            kind = kind_of(span)
            if kind is None:
                continue
            checked += 1
            if kind == "path":
                if not resolve_path(span, doc, sources):
                    problems.append(f"{doc}:{line}: `{span}`: no such file or folder")
            elif kind == "file part":
                if not any(span in name for name in sources.basenames):
                    problems.append(f"{doc}:{line}: `{span}`: no file's name contains it")
            else:
                why = problem_with_code_name(span, sources)
                if why:
                    problems.append(f"{doc}:{line}: `{span}`: {why}")
    return problems, checked


def default_docs(root):
    docs = [pathlib.Path("ARCHITECTURE.md")] if (root / "ARCHITECTURE.md").exists() else []
    for pattern in ("Modules/*/README.md", "Apps/*/README.md"):
        docs += sorted(p.relative_to(root) for p in root.glob(pattern))
    return [d.as_posix() for d in docs]


def plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=str(ROOT))
    parser.add_argument("docs", nargs="*")
    args = parser.parse_args()
    root = pathlib.Path(args.root).resolve()
    docs = args.docs or default_docs(root)
    problems, checked = check(root, docs)
    for problem in problems:
        print(f"code map: {problem}", file=sys.stderr)
    if problems:
        print(f"code map: {len(problems)} of {checked} names in {plural(len(docs), 'document')} are gone", file=sys.stderr)
        sys.exit(1)
    print(f"code map: all {checked} names in {plural(len(docs), 'document')} resolve")


if __name__ == "__main__":
    main()
