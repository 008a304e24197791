#!/usr/bin/env python3
"""doc_refs_test.py CHECKOUT_ROOT — checks that the repository's references to its own
documents lead somewhere.

Source comments explain themselves by citing a document and one of its headings, e.g.
`(docs/design.md, "Names")`; such a citation helps only while the file exists and still has
that heading, and a heading renamed in a document silently orphans the comments that cite
it. Comments once cited DESIGN.md, a private design brief that is not in the repository and
that no reader could open; docs/design.md replaces it. And README.md lists the shipped
scenarios in a table that is easy to forget when a scenario is added. So this test checks:

(a) every `docs/<name>.md` mentioned in src/, scripts/, tests/, bench/, fuzz/, README.md and
    docs/*.md names an existing file, and a heading quoted right after it
    (`docs/<name>.md, "<heading>"` or `docs/<name>.md "<heading>"`, also wrapped onto the next
    comment line) is the beginning of a Markdown heading of that file (case-sensitive); any
    mention of DESIGN.md is a failure (this file excepted);
(b) README.md's table whose first column is `scenario` has a row for every scenarios/*.toml
    but quick.toml, and each of its rows names an existing scenarios/<stem>.toml;
(d) docs/development.md's "Dependencies and licences" names every source package the set-up
    builds (each `fetch_upstream PKG` in scripts/) and every npm package of web/package.json;
(c) README.md is a newcomer's page of at most 150 lines, its images exist, and it has no
    unfilled placeholder (a word in capitals with an underscore, where a measured time or an
    excerpt of real output belongs).

Prints one line per failure, then "N passed, M failed"; exits 1 if anything failed.
Standard library only.
"""
import os
import re
import sys

TREES = ("src", "scripts", "tests", "bench", "fuzz")
SKIP_DIRS = {"__pycache__", "node_modules", ".git"}
# The private brief's file name; this test itself is the one file that may name it.
BRIEF = "DESIGN.md"
SELF = os.path.join("tests", "doc_refs_test.py")
BRIEF_RE = re.compile(r"(?<![\w.-])" + re.escape(BRIEF) + r"(?![\w-])")
# A line break inside a comment: the next line's indentation and comment leader.
BREAK = r"\n[ \t]*(?:(?://+|#+|\*|;+)[ \t]*)?"
# docs/<name>.md, then optionally a quoted heading after ", " or a blank (possibly wrapped onto
# the next comment line, also inside the quotes).
REF_RE = re.compile(r"(?<![\w./-])docs/([\w.-]+\.md)"
                    r"(?:(?:,?[ \t]*" + BREAK + r"|,[ \t]*|[ \t]+\(?)"
                    r"\"((?:[^\"\n]|" + BREAK + r")+)\")?")
