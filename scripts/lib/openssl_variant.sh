# openssl_variant.sh — sourced by setup.sh: which OpenSSL to build pqc-bench against, chosen
# by PQC_OPENSSL (and PQC_OPENSSL_FLAGS, extra Configure flags), and its build in the cache.
#   unset, "" or 3.5   the default: OpenSSL 3.5 LTS from Debian 13 (env.sh, build/)
#   3.6, 3.6.5, ...    a release: the newest listed version with that prefix, from Debian 13's
#                      source index or, when it lists none, unstable's (sid)
#   /path (or ./path)  a source tree (has Configure: built into the cache, keyed by its
#                      version and a hash of its state — the before/after of a patch) or an
#                      install prefix (include/openssl/opensslv.h and lib/ or lib64/libssl.so:
#                      used in place)
# Each variant other than the default has a label, which names its env file
# (env-openssl-LABEL.sh) and build.sh's build directories (build-openssl-LABEL/).
# Every cached build is keyed by version, source state, flags and OPENSSL_RECIPE, so that no
# two variants ever share a directory and a build made by an older recipe is never taken.
# Every build includes OpenSSL's FIPS provider (enable-fips; fips.so and fipsmodule.cnf
# installed, known to openssl.cnf but not activated), so that a program can load it with
# OSSL_PROVIDER_load(NULL, "fips") while everything else keeps using the default provider.
# Needs: CACHE, log, die, must_build (setup.sh), and debian_sources.sh.

VALID_VARIANTS="a version prefix that Debian 13 or unstable lists (3.5, 3.6, 3.6.5), an \
OpenSSL source tree (a directory with Configure) or an install prefix (a directory with \
include/openssl/opensslv.h and lib/libssl.so or lib64/libssl.so); a relative path starts with ./"

short_hash() { sha256sum | cut -c1-"$1"; }

# The recipe number ends every OpenSSL cache directory's name (RSUF), after the flags' suffix:
# bump it when build_openssl's Configure flags or install steps change. 2: enable-fips and
# the FIPS provider installed (the unnumbered builds before it have none). 3: no static
# libraries (nothing here links them: the tool, nginx, HAProxy and h2load take the shared
# ones), so libcrypto's 838 sources and libssl's 94 compile once, not twice.
OPENSSL_RECIPE=3
RSUF="-r$OPENSSL_RECIPE"

