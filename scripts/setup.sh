#!/usr/bin/env bash
# setup.sh [PART...] — installs what pqc-bench needs on Debian 12, idempotently, into a cache
# outside the checkout. Parts (none named: all three):
#   core   what building and running the tool needs: Debian's compilers and libraries,
#          OpenSSL 3.5 LTS (with its FIPS provider, loadable on demand), nghttp3 1.x (HTTP/3
#          framing and QPACK, a static library the tool links; shared by every OpenSSL) and
#          the HTML report's chart libraries — what ./scripts/quick.sh asks for
#   peers  nginx 1.26 and HAProxy 3.0 against that OpenSSL (`--set target=nginx|haproxy`)
#   tests  all of the above, and what test.sh's stages use besides: GoogleTest, Google
#          Benchmark, clang (fuzzing), h2load (nghttp2 1.64), Slurm and munge, Debian's
#          Chromium, Node.js and the browser driver's npm packages
# setup.sh --packages PART... prints the Debian packages of those parts and exits.
# A second run only checks stamps (seconds). Root is needed only to install Debian packages:
# as another user, missing packages are installed through sudo when it is there, and
# otherwise the one apt-get command that would is printed; a warm cache needs neither.
# PQC_OPENSSL (and PQC_OPENSSL_FLAGS) choose another OpenSSL instead — a newer release from
# Debian unstable, or your own source tree or install prefix; the peers are built against it
# once each; see scripts/lib/openssl_variant.sh.
#
# Why build OpenSSL: Debian 12 ships OpenSSL 3.0, which has no ML-KEM / ML-DSA.
# Why build nghttp3: Debian 12 ships 0.8, older than the 1.x API that OpenSSL's QUIC demos use.
# Why a private apt configuration: the system's sources must never be edited; apt still
# verifies every downloaded file against Debian's signed index.
# Why the chart libraries from npm's registry: the HTML report embeds vega, vega-lite and
# vega-embed at build time (pinned with their sha512 in web/package-lock.json, fetched into
# the cache by scripts/lib/fetch_chart_libs.py, never into the checkout); Node.js and npm are
# the tests' (playwright-core drives Debian's headless Chromium, never a browser of its own).
# Prints, as its last line, the cache prefix file (env.sh, or a variant's
# env-openssl-LABEL.sh) that build.sh sources.
set -euo pipefail

CACHE="${PQC_BENCH_CACHE:-$HOME/.cache/pqc-bench}"
log() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
# must_build WHAT — called before anything is installed or built. Under PQC_PREBUILT=1, which
# scripts/test.sh sets for its tests, nothing may be: test.sh's prepare step sets up and builds
# everything a test drives before the first test starts, so that no test's timeout depends on
# a warm cache (a cold OpenSSL build inside a test once took the README test past its limit).
must_build() {
  [ "${PQC_PREBUILT:-}" = 1 ] || return 0
  die "PQC_PREBUILT=1 (set by scripts/test.sh for its tests), but $1 is not in the cache \
($CACHE): a test may not install or build what takes minutes inside its timeout. Add it to \
test.sh's prepare step (what its tests drive is set up and built there), or run this command \
outside the tests."
}

here=$(cd "$(dirname "$0")/.." && pwd)

# valgrind: `count` counts instructions per handshake under callgrind, and its client-request
# header (valgrind/callgrind.h) opens and closes the measured window.
CORE_PACKAGES=(build-essential cmake ninja-build pkg-config perl
  libsqlite3-dev sqlite3 libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libnghttp2-dev iproute2 procps ca-certificates xz-utils python3 ccache git debian-archive-keyring valgrind)
# PCRE2 and zlib for nginx, Lua 5.4 for HAProxy's /payload service.
PEER_PACKAGES=(libpcre2-dev zlib1g-dev liblua5.4-dev)
TEST_PACKAGES=(libgtest-dev libgmock-dev libbenchmark-dev libev-dev slurm-wlm munge python3-yaml
  clang libclang-rt-14-dev lld python3-jsonschema chromium time)
