#!/usr/bin/env bash
# setup.sh — installs everything pqc-bench needs on Debian 12, idempotently:
# Debian packages, then OpenSSL 3.5 LTS and nginx 1.26 built from Debian 13's source
# packages into a cache outside the checkout. A second run only checks stamps (seconds).
#
# Why build OpenSSL: Debian 12 ships OpenSSL 3.0, which has no ML-KEM / ML-DSA.
# Why a private apt configuration: the system's sources must never be edited; apt still
# verifies every downloaded file against Debian's signed index.
# Why Chromium and npm packages: the HTML report embeds vega, vega-lite and vega-embed at
# build time (pinned in web/package-lock.json, installed into the cache, never into the
# checkout), and its test opens the report in Debian's headless Chromium through
# playwright-core (which never downloads a browser of its own).
# Prints, as its last line, the cache prefix file (env.sh) that build.sh sources.
set -euo pipefail

CACHE="${PQC_BENCH_CACHE:-$HOME/.cache/pqc-bench}"
mkdir -p "$CACHE"
log() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (installs Debian packages); try: sudo $0"

# One set-up at a time per cache (CI and a developer may share a machine).
exec 9>"$CACHE/.lock"
flock 9

PACKAGES=(build-essential cmake ninja-build pkg-config perl
  libsqlite3-dev sqlite3 libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  iproute2 procps libpcre2-dev zlib1g-dev
  clang libclang-rt-14-dev ca-certificates xz-utils python3 python3-jsonschema chromium ccache git)
# Node.js: a machine may already have its own (e.g. a vendor's nodejs package that bundles
# npm); Debian's nodejs/npm would replace or conflict with it, so they are added only when
# node or npm is missing.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$CACHE/apt-install.log" 2>&1 ||
    { cat "$CACHE/apt-install.log" >&2; die "apt-get install failed"; }
fi

# ---- private apt configuration for Debian 13 (trixie) source packages ----------------
APTDIR="$CACHE/apt"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$APTDIR/cache" "$APTDIR/src"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$APTDIR/sources.list" <<SRC
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian trixie main
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian trixie-updates main
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian-security trixie-security main
SRC
APTOPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
  -o "Dir::Cache::Archives=$APTDIR/archives" -o APT::Sandbox::User=root)
# Refreshed at most once per set-up (fetch_upstream runs in subshells, so a marker file
# rather than a variable records it).
STAMP="$APTDIR/.refreshed-$$"
trap 'rm -f "$STAMP"' EXIT
refresh_lists() {
  [ -f "$STAMP" ] && return
  log "reading Debian 13 source index (private apt configuration)"
  apt-get "${APTOPTS[@]}" -qq update >&2
  rm -f "$APTDIR"/.refreshed-*
  touch "$STAMP"
}

# fetch_upstream PKG UPSTREAM_PREFIX → prints the path of a verified upstream tarball.
# The index may list versions whose files the pool no longer holds, so each listed
# version is tried newest first. Only the .orig tarball is needed: we build upstream
# sources as released (apt checks its hash against the signed Sources index).
fetch_upstream() {
  local pkg=$1 prefix=$2 v up dir
  refresh_lists
  for v in $(apt-cache "${APTOPTS[@]}" showsrc "$pkg" | awk '/^Version:/{print $2}' | sort -rV | uniq); do
    up=${v%%-*}; up=${up#*:}
    case "$up" in "$prefix"*) ;; *) continue ;; esac
    dir="$APTDIR/src/$pkg-$v"
    mkdir -p "$dir"
    if ! ls "$dir/${pkg}_${up}.orig.tar."* >/dev/null 2>&1; then
      log "fetching $pkg $v"
      (cd "$dir" && apt-get "${APTOPTS[@]}" -qq source --download-only "$pkg=$v" >/dev/null 2>&1) || true
    fi
    local t
    for t in "$dir/${pkg}_${up}.orig.tar."{gz,xz}; do
      if [ -f "$t" ]; then echo "$up $t"; return 0; fi
    done
    log "$pkg $v: not in the pool, trying an older listed version"
  done
  die "no $prefix* version of the $pkg source package could be fetched from Debian 13"
}

# ---- OpenSSL 3.5 ----------------------------------------------------------------------
find_built() { # newest complete build in the cache matching a glob
  local d
  for d in $(ls -d "$CACHE"/$1 2>/dev/null | sort -rV); do
    [ -f "$d/.complete" ] && { echo "$d"; return 0; }
  done
  return 1
}