# An ATX heading: its text without the optional closing run of '#'.
HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def read_text(path):
    """The file's text, or None for a binary or unreadable file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def scanned_files(root):
    for tree in TREES:
        base = os.path.join(root, tree)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                yield os.path.join(dirpath, name)
    yield os.path.join(root, "README.md")
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for name in sorted(os.listdir(docs)):
            if name.endswith(".md"):
                yield os.path.join(docs, name)


def headings(path, cache):
    if path not in cache:
        found = []
        in_fence = False
        for line in (read_text(path) or "").splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                in_fence = not in_fence
                continue
            m = None if in_fence else HEADING_RE.match(line)
            if m:
                found.append(m.group(1))
        cache[path] = found
    return cache[path]


def check_refs(root, fail):
    """(a): returns the number of references checked."""
    checked = 0
    cache = {}
    for path in scanned_files(root):
        text = read_text(path)
        if text is None:
            continue
        rel = os.path.relpath(path, root)

        def line_of(pos, text=text):
            return text.count("\n", 0, pos) + 1

        if rel != SELF:
            for m in BRIEF_RE.finditer(text):
                checked += 1
                fail(f"{rel}:{line_of(m.start())}: cites {BRIEF}, which is not in the repository; "
                     f"cite docs/design.md")
        for m in REF_RE.finditer(text):
            checked += 1
            doc = os.path.join(root, "docs", m.group(1))
            where = f"{rel}:{line_of(m.start())}"
            if not os.path.isfile(doc):
                fail(f"{where}: cites docs/{m.group(1)}, which does not exist")
                continue
            if m.group(2) is None:
                continue
            heading = re.sub(BREAK, " ", m.group(2)).strip()
            if not any(h.startswith(heading) for h in headings(doc, cache)):
                fail(f'{where}: cites docs/{m.group(1)}, "{heading}", but that file has no '
                     f'heading starting "{heading}"')
    return checked


def cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def stem_of(cell):
    """`01-x`, [`01-x`](scenarios/01-x.toml) or 01-x → 01-x."""
    m = re.fullmatch(r"\[(.*)\]\([^)]*\)", cell)
    if m:
        cell = m.group(1)
    cell = cell.strip().strip("`").strip()
    if cell.startswith("scenarios/"):
        cell = cell[len("scenarios/"):]
    if cell.endswith(".toml"):
        cell = cell[:-len(".toml")]
    return cell


def check_scenario_table(root, fail):
    """(b): returns the number of scenarios and rows checked."""
    readme = os.path.join(root, "README.md")
    lines = (read_text(readme) or "").splitlines()
    rows = None
    for i, line in enumerate(lines):
        if (line.lstrip().startswith("|") and cells(line)[0] == "scenario"
                and i + 1 < len(lines) and re.fullmatch(r"\|?[\s:|-]+\|?", lines[i + 1].strip())):
            rows = []
            for n in range(i + 2, len(lines)):
                if not lines[n].lstrip().startswith("|"):
                    break
                rows.append((n + 1, stem_of(cells(lines[n])[0])))
            break
    if rows is None:
        fail("README.md: no table whose first column is `scenario` (the shipped scenarios)")
        return 1
    checked = 0
    listed = {stem for _, stem in rows}
    for n, stem in rows:
        checked += 1
        if not os.path.isfile(os.path.join(root, "scenarios", stem + ".toml")):
            fail(f"README.md:{n}: the scenario table lists {stem!r}, but scenarios/{stem}.toml "
                 f"does not exist")
    scen_dir = os.path.join(root, "scenarios")
    shipped = sorted(f[:-len(".toml")] for f in os.listdir(scen_dir)
                     if f.endswith(".toml")) if os.path.isdir(scen_dir) else []
    for stem in shipped:
        if stem == "quick":
            continue
        checked += 1
        if stem not in listed:
            fail(f"README.md: scenarios/{stem}.toml is missing from the table of shipped "
                 f"scenarios")
    return checked


README_MAX_LINES = 150


def check_readme_page(root, fail):
    """(c): returns the number of checks made."""
    text = read_text(os.path.join(root, "README.md")) or ""
    lines = text.splitlines()
    if len(lines) > README_MAX_LINES:
        fail(f"README.md: {len(lines)} lines, more than {README_MAX_LINES}: move the reference "
             "into docs/ and link it from the table of where to read on")
    checked = 1
    for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text):
        checked += 1
        if not os.path.isfile(os.path.join(root, image)):
            fail(f"README.md: the image {image} does not exist")
    for n, line in enumerate(lines, 1):
        checked += 1
        for word in re.findall(r"\b[A-Z]{3,}_[A-Z_]{3,}\b", line):
            if not word.startswith(("PQC_", "CCACHE_", "OPENSSL_")):
                fail(f"README.md:{n}: unfilled placeholder {word}")
    return checked


def check_licences(root, fail):
    """(d): returns the number of checks made."""
    dev = read_text(os.path.join(root, "docs", "development.md")) or ""
    m = re.search(r"^## Dependencies and licences\n(.*?)(?=^## |\Z)", dev, flags=re.S | re.M)
    if not m:
        fail("docs/development.md: no section '## Dependencies and licences'")
        return 1
    section = m.group(1).lower()
    built = set()
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "scripts")):
        for name in filenames:
            text = read_text(os.path.join(dirpath, name)) or ""
            built.update(re.findall(r"\bfetch_upstream\s+([a-z0-9][a-z0-9.+-]*)\b", text))
    import json
    try:
        with open(os.path.join(root, "web", "package.json")) as f:
            npm = set(json.load(f).get("dependencies", {}))
    except (OSError, ValueError):
        npm = set()
        fail("web/package.json: missing or not JSON")
    if not built:
        fail("scripts/: no `fetch_upstream PKG` found (the set-up's source packages)")
    checked = 0
    for pkg in sorted(built | npm):
        checked += 1
        if pkg.lower() not in section:
            fail(f"docs/development.md: 'Dependencies and licences' does not name {pkg}, "
                 f"which {'the set-up builds' if pkg in built else 'web/package.json pins'}")
    return checked


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    root = sys.argv[1]
    failures = []

    def fail(message):
        failures.append(message)
        print(message)

    checked = (check_refs(root, fail) + check_scenario_table(root, fail) +
               check_readme_page(root, fail) + check_licences(root, fail))
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