# Node.js: a machine may already have its own (e.g. a vendor's nodejs package that bundles
# npm); Debian's nodejs/npm would replace or conflict with it, so they are added only when
# node or npm is missing.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  TEST_PACKAGES+=(nodejs npm)
fi

list_only=""
if [ "${1:-}" = --packages ]; then
  list_only=1
  shift
fi
want_peers="" want_tests=""
(($#)) || set -- all
for part in "$@"; do
  case $part in
    core) ;;
    peers) want_peers=1 ;;
    tests | all) want_peers=1 want_tests=1 ;;  # the tests drive nginx and HAProxy too
    *) die "unknown part '$part' (valid: core, peers, tests, all; none named: all)" ;;
  esac
done
PACKAGES=("${CORE_PACKAGES[@]}")
[ -n "$want_peers" ] && PACKAGES+=("${PEER_PACKAGES[@]}")
[ -n "$want_tests" ] && PACKAGES+=("${TEST_PACKAGES[@]}")
if [ -n "$list_only" ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

mkdir -p "$CACHE"
# shellcheck source=lib/debian_sources.sh
. "$here/scripts/lib/debian_sources.sh"
# shellcheck source=lib/openssl_variant.sh
. "$here/scripts/lib/openssl_variant.sh"
# A bad PQC_OPENSSL fails here, before anything is installed or fetched.
parse_variant

# One set-up at a time per cache (CI and a developer may share a machine).
exec 9>"$CACHE/.lock"
flock 9

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  must_build "the Debian packages ${missing[*]}"
  apt_cmd=(apt-get install -y -qq --no-install-recommends "${missing[@]}")
  as_root=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 ||
      die "Debian packages missing: ${missing[*]}. Installing them needs root: run
  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}
then this command again (everything else runs as you)."
    as_root=(sudo)
    log "installing Debian packages through sudo (the only step that needs root): ${missing[*]}"
  else
    log "installing Debian packages: ${missing[*]}"
  fi
  started=$SECONDS
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${apt_cmd[@]}" >"$CACHE/apt-install.log" 2>&1 ||
    { cat "$CACHE/apt-install.log" >&2; die "apt-get install failed"; }
  log "Debian packages installed in $((SECONDS - started)) s"
fi

# ---- OpenSSL: the default 3.5 LTS, or the variant PQC_OPENSSL names ---------------------
resolve_openssl

find_built() { # newest complete build in the cache matching a glob
  local d
  for d in $(ls -d "$CACHE"/$1 2>/dev/null | sort -rV); do
    [ -f "$d/.complete" ] && { echo "$d"; return 0; }
  done
  return 1
}

# ---- the HTML report's chart libraries (vega, vega-lite, vega-embed) -------------------
# The cache keys are the lock file's hash: changing a pinned version makes new directories.
WEB_RECIPE=$(cat "$here/web/package.json" "$here/web/package-lock.json" | sha256sum | cut -c1-12)
CHARTS="$CACHE/charts-$WEB_RECIPE"
if [ ! -f "$CHARTS/.complete" ]; then
  must_build "the report's chart libraries"
  log "fetching the report's chart libraries (vega, vega-lite, vega-embed) from npm's registry"
  rm -rf "$CHARTS"
  python3 "$here/scripts/lib/fetch_chart_libs.py" "$here/web/package-lock.json" "$CHARTS" >&2 ||
    die "could not fetch the chart libraries into $CHARTS"
  touch "$CHARTS/.complete"
fi
WEB="$CACHE/web-$WEB_RECIPE"  # the browser tests' npm packages (part tests)

