#!/usr/bin/env python3
"""check_layers.py LAYERS_FILE SRC_DIR STAMP — fails the build when a folder of src/ includes a
header of a folder it may not use.

LAYERS_FILE has one line per folder, "name:dep dep ..." (';' also separates), written by
src/CMakeLists.txt from its pqc_folder() calls: the one place the allowed graph is declared
(docs/development.md draws it). A folder may include its own headers and those of the folders
it lists; everything else is a violation, printed as "file:line: ..." with what would be valid.
The graph itself must be acyclic.

Two finer rules keep the records typed (docs/development.md, "Records"):
- a header marked "// pqc: internal" in its first lines belongs to its folder: only that
  folder's files may include it (the trials table's SQL, the study document's field lists);
- JSON is read by key only in a reader: `.value("key", …)` or `["key"].get<…>` is refused in
  any file but a `*_json.cc` or `*_json.h` one, unless the line says why with
  "// json by key:".
On success the stamp file is touched.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(([a-z_]+)/[^"]+)"')
BY_KEY = re.compile(r'\.value\("|\["[A-Za-z_0-9]+"\]\.get<')
INTERNAL = "// pqc: internal"


def internal_headers(src):
    """{"results/trial_table.h": "results", …}: the headers marked internal, by include path."""
    out = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".h"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                head = [next(f, "") for _ in range(12)]
            if any(line.startswith(INTERNAL) for line in head):
                rel = os.path.relpath(path, src)
                out[rel] = rel.split(os.sep)[0]
    return out


def read_layers(path):
    layers = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            name, _, deps = line.partition(":")
            layers[name] = set(re.split(r"[;\s]+", deps.strip())) - {""}
    return layers


def cycle(layers):
    state = {}

    def visit(n, path):
        if state.get(n) == 1:
            return path[path.index(n):] + [n]
        if state.get(n) == 2:
            return None
        state[n] = 1
        for d in sorted(layers.get(n, ())):
            found = visit(d, path + [n])
            if found:
                return found
        state[n] = 2
        return None

    for n in sorted(layers):
        found = visit(n, [])
        if found:
            return found
    return None


def main():
    layers_file, src, stamp = sys.argv[1:4]
    layers = read_layers(layers_file)
    errors = []
    internal = internal_headers(src)
    loop = cycle(layers)
    if loop:
        errors.append(f"{layers_file}: the folder graph has a cycle: {' -> '.join(loop)}")
    for folder in sorted(os.listdir(src)):
        base = os.path.join(src, folder)
        if not os.path.isdir(base):
            continue
        if folder not in layers:
            errors.append(f"src/{folder}/: a folder the layer graph does not know; declare it "
                          f"with pqc_folder() in src/CMakeLists.txt")
            continue
        allowed = layers[folder] | {folder}
        for root, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        rel = os.path.relpath(path, os.path.dirname(src))
                        if (BY_KEY.search(line) and not name.endswith(("_json.cc", "_json.h"))
                                and "// json by key:" not in line):
                            errors.append(f"{rel}:{n}: reads JSON by key; read a typed record "
                                          f"instead (core/json_fields.h), or say why on the "
                                          f'line with "// json by key: …"')
                        m = INCLUDE.match(line)
                        if m and m.group(1) in internal and internal[m.group(1)] != folder:
                            errors.append(f'{rel}:{n}: includes "{m.group(1)}", which is '
                                          f"internal to {internal[m.group(1)]}/ (use that "
                                          f"folder's public headers)")
                            continue
                        if not m or m.group(2) not in layers or m.group(2) in allowed:
                            continue
                        uses = ("only " + ", ".join(sorted(layers[folder]))
                                if layers[folder] else "no other folder")
                        errors.append(f'{rel}:{n}: includes "{m.group(2)}/…", but {folder} may '
                                      f"use {uses} (docs/development.md, Layers)")
    if errors:
        for e in errors:
            print(f"layer check: {e}", file=sys.stderr)
        return 1
    with open(stamp, "w") as f:
        f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