# parse_variant — reads PQC_OPENSSL and PQC_OPENSSL_FLAGS once, before anything is installed
# or fetched, so that a bad value fails at once. Sets REQ, KIND (default, release, source,
# prefix), SRC (absolute path for source and prefix), FLAG_ARGS and FSUF (the flags' part of
# every cache key: "" without flags, else "-f" and a hash of them).
parse_variant() {
  REQ=${PQC_OPENSSL:-}
  local flags=${PQC_OPENSSL_FLAGS:-}
  read -ra FLAG_ARGS <<<"$flags"
  FSUF=""
  ((${#FLAG_ARGS[@]})) && FSUF="-f$(printf '%s\n' "${FLAG_ARGS[@]}" | short_hash 8)"
  case "$REQ" in
    "" | 3.5) KIND=default; [ -n "$FSUF" ] && KIND=release; REQ=3.5 ;;
    */*)
      [ -d "$REQ" ] || die "PQC_OPENSSL=$REQ: no such directory; valid: $VALID_VARIANTS"
      SRC=$(cd "$REQ" && pwd)
      if [ -f "$SRC/Configure" ]; then
        KIND=source
      elif [ -f "$SRC/include/openssl/opensslv.h" ] &&
        { [ -e "$SRC/lib/libssl.so" ] || [ -e "$SRC/lib64/libssl.so" ]; }; then
        KIND=prefix
        [ -z "$FSUF" ] || die "PQC_OPENSSL_FLAGS=$flags: $REQ is an install prefix, used as it is \
(flags apply to builds: give a source tree or a version instead)"
      else
        die "PQC_OPENSSL=$REQ: neither an OpenSSL source tree (no Configure) nor an install \
prefix (no include/openssl/opensslv.h with lib/libssl.so or lib64/libssl.so); valid: $VALID_VARIANTS"
      fi
      ;;
    *)
      [[ $REQ =~ ^[0-9]+(\.[0-9]+){0,2}$ ]] || die "PQC_OPENSSL=$REQ: not a version or a path; \
valid: $VALID_VARIANTS"
      KIND=release
      ;;
  esac
}

# need_35 WHAT MAJOR MINOR — pqc-bench needs ML-KEM and ML-DSA (OpenSSL 3.5 and newer).
need_35() {
  (($2 > 3 || ($2 == 3 && $3 >= 5))) ||
    die "PQC_OPENSSL=$REQ: $1 is OpenSSL $2.$3; pqc-bench needs 3.5 or newer (ML-KEM, ML-DSA)"
}

# find_release_build PREFIX → the newest complete cached build of a release matching PREFIX
# built with this variant's flags by this recipe (a build with other flags or from a source
# tree has a longer name, one by another recipe another ending, and is never taken).
find_release_build() {
  local d v
  for d in $(ls -d "$CACHE/openssl-$1"* 2>/dev/null | sort -rV); do
    v=${d##*/openssl-}
    [[ $v == *"$FSUF$RSUF" ]] || continue
    v=${v%"$FSUF$RSUF"}
    [[ $v == *-* ]] && continue
    matches_prefix "$v" "$1" && [ -f "$d/.complete" ] && { echo "$d"; return 0; }
  done
  return 1
}

# release_suite PREFIX → the suite whose index lists a matching OpenSSL, Debian 13 first.
release_suite() {
  local suite
  for suite in trixie sid; do
    [ -n "$(listed_versions openssl "$suite" "$1")" ] && { echo "$suite"; return 0; }
  done
  local listed_trixie listed_sid
  listed_trixie=$(listed_versions openssl trixie | paste -sd ' ' -)
  listed_sid=$(listed_versions openssl sid | paste -sd ' ' -)
  die "PQC_OPENSSL=$1: no OpenSSL $1 is listed in $(suite_title trixie) ($listed_trixie) or \
$(suite_title sid) ($listed_sid); valid: $VALID_VARIANTS"
}

# tree_version DIR → the version of an OpenSSL 3 source tree, from its VERSION.dat.
tree_version() {
  local MAJOR="" MINOR="" PATCH="" PRE_RELEASE_TAG="" BUILD_METADATA=""
  [ -f "$1/VERSION.dat" ] || die "PQC_OPENSSL=$REQ: a source tree without VERSION.dat (OpenSSL 3 \
trees have one; pqc-bench needs 3.5 or newer)"
  eval "$(grep -E '^(MAJOR|MINOR|PATCH|PRE_RELEASE_TAG|BUILD_METADATA)=[A-Za-z0-9._-]*$' "$1/VERSION.dat")"
  [[ $MAJOR =~ ^[0-9]+$ && $MINOR =~ ^[0-9]+$ ]] || die "PQC_OPENSSL=$REQ: VERSION.dat has no MAJOR/MINOR"
  need_35 "the source tree" "$MAJOR" "$MINOR"
  echo "$MAJOR.$MINOR.$PATCH${PRE_RELEASE_TAG:+-$PRE_RELEASE_TAG}${BUILD_METADATA:++$BUILD_METADATA}"
}

# in_tree DIR GIT-ARGS... — git on a user's tree, whoever owns it (set-up runs as root).
in_tree() { git -c safe.directory='*' -C "$@"; }

# tree_state DIR → a hash of the tree as it is now: in a git work tree, HEAD, the diff against
# it and the untracked files that are not ignored (a patch, committed or not); elsewhere,
# every file's path, size and modification time.
tree_state() {
  if in_tree "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    {
      in_tree "$1" rev-parse HEAD
      in_tree "$1" diff --binary HEAD -- .
      in_tree "$1" ls-files -z --others --exclude-standard -- . | (cd "$1" && xargs -0 -r sha256sum)
    } | short_hash 12
  else
    (cd "$1" && find . -type f -printf '%P\t%s\t%T@\n' | LC_ALL=C sort) | short_hash 12
  fi
}

# copy_tree SRC DEST — a git tree's tracked and unignored files (never its build products or
# .git), or every file of another tree. The user's tree itself is never written to.
copy_tree() {
  if in_tree "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$1" && in_tree . ls-files -z --cached --others --exclude-standard -- . |
      while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
      tar --null --no-recursion -T - -cf -) | tar -xf - -C "$2"
  else
    tar -C "$1" -cf - . | tar -xf - -C "$2"
  fi
}