# ---- nghttp3 (HTTP/3 framing and QPACK), which the tool links for HTTP/3 over QUIC -------
# A static library with position-independent code, in a prefix of its own (include/, lib/,
# lib/pkgconfig/) that build.sh hands to CMake; it needs no TLS library, so one build serves
# every OpenSSL variant. Debian 12's libnghttp3 is 0.8, older than the 1.x API. The source is
# Debian 13's backports, not trixie itself: trixie lists 1.8.0, but the Debian mirror the
# project's machines reach does not serve that tarball (nor bookworm-backports', the same
# file). nghttp3 keeps its API and ABI within 1.x, so the newest listed 1.x is taken:
# backports lists only its latest upload, and a pinned minor would stop fetching at the next.
# The tarball is upstream's release (make dist), so it holds the sfparse and munit sources
# that a git archive (like nghttp2's, above) lacks; checked, since the library compiles
# sfparse. Only the library is built (ENABLE_LIB_ONLY: no examples, and so no C++), without
# tests (BUILD_TESTING) or a shared library; CMake builds no documentation.
# The recipe number is part of the cache key: bump it when the CMake options change.
NGHTTP3_RECIPE=1
NGHTTP3=$(find_built "nghttp3-1.*-r$NGHTTP3_RECIPE" || true)
if [ -z "$NGHTTP3" ]; then
  must_build "nghttp3"
  fetched=$(fetch_upstream nghttp3 1 trixie-backports)
  read -r N3VER N3TAR <<<"$fetched"
  NGHTTP3="$CACHE/nghttp3-$N3VER-r$NGHTTP3_RECIPE"
  BUILD="$CACHE/build/nghttp3-$N3VER"
  rm -rf "$BUILD" "$NGHTTP3"; mkdir -p "$BUILD/src"
  log "building nghttp3 $N3VER (HTTP/3 framing and QPACK; 10 s on 2 cores; cached)"
  started=$SECONDS
  tar -xf "$N3TAR" -C "$BUILD/src" --strip-components=1
  [ -f "$BUILD/src/lib/sfparse/sfparse.c" ] ||
    die "nghttp3 $N3VER's tarball ($N3TAR) has no lib/sfparse/sfparse.c: not an upstream \
release (a git archive without its submodules?); the recipe needs a workaround"
  (cmake -S "$BUILD/src" -B "$BUILD/out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$NGHTTP3" -DCMAKE_INSTALL_LIBDIR=lib -DENABLE_LIB_ONLY=ON \
    -DENABLE_STATIC_LIB=ON -DENABLE_SHARED_LIB=OFF -DBUILD_TESTING=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON >"$BUILD/configure.log" 2>&1 &&
    cmake --build "$BUILD/out" -j"$(nproc)" >"$BUILD/make.log" 2>&1 &&
    cmake --install "$BUILD/out" >"$BUILD/install.log" 2>&1 &&
    [ -f "$NGHTTP3/lib/libnghttp3.a" ] && [ -f "$NGHTTP3/include/nghttp3/nghttp3.h" ]) ||
    die "nghttp3 $N3VER build failed; see $BUILD/*.log (configure.log: the options CMake \
took; make.log; install.log); a re-run starts that build afresh"
  touch "$NGHTTP3/.complete"
  rm -rf "$BUILD"
  log "nghttp3 $N3VER built in $((SECONDS - started)) s"
fi

# The peers' binaries at paths that do not depend on their versions: the tool is built with
# these as its defaults, so `setup.sh peers` after a core set-up needs no rebuild.
PEERS="$CACHE/peers-openssl-$OKEY"
mkdir -p "$PEERS"

