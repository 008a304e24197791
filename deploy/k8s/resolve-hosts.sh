#!/usr/bin/env bash
# resolve-hosts.sh PROGRAM ARGS... — execs PROGRAM ARGS with the host of
# `--rendezvous HOST:PORT` and of `--serve-host HOST` replaced by its numeric address.
#
# Why: pqc-bench never resolves names (src/net/address.h: a typo must fail loudly rather than
# reach some host through DNS), but in a Kubernetes Indexed Job the leader, shard 0, is known by
# its pod's stable DNS name only, <job>-0.<headless service> (pqc-bench-shards.yaml). Every shard
# resolves that same name: the followers to join the leader there, the leader to bind its
# rendezvous and its targets to its own pod address. The pods start in any order and the
# Service publishes a pod's record only once the pod has an address, so the name is looked up
# again every 2 s until PQC_RESOLVE_TIMEOUT seconds (default 300) have passed.
# Numeric addresses (10.0.0.1, [fd00::1]:40000, 0.0.0.0) and localhost are passed unchanged.
set -euo pipefail

timeout=${PQC_RESOLVE_TIMEOUT:-300}
die() { printf 'resolve-hosts: %s\n' "$*" >&2; exit 2; }
(($# > 0)) || die "usage: resolve-hosts.sh PROGRAM ARGS..."

numeric() { [[ $1 =~ ^[0-9]+(\.[0-9]+){3}$ || $1 == *:* || $1 == localhost ]]; }

declare -A resolved=()
lookup() { # NAME → sets $addr: its IPv4 address, or IPv6 when it has none
  local name=$1 deadline=$((SECONDS + timeout))
  if [[ -n ${resolved[$name]:-} ]]; then addr=${resolved[$name]}; return; fi
  while :; do
    addr=$(getent ahostsv4 "$name" | awk 'NR == 1 { print $1 }' || true)
    [[ -n $addr ]] || addr=$(getent ahostsv6 "$name" | awk 'NR == 1 { print $1 }' || true)
    if [[ -n $addr ]]; then
      resolved[$name]=$addr
      printf 'resolve-hosts: %s is %s\n' "$name" "$addr" >&2
      return
    fi
    ((SECONDS < deadline)) || die "no address for '$name' after ${timeout} s (is the headless \
Service applied, is the pod template's subdomain its name, and is shard 0 running?)"
    sleep 2
  done
}

host_of() { # VALUE of --serve-host → numeric host
  if numeric "$1"; then out=$1; else lookup "$1"; out=$addr; fi
}
endpoint_of() { # VALUE of --rendezvous (HOST:PORT) → numeric HOST:PORT
  local v=$1 host port
  [[ $v == *:* ]] || die "--rendezvous $v: expected HOST:PORT"
  host=${v%:*} port=${v##*:}
  if [[ $host == \[*\] ]] || numeric "$host"; then out=$v; return; fi
  lookup "$host"
  if [[ $addr == *:* ]]; then out="[$addr]:$port"; else out="$addr:$port"; fi
}

args=()
while (($# > 0)); do
  case $1 in
    --rendezvous | --serve-host)
      (($# > 1)) || die "$1 needs a value"
      if [[ $1 == --rendezvous ]]; then endpoint_of "$2"; else host_of "$2"; fi
      args+=("$1" "$out"); shift 2 ;;
    --rendezvous=*) endpoint_of "${1#*=}"; args+=("--rendezvous=$out"); shift ;;
    --serve-host=*) host_of "${1#*=}"; args+=("--serve-host=$out"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
exec "${args[@]}"