# build_openssl tarball|tree SOURCE DEST WHAT — configure, build and install into DEST, with
# the FIPS provider (unless PQC_OPENSSL_FLAGS says no-fips); the build directory is kept on
# failure, for its logs. A source tree whose Configure refuses enable-fips (a tree that
# removed or broke it) is configured again without it and built with no FIPS provider, as
# the set-up logs: the tree is what is being measured, FIPS is an extra. A release must
# build it.
build_openssl() {
  local build="$CACHE/build/${3##*/}" fips=enable-fips flag
  must_build "OpenSSL $4"
  for flag in "${FLAG_ARGS[@]}"; do [ "$flag" = no-fips ] && fips=""; done
  rm -rf "$build" "$3"; mkdir -p "$build"
  # Measured on 2 idle cores: 124-135 s without the static archives (2026-12-06), 5 minutes
  # with them (then a build split in two, the FIPS provider's modules apart, took 291 s + 22 s:
  # not worth a second step for the main command).
  log "building OpenSSL $4 (2–3 minutes on 2 idle cores, more on busy ones; cached afterwards)"
  local started=$SECONDS
  case $1 in
    tarball) tar -xf "$2" -C "$build" --strip-components=1 ;;
    tree) copy_tree "$2" "$build" ;;
  esac
  if ! configure_openssl "$build" "$3" ${fips:+"$fips"} >"$build/configure.log" 2>&1; then
    [ "$1" = tree ] && [ -n "$fips" ] || build_failed "$build" configure "$4"
    mv "$build/configure.log" "$build/configure-fips.log"
    fips=""
    configure_openssl "$build" "$3" >"$build/configure.log" 2>&1 || build_failed "$build" configure "$4"
    log "OpenSSL $4: Configure refused enable-fips ($(tail -n 1 "$build/configure-fips.log")); \
building it without the FIPS provider"
  fi
  # What the tool uses, nothing more: the shared libraries, the providers (default, legacy,
  # FIPS), the engines and the `openssl` program. OpenSSL's Makefile compiles every source of
  # libcrypto and libssl a second time for their static archives (libcrypto-lib-*.o beside
  # libcrypto-shlib-*.o); emptying LIBS and INSTALL_LIBS on make's command line (which the
  # sub-makes inherit) leaves them out of build_sw and install_sw, while the archives the
  # shared objects link (providers/libdefault.a, libcommon.a, libfips.a, apps/libapps.a) are
  # prerequisites of their own rules and still built. Measured: docs/development.md.
  local keep=(LIBS= INSTALL_LIBS=)
  make -C "$build" -j"$(nproc)" "${keep[@]}" >"$build/make.log" 2>&1 || build_failed "$build" make "$4"
  make -C "$build" "${keep[@]}" install_sw install_ssldirs ${fips:+install_fips} >"$build/install.log" 2>&1 ||
    build_failed "$build" install "$4"
  [ -e "$3/lib/libcrypto.so" ] && [ -e "$3/lib/libssl.so" ] ||
    die "OpenSSL $4: no libcrypto.so and libssl.so in $3/lib: pqc-bench, nginx and HAProxy link \
OpenSSL's shared libraries (PQC_OPENSSL_FLAGS must not hold no-shared)"
  [ -z "$fips" ] || fips_config "$3" "$4"
  touch "$3/.complete"
  rm -rf "$build"
  log "OpenSSL $4 built in $((SECONDS - started)) s"
}

# build_failed BUILD STEP WHAT — the step's log's last lines, then which variant failed where.
build_failed() {
  tail -n 5 "$1/$2.log" >&2
  die "OpenSSL $3 (PQC_OPENSSL=$REQ${FLAG_ARGS[*]:+, PQC_OPENSSL_FLAGS=${FLAG_ARGS[*]}}): \
$2 failed; see $1/$2.log"
}

# configure_openssl BUILD PREFIX [EXTRA...] — OpenSSL's Configure with the set-up's flags.
configure_openssl() {
  (cd "$1" && ./Configure shared no-docs no-tests "${@:3}" --prefix="$2" --libdir=lib \
    "-Wl,-rpath,$2/lib" "${FLAG_ARGS[@]}")
}