if [ -n "$want_peers" ]; then
  # ---- nginx 1.26, linked against that OpenSSL -----------------------------------------
  # The recipe number is part of the cache key: bump it when the configure flags change.
  # OKEY ends with OpenSSL's own recipe (-rN, openssl_variant.sh), so every OpenSSL build,
  # a rebuild by a newer recipe included, gets an nginx of its own.
  NGINX_RECIPE=3
  NGX=$(find_built "nginx-1.26.*-openssl-$OKEY-r$NGINX_RECIPE" || true)
  if [ -z "$NGX" ]; then
    must_build "nginx for OpenSSL $OKEY"
    fetched=$(fetch_upstream nginx 1.26 trixie)
    read -r NVER NTAR <<<"$fetched"
    NGX="$CACHE/nginx-$NVER-openssl-$OKEY-r$NGINX_RECIPE"
    BUILD="$CACHE/build/nginx-$NVER-openssl-$OKEY"
    rm -rf "$BUILD" "$NGX"; mkdir -p "$BUILD"
    log "building nginx $NVER against OpenSSL $OVER"
    tar -xf "$NTAR" -C "$BUILD" --strip-components=1
    (cd "$BUILD" &&
      ./configure --prefix="$NGX" --with-http_ssl_module --with-http_v2_module --with-http_v3_module \
        --with-threads --with-file-aio --with-pcre \
        --with-cc-opt="-I$OSSL/include -O2" \
        --with-ld-opt="-L$OSSL/$OSSL_LIB -Wl,-rpath,$OSSL/$OSSL_LIB" >"$BUILD/configure.log" 2>&1 &&
      make -j"$(nproc)" >"$BUILD/make.log" 2>&1 &&
      make install >"$BUILD/install.log" 2>&1) ||
      die "nginx build against OpenSSL $OVER (PQC_OPENSSL=$REQ) failed; see $BUILD/*.log"
    touch "$NGX/.complete"
    rm -rf "$BUILD"
  fi
  # (captured first: grep -q closing the pipe early would fail the pipeline under pipefail)
  # nginx names the OpenSSL it was built with, and the one it runs with when they differ.
  ngx_version=$("$NGX/sbin/nginx" -V 2>&1 || true)
  case "$ngx_version" in
    *"running with"*) die "nginx at $NGX runs with another OpenSSL than it was built with: $ngx_version" ;;
    *"OpenSSL $OVER"*) ;;
    *) die "nginx at $NGX is not linked against OpenSSL $OVER" ;;
  esac

  # ---- HAProxy 3.0, linked against that OpenSSL ----------------------------------------
  # Built as upstream releases it, with Debian 13's tarball: PCRE2 (whose -dev package nginx
  # needs anyway) for regular expressions, Lua 5.4 (the target's /payload/<size> bodies are a
  # Lua service: HAProxy answers from its configuration only what fits one 16 KiB buffer), no
  # sd_notify; QUIC through HAProxy's OpenSSL compatibility layer (HTTP/3 arms: OpenSSL 3.5's
  # QUIC TLS API is not one HAProxy 3.0 speaks). The options are passed to the install step
  # too: HAProxy's Makefile rebuilds when they differ from the build's.
  HAPROXY_RECIPE=3
  HAP=$(find_built "haproxy-3.0.*-openssl-$OKEY-r$HAPROXY_RECIPE" || true)
  if [ -z "$HAP" ]; then
    must_build "HAProxy for OpenSSL $OKEY"
    fetched=$(fetch_upstream haproxy 3.0 trixie)
    read -r HVER HTAR <<<"$fetched"
    HAP="$CACHE/haproxy-$HVER-openssl-$OKEY-r$HAPROXY_RECIPE"
    BUILD="$CACHE/build/haproxy-$HVER-openssl-$OKEY"
    rm -rf "$BUILD" "$HAP"; mkdir -p "$BUILD"
    log "building HAProxy $HVER against OpenSSL $OVER (1 minute on 2 cores; cached)"
    started=$SECONDS
    tar -xf "$HTAR" -C "$BUILD" --strip-components=1
    hap_opts=(TARGET=linux-glibc USE_OPENSSL=1 "SSL_INC=$OSSL/include" "SSL_LIB=$OSSL/$OSSL_LIB"
      USE_PCRE2=1 USE_LUA=1 LUA_INC=/usr/include/lua5.4 LUA_LIB_NAME=lua5.4
      USE_SYSTEMD=0 USE_QUIC=1 USE_QUIC_OPENSSL_COMPAT=1 "ADDLIB=-Wl,-rpath,$OSSL/$OSSL_LIB"
      "PREFIX=$HAP")
    (make -C "$BUILD" -j"$(nproc)" "${hap_opts[@]}" >"$BUILD/make.log" 2>&1 &&
      make -C "$BUILD" "${hap_opts[@]}" install-bin >"$BUILD/install.log" 2>&1) ||
      die "HAProxy build against OpenSSL $OVER (PQC_OPENSSL=$REQ) failed; see $BUILD/*.log"
    touch "$HAP/.complete"
    rm -rf "$BUILD"
    log "HAProxy $HVER built in $((SECONDS - started)) s"
  fi
  # haproxy -vv names the OpenSSL it was built with and the one it runs on.
  hap_version=$("$HAP/sbin/haproxy" -vv 2>&1 || true)
  if ! grep -qF "Built with OpenSSL version : OpenSSL $OVER " <<<"$hap_version" ||
    ! grep -qF "Running on OpenSSL version : OpenSSL $OVER " <<<"$hap_version"; then
    die "HAProxy at $HAP is not built with and running on OpenSSL $OVER: \
  $(grep -F 'OpenSSL version' <<<"$hap_version" | paste -sd ';' -)"
  fi
  grep -qF "Built with Lua version" <<<"$hap_version" || die "HAProxy at $HAP is built without Lua"
  grep -qF "+QUIC_OPENSSL_COMPAT" <<<"$hap_version" || die "HAProxy at $HAP is built without QUIC"
  ln -sfn "$NGX/sbin/nginx" "$PEERS/nginx"
  ln -sfn "$HAP/sbin/haproxy" "$PEERS/haproxy"
