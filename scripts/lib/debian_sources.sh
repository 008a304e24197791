# debian_sources.sh — sourced by setup.sh: Debian source packages fetched through a private
# apt configuration per suite (its own sources list, lists and cache under $CACHE; the
# system's sources are never edited). apt verifies every file against the suite's signed
# index. Suites: trixie (Debian 13, the default OpenSSL 3.5 and nginx; $CACHE/apt, as before
# variants existed), sid (unstable, newer OpenSSL releases; $CACHE/apt-sid, so that its
# index never replaces trixie's) and trixie-backports (Debian 13's backports, nghttp3;
# $CACHE/apt-trixie-backports).
# Needs: CACHE, log, die.

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# suite_dir SUITE → its private apt directory.
suite_dir() {
  case $1 in trixie) echo "$CACHE/apt" ;; *) echo "$CACHE/apt-$1" ;; esac
}

# suite_title SUITE → how messages name it.
suite_title() {
  case $1 in
    trixie) echo "Debian 13 (trixie)" ;;
    trixie-backports) echo "Debian 13 backports (trixie-backports)" ;;
    sid) echo "Debian unstable (sid)" ;;
    *) echo "$1" ;;
  esac
}

# apt_in SUITE TOOL ARGS... — apt-get or apt-cache with the suite's private configuration.
apt_in() {
  local dir
  dir=$(suite_dir "$1")
  "$2" -o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
    -o "Dir::Cache::Archives=$dir/archives" -o "APT::Sandbox::User=$(id -un)" "${@:3}"
}

# Each suite's index is refreshed at most once per set-up (the callers run in subshells, so
# a marker file per process rather than a variable records it).
trap 'rm -f "$CACHE"/apt*/.refreshed-$$' EXIT
refresh_lists() {
  local suite=$1 dir
  dir=$(suite_dir "$suite")
  [ -f "$dir/.refreshed-$$" ] && return
  mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/cache" "$dir/src"
  case $suite in
    trixie)
      cat >"$dir/sources.list" <<SRC
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian trixie main
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian trixie-updates main
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian-security trixie-security main
SRC
      ;;
    *) echo "deb-src [signed-by=$KEYRING] http://deb.debian.org/debian $suite main" >"$dir/sources.list" ;;
  esac
  log "reading the $(suite_title "$suite") source index (private apt configuration)"
  apt_in "$suite" apt-get -qq update >&2 || die "could not read the $(suite_title "$suite") source index"
  rm -f "$dir"/.refreshed-*
  touch "$dir/.refreshed-$$"
}

# matches_prefix UPSTREAM PREFIX — "3.6" matches 3.6 and 3.6.5, never 3.60.
matches_prefix() {
  [ "$1" = "$2" ] || [[ $1 == "$2".* ]]
}

# listed_versions PKG SUITE [PREFIX] → the suite's Debian versions of PKG whose upstream
# version matches PREFIX, newest first.
listed_versions() {
  local v up
  refresh_lists "$2"
  for v in $(apt_in "$2" apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/{print $2}' | sort -rV | uniq); do
    up=${v%%-*}; up=${up#*:}
    [ -z "${3:-}" ] || matches_prefix "$up" "$3" && echo "$v"
  done
  return 0
}

# fetch_upstream PKG PREFIX SUITE → prints "UPSTREAM_VERSION TARBALL" of a verified upstream
# tarball. The index may list versions whose files the pool no longer holds, so each listed
# version is tried newest first. Only the .orig tarball is needed: we build upstream sources
# as released (apt checks its hash against the signed Sources index).
fetch_upstream() {
  local pkg=$1 prefix=$2 suite=$3 v up dir t
  for v in $(listed_versions "$pkg" "$suite" "$prefix"); do
    up=${v%%-*}; up=${up#*:}
    dir="$(suite_dir "$suite")/src/$pkg-$v"
    mkdir -p "$dir"
    if ! ls "$dir/${pkg}_${up}.orig.tar."* >/dev/null 2>&1; then
      log "fetching $pkg $v"
      (cd "$dir" && apt_in "$suite" apt-get -qq source --download-only "$pkg=$v" >/dev/null 2>&1) || true
    fi
    for t in "$dir/${pkg}_${up}.orig.tar."{gz,xz}; do
      if [ -f "$t" ]; then echo "$up $t"; return 0; fi
    done
    log "$pkg $v: not in the pool, trying an older listed version"
  done
  die "no $prefix version of the $pkg source package could be fetched from $(suite_title "$suite")"
}
