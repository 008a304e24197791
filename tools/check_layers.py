#!/usr/bin/env python3
"""check_layers.py LAYERS_FILE SRC_DIR STAMP — fails the build when a folder of src/ includes a
header of a folder it may not use.

LAYERS_FILE has one line per folder, "name:dep dep ..." (';' also separates), written by
src/CMakeLists.txt from its pqc_folder() calls: the one place the allowed graph is declared
(docs/development.md draws it). A folder may include its own headers and those of the folders
it lists; everything else is a violation, printed as "file:line: ..." with what would be valid.
The graph itself must be acyclic. On success the stamp file is touched.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


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
                        m = INCLUDE.match(line)
                        if not m or m.group(1) not in layers or m.group(1) in allowed:
                            continue
                        rel = os.path.relpath(path, os.path.dirname(src))
                        uses = ("only " + ", ".join(sorted(layers[folder]))
                                if layers[folder] else "no other folder")
                        errors.append(f'{rel}:{n}: includes "{m.group(1)}/…", but {folder} may '
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