fi

if [ -n "$want_tests" ]; then
  # ---- h2load (nghttp2's load generator), linked against that OpenSSL ---------------------
  # Only h2load and the libnghttp2 it links are built (nghttpx, nghttp and nghttpd would add
  # c-ares and more), with CMake: Debian's tarball is a git archive without a configure
  # script (and without its submodules). Every optional library is kept out, so that h2load
  # links exactly libnghttp2, libev, zlib and our OpenSSL whatever else the machine has
  # installed. The install is by hand (CMake's would install the applications not built):
  # bin/h2load and lib/libnghttp2, both found through the rpath.
  H2LOAD_RECIPE=1
  H2=$(find_built "nghttp2-1.64.*-openssl-$OKEY-r$H2LOAD_RECIPE" || true)
  if [ -z "$H2" ]; then
    must_build "h2load for OpenSSL $OKEY"
    fetched=$(fetch_upstream nghttp2 1.64 trixie)
    read -r H2VER H2TAR <<<"$fetched"
    H2="$CACHE/nghttp2-$H2VER-openssl-$OKEY-r$H2LOAD_RECIPE"
    BUILD="$CACHE/build/nghttp2-$H2VER-openssl-$OKEY"
    rm -rf "$BUILD" "$H2"; mkdir -p "$BUILD/src"
    log "building h2load (nghttp2 $H2VER) against OpenSSL $OVER (20 s on 2 cores; cached)"
    started=$SECONDS
    tar -xf "$H2TAR" -C "$BUILD/src" --strip-components=1
    # The tarball leaves out the munit submodule, yet CMake wants the source of the (never
    # built) nghttpx-unittest target to exist.
    [ -e "$BUILD/src/tests/munit/munit.c" ] || : >"$BUILD/src/tests/munit/munit.c"
    no_find=()
    for p in Libcares Jansson Libevent Systemd LibXml2 Jemalloc Libbrotlienc Libbrotlidec \
      Libngtcp2 Libnghttp3 Libbpf; do
      no_find+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
    done
    (PKG_CONFIG_PATH="$OSSL/$OSSL_LIB/pkgconfig" cmake -S "$BUILD/src" -B "$BUILD/out" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DOPENSSL_ROOT_DIR="$OSSL" -DENABLE_APP=ON -DENABLE_HTTP3=OFF \
      -DENABLE_HPACK_TOOLS=OFF -DENABLE_EXAMPLES=OFF -DENABLE_DOC=OFF -DENABLE_FAILMALLOC=OFF \
      -DBUILD_TESTING=OFF -DWITH_LIBXML2=OFF -DWITH_JEMALLOC=OFF "${no_find[@]}" \
      -DCMAKE_SKIP_BUILD_RPATH=ON -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath,$OSSL/$OSSL_LIB:$H2/lib" \
      >"$BUILD/configure.log" 2>&1 &&
      grep -qxF "OPENSSL_INCLUDE_DIR:PATH=$OSSL/include" "$BUILD/out/CMakeCache.txt" &&
      cmake --build "$BUILD/out" -j"$(nproc)" --target h2load >"$BUILD/make.log" 2>&1 &&
      install -D -m 755 "$BUILD/out/src/h2load" "$H2/bin/h2load" &&
      install -d "$H2/lib" && cp -P "$BUILD/out/lib/"libnghttp2.so.* "$H2/lib/") ||
      die "h2load build against OpenSSL $OVER (PQC_OPENSSL=$REQ) failed; see $BUILD/*.log \
  (configure.log: which OpenSSL CMake found)"
    touch "$H2/.complete"
    rm -rf "$BUILD"
    log "h2load (nghttp2 $H2VER) built in $((SECONDS - started)) s"
  fi
  # h2load names no OpenSSL: the dynamic loader says which libssl it takes.
  h2_version=$("$H2/bin/h2load" --version 2>&1) ||
    die "h2load at $H2/bin/h2load does not run: $h2_version"
  h2_libs=$(env -u LD_LIBRARY_PATH ldd "$H2/bin/h2load" 2>&1 || true)
  grep -qF "libssl.so.3 => $OSSL/$OSSL_LIB/libssl.so.3 " <<<"$h2_libs" ||
    die "h2load at $H2/bin/h2load does not load OpenSSL $OVER's libssl from $OSSL/$OSSL_LIB: \
  $(grep -F libssl <<<"$h2_libs" || echo 'no libssl at all')"
  ln -sfn "$H2/bin/h2load" "$PEERS/h2load"

  # ---- npm packages of the browser tests (playwright-core, and the charts it renders) -------
  if [ ! -f "$WEB/.complete" ]; then
    must_build "the browser tests' npm packages"
    log "installing the browser tests' npm packages into $WEB"
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
fi