# fips_config PREFIX WHAT — makes the installed FIPS provider loadable on demand, then checks
# it. fipsmodule.cnf (from install_fips) holds the module's integrity MAC, without which the
# provider's self-test fails; openssl.cnf names its section in provider_sect but with
# activate = 0 (overriding fipsmodule.cnf's 1), so the provider is registered, not loaded:
# activating it would switch off the implicit default provider for every program, nginx
# included. The include is absolute because OpenSSL resolves a relative one against the
# working directory.
fips_config() {
  local ssl mods out
  # OPENSSLDIR (<prefix>/ssl) and MODULESDIR (<prefix>/lib/ossl-modules), as built: flags
  # may move them.
  ssl=$("$1/bin/openssl" version -d | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')
  mods=$("$1/bin/openssl" version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
  [ -f "$mods/fips.so" ] && [ -f "$ssl/fipsmodule.cnf" ] && [ -f "$ssl/openssl.cnf" ] ||
    die "OpenSSL $2: install_fips left no $mods/fips.so or $ssl/fipsmodule.cnf (or no $ssl/openssl.cnf)"
  cat >>"$ssl/openssl.cnf" <<CNF

# Added by pqc-bench's set-up: the FIPS provider, registered but not activated; load it
# with OSSL_PROVIDER_load(NULL, "fips") (and base or default for encoders and decoders).
.include $ssl/fipsmodule.cnf
[provider_sect]
fips = fips_sect
[fips_sect]
activate = 0
CNF
  # The check runs the module's self-test, as a program's OSSL_PROVIDER_load will.
  out=$(env -u OPENSSL_CONF -u OPENSSL_MODULES "$1/bin/openssl" list -providers \
    -provider fips -provider base 2>&1) && provider_active "$out" fips ||
    die "OpenSSL $2: the FIPS provider does not load (its self-test or its configuration in \
$ssl/fipsmodule.cnf failed): $out"
  out=$(env -u OPENSSL_CONF -u OPENSSL_MODULES "$1/bin/openssl" list -providers 2>&1) &&
    provider_active "$out" default && ! provider_active "$out" fips ||
    die "OpenSSL $2: with $ssl/openssl.cnf the default provider alone must be active: $out"
}

# provider_active LISTING NAME — `openssl list -providers` shows NAME with status active.
provider_active() {
  awk -v name="$2" '/^  [^ ]/ { cur = $1 } cur == name && /status: active/ { found = 1 }
    END { exit !found }' <<<"$1"
}

# header_define NAME HEADER → the value of `# define NAME VALUE` in a C header.
header_define() {
  sed -n "s/^#[[:space:]]*define[[:space:]]\{1,\}$1[[:space:]]\{1,\}\(.*[^[:space:]]\)[[:space:]]*$/\1/p" "$2" | head -n 1
}

# resolve_openssl — makes sure the variant's OpenSSL is built (or, for a prefix, usable) and
# sets OSSL (its prefix), OSSL_LIB (its library directory), OVER (its version), OKEY (what
# names the nginx built against it) and LABEL ("" for the default).
resolve_openssl() {
  local suite fetched up tar hash
  OSSL_LIB=lib
  case $KIND in
    default | release)
      OSSL=$(find_release_build "$REQ" || true)
      if [ -z "$OSSL" ]; then
        suite=$(release_suite "$REQ")
        fetched=$(fetch_upstream openssl "$REQ" "$suite")
        read -r up tar <<<"$fetched"
        OSSL="$CACHE/openssl-$up$FSUF$RSUF"
        build_openssl tarball "$tar" "$OSSL" "$up from $(suite_title "$suite")${FSUF:+ with ${FLAG_ARGS[*]}}"
      fi
      # The real directory: a cache may link a build made elsewhere, and the compiler cache
      # (ccache) hits only when the include path is the one it compiled with.
      OSSL=$(readlink -f "$OSSL")
      LABEL=""
      [ "$KIND" = release ] && LABEL="$REQ$FSUF"
      ;;
    source)
      up=$(tree_version "$SRC")
      hash=$(tree_state "$SRC")
      OSSL="$CACHE/openssl-$up-src-$hash$FSUF$RSUF"
      [ -f "$OSSL/.complete" ] || build_openssl tree "$SRC" "$OSSL" "$up from the source tree $REQ"
      LABEL="$up-src-${hash:0:8}$FSUF"
      ;;
    prefix)
      OSSL=$SRC
      [ -e "$OSSL/lib/libssl.so" ] || OSSL_LIB=lib64
      local h="$OSSL/include/openssl/opensslv.h" major minor
      major=$(header_define OPENSSL_VERSION_MAJOR "$h")
      minor=$(header_define OPENSSL_VERSION_MINOR "$h")
      [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] ||
        die "PQC_OPENSSL=$REQ: $h has no OPENSSL_VERSION_MAJOR/MINOR (OpenSSL 3 headers do)"
      need_35 "the install prefix" "$major" "$minor"
      up=$(header_define OPENSSL_FULL_VERSION_STR "$h" | tr -d '"')
      LABEL="$up-prefix-$(printf '%s' "$OSSL" | short_hash 8)"
      ;;
  esac
  OVER=${up:-${OSSL##*/openssl-}}
  OVER=${OVER%"$RSUF"}
  OVER=${OVER%"$FSUF"}
  # A built variant's directory name (recipe included) is its key; a prefix's key is its label.
  OKEY=${OSSL##*/openssl-}
  [ "$KIND" = prefix ] && OKEY=$LABEL
  if [ -x "$OSSL/bin/openssl" ]; then
    "$OSSL/bin/openssl" version >/dev/null ||
      die "the OpenSSL at $OSSL does not run; delete it (or fix the prefix) and re-run"
  fi
}