OSSL=$(find_built 'openssl-3.5.*' || true)
if [ -z "$OSSL" ]; then
  read -r OVER OTAR < <(fetch_upstream openssl 3.5.)
  OSSL="$CACHE/openssl-$OVER"
  BUILD="$CACHE/build/openssl-$OVER"
  rm -rf "$BUILD" "$OSSL"; mkdir -p "$BUILD"
  log "building OpenSSL $OVER (5 to 8 minutes on 2 cores; cached afterwards)"
  tar -xf "$OTAR" -C "$BUILD" --strip-components=1
  (cd "$BUILD" &&
    ./Configure shared no-docs no-tests --prefix="$OSSL" --libdir=lib \
      "-Wl,-rpath,$OSSL/lib" >"$BUILD/configure.log" 2>&1 &&
    make -j"$(nproc)" >"$BUILD/make.log" 2>&1 &&
    make install_sw install_ssldirs >"$BUILD/install.log" 2>&1) ||
    die "OpenSSL build failed; see $BUILD/*.log"
  touch "$OSSL/.complete"
  rm -rf "$BUILD"
fi
"$OSSL/bin/openssl" version >/dev/null || die "cached OpenSSL at $OSSL does not run; delete it and re-run"

# ---- nginx 1.26, linked against that OpenSSL -----------------------------------------
OVERSION=$(basename "$OSSL"); OVERSION=${OVERSION#openssl-}
# The recipe number is part of the cache key: bump it when the configure flags change.
NGINX_RECIPE=2
NGX=$(find_built "nginx-1.26.*-openssl-$OVERSION-r$NGINX_RECIPE" || true)
if [ -z "$NGX" ]; then
  read -r NVER NTAR < <(fetch_upstream nginx 1.26.)
  NGX="$CACHE/nginx-$NVER-openssl-$OVERSION-r$NGINX_RECIPE"
  BUILD="$CACHE/build/nginx-$NVER"
  rm -rf "$BUILD" "$NGX"; mkdir -p "$BUILD"
  log "building nginx $NVER against OpenSSL $OVERSION"
  tar -xf "$NTAR" -C "$BUILD" --strip-components=1
  (cd "$BUILD" &&
    ./configure --prefix="$NGX" --with-http_ssl_module --with-http_v2_module \
      --with-threads --with-file-aio --with-pcre \
      --with-cc-opt="-I$OSSL/include -O2" \
      --with-ld-opt="-L$OSSL/lib -Wl,-rpath,$OSSL/lib" >"$BUILD/configure.log" 2>&1 &&
    make -j"$(nproc)" >"$BUILD/make.log" 2>&1 &&
    make install >"$BUILD/install.log" 2>&1) ||
    die "nginx build failed; see $BUILD/*.log"
  touch "$NGX/.complete"
  rm -rf "$BUILD"
fi
# (captured first: grep -q closing the pipe early would fail the pipeline under pipefail)
ngx_version=$("$NGX/sbin/nginx" -V 2>&1 || true)
case "$ngx_version" in *"OpenSSL 3.5"*) ;; *) die "nginx at $NGX is not linked against OpenSSL 3.5" ;; esac

# ---- npm packages of the HTML report (chart libraries, browser driver) -----------------
# The cache key is the lock file's hash: changing a pinned version makes a new directory.
here=$(cd "$(dirname "$0")/.." && pwd)
WEB_RECIPE=$(cat "$here/web/package.json" "$here/web/package-lock.json" | sha256sum | cut -c1-12)
WEB="$CACHE/web-$WEB_RECIPE"
if [ ! -f "$WEB/.complete" ]; then
  log "installing the report's npm packages into $WEB"
  rm -rf "$WEB"; mkdir -p "$WEB"
  cp "$here/web/package.json" "$here/web/package-lock.json" "$WEB/"
  (cd "$WEB" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund \
    --ignore-scripts >"$WEB/npm-install.log" 2>&1) ||
    { cat "$WEB/npm-install.log" >&2; die "npm install failed (see $WEB/npm-install.log)"; }
  touch "$WEB/.complete"
fi
for f in vega/build/vega.min.js vega-lite/build/vega-lite.min.js vega-embed/build/vega-embed.min.js \
  playwright-core/package.json; do
  [ -f "$WEB/node_modules/$f" ] || die "$WEB/node_modules/$f is missing; delete $WEB and re-run"
done

cat >"$CACHE/env.sh" <<ENV
PQC_OPENSSL_ROOT=$OSSL
PQC_NGINX=$NGX/sbin/nginx
PQC_WEB_MODULES=$WEB/node_modules
ENV
log "OpenSSL: $("$OSSL/bin/openssl" version)"
log "nginx:   $NGX/sbin/nginx"
echo "$CACHE/env.sh"