# How a message tells the user to build a peer of this same OpenSSL. The default's (no label:
# PQC_OPENSSL unset, or naming the default release) is the plain command whichever way it was
# asked for: it is compiled into the default tree's pqc-bench, and `PQC_OPENSSL=3.5` (as
# openssl-versions.sh asks) must not change that tree's flags and recompile its tool.
PQC_PEERS_PREFIX=""
if [ -n "$LABEL" ]; then
  [ -n "${PQC_OPENSSL:-}" ] && PQC_PEERS_PREFIX="PQC_OPENSSL=${PQC_OPENSSL} "
  [ -n "${PQC_OPENSSL_FLAGS:-}" ] && PQC_PEERS_PREFIX+="PQC_OPENSSL_FLAGS='${PQC_OPENSSL_FLAGS}' "
fi
# The default keeps env.sh; a variant has its own, named by its label.
ENVFILE="$CACHE/env.sh"
[ -n "$LABEL" ] && ENVFILE="$CACHE/env-openssl-$LABEL.sh"
cat >"$ENVFILE" <<ENV
PQC_OPENSSL_ROOT=$OSSL
PQC_NGHTTP3_ROOT=$NGHTTP3
PQC_NGINX=$PEERS/nginx
PQC_HAPROXY=$PEERS/haproxy
PQC_H2LOAD=$PEERS/h2load
PQC_WEB_MODULES=$CHARTS/node_modules
PQC_BROWSER_MODULES=$WEB/node_modules
PQC_OPENSSL_VARIANT=$LABEL
PQC_PEERS_COMMAND="${PQC_PEERS_PREFIX}./scripts/setup.sh peers"
ENV
log "OpenSSL: $OVER${LABEL:+ (variant $LABEL)} at $OSSL"
log "nghttp3: $NGHTTP3"
for peer in nginx haproxy h2load; do
  part=peers
  [ "$peer" = h2load ] && part=tests
  if [ -e "$PEERS/$peer" ]; then
    log "$peer: $(readlink "$PEERS/$peer")"
  else
    log "$peer: not built (${PQC_PEERS_PREFIX}./scripts/setup.sh $part builds it)"
  fi
done
echo "$ENVFILE"
