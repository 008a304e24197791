#!/usr/bin/env python3
"""fetch_chart_libs.py LOCKFILE DEST — the HTML report's chart libraries, without Node.js.

The report embeds three self-contained browser builds (vega, vega-lite and vega-embed's
build/*.min.js). The tool's build needs only those files, so the main command fetches the
three package tarballs the lock file pins from npm's registry, checks each against the lock
file's sha512 integrity, and unpacks the minified build and the licence into
DEST/node_modules/<name>/ — the layout npm would give, so the build reads either. npm itself
(with Node.js, about 300 Debian packages) is left to the tests, whose browser driver needs it.

The registry is $PQC_NPM_REGISTRY, else npm's public one. Exits 1 with what failed.
"""
import base64
import hashlib
import io
import json
import os
import pathlib
import sys
import tarfile
import urllib.request

PACKAGES = ("vega", "vega-lite", "vega-embed")
REGISTRY = os.environ.get("PQC_NPM_REGISTRY", "https://registry.npmjs.org").rstrip("/")


def fail(msg):
    sys.exit(f"fetch_chart_libs: {msg}")


def fetch(name, version, integrity):
    algo, _, want = integrity.partition("-")
    if algo != "sha512" or not want:
        fail(f"{name}@{version}: the lock file's integrity '{integrity}' is not sha512")
    url = f"{REGISTRY}/{name}/-/{name}-{version}.tgz"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            data = r.read()
    except OSError as e:
        fail(f"{url}: {e} (set PQC_NPM_REGISTRY to a reachable npm registry)")
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != want:
        fail(f"{url}: sha512 {got} is not the lock file's {want}")
    return data


def unpack(name, data, dest):
    wanted = {f"package/build/{name}.min.js", "package/LICENSE", "package/package.json"}
    out = dest / "node_modules" / name
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if member.name not in wanted or not member.isfile():
                continue
            target = out / member.name.removeprefix("package/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
            wanted.discard(member.name)
    missing = sorted(w for w in wanted if w.endswith(".min.js"))
    if missing:
        fail(f"{name}: the tarball has no {', '.join(missing)}")


def main():
    if len(sys.argv) != 3:
        fail("usage: fetch_chart_libs.py LOCKFILE DEST")
    lock = json.loads(pathlib.Path(sys.argv[1]).read_text())
    dest = pathlib.Path(sys.argv[2])
    for name in PACKAGES:
        entry = lock.get("packages", {}).get(f"node_modules/{name}")
        if not entry or "version" not in entry or "integrity" not in entry:
            fail(f"{sys.argv[1]} pins no version and integrity of {name}")
        data = fetch(name, entry["version"], entry["integrity"])
        unpack(name, data, dest)
        print(f"fetch_chart_libs: {name} {entry['version']} ({len(data)} bytes, sha512 checked)")


if __name__ == "__main__":
    main()
