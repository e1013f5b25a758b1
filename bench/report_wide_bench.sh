#!/usr/bin/env bash
# report_wide_bench.sh — `forgemeter report` over ONE meter line of N distinct
# entries, N = 10 000, 100 000 and 1 000 000: the time per entry must stay
# flat (the work is linear in a line's entries; a real line carries one entry
# per installation, a crafted one as many as fit in the 16 MiB line limit).
#
#   bench/report_wide_bench.sh BUILD_DIR [N...]
#
# Kinds, each a log of its own (the names in base 36 and out of byte order,
# the installations counting down, so no map is built in its own order):
#   hosts          one count line of N hosts          `h<i> rest o=1`
#   lanes          one count line of N lanes          `h rest l<i>=1`
#   installations  one count line of N installations  `h rest installation <i> o=1`
#   answers        a count line and an answers line of N hosts
#   lanes-line     a count line and a lanes line of N lanes
#   resources      a budget line of N resources       `h rest installation 1 r<i>: 5 of 10 at …`
# A kind whose line would pass 16 MiB at that N (the long entries at 1 000 000)
# is left out and said. `--format json` (every map of the hour) and `--format
# csv` (a column per lane and resource) are timed, best of 3; prints seconds
# and nanoseconds per entry.
set -euo pipefail
export LC_ALL=C  # awk counts bytes
build=${1:?usage: report_wide_bench.sh BUILD_DIR [N...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
fm="$build/src/cli/forgemeter"
dir=$(mktemp -d /tmp/forgemeter-wide-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# gen KIND N > FILE
gen() {
  awk -v kind="$1" -v n="$2" '
    function b36(i,   s) { s = ""; do { s = substr("0123456789abcdefghijklmnopqrstuvwxyz", i % 36 + 1, 1) s; i = int(i / 36) } while (i > 0); return s }
    function entries(fmt_kind,   i, out, name) {
      for (i = 0; i < n; i++) {
        name = b36(i)
        if (fmt_kind == "hosts") e = "h" name " rest o=1"
        else if (fmt_kind == "lanes") e = "h rest l" name "=1"
        else if (fmt_kind == "installations") e = "h rest installation " (n - i) " o=1"
        else if (fmt_kind == "answers") e = "h" name " rest 2xx=1"
        else if (fmt_kind == "lanes-line") e = "h rest l" name " coalesced=1"
        else if (fmt_kind == "resources") e = "h rest installation 1 r" name ": 5 of 10 at 14:00:00Z"
        printf "%s%s", (i ? ", " : ""), e
      }
      printf "\n"
    }
    BEGIN {
      hour = " in the hour ending 2026-09-30T15:00Z \342\200\224 "
      if (kind == "hosts" || kind == "lanes" || kind == "installations") { printf "forge HTTP: %d requests%s", n, hour; entries(kind) }
      if (kind == "answers") { printf "forge HTTP: %d requests%s", n, hour; entries("hosts"); printf "forge HTTP answers:%s", hour; entries("answers") }
      if (kind == "lanes-line") { printf "forge HTTP: %d requests%s", n, hour; entries("lanes"); printf "forge HTTP lanes:%s", hour; entries("lanes-line") }
      if (kind == "resources") { printf "forge rate limit: lowest remaining%s", hour; entries("resources") }
    }'
}

# Best of 3 wall times of "$@" (stdout to /dev/null), in seconds.
best() {
  local b=""
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null
    e=$(date +%s.%N)
    b=$(awk -v b="$b" -v t="$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')" 'BEGIN { if (b == "" || t < b) print t; else print b }')
  done
  echo "$b"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %9s %10s %9s %9s %9s %9s\n' kind entries "bytes" "json s" "ns/entry" "csv s" "ns/entry"
for kind in hosts lanes installations answers lanes-line resources; do
  for n in "${sizes[@]}"; do
    log="$dir/$kind-$n.log"
    gen "$kind" "$n" >"$log"
    longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$log")
    if [ "$longest" -gt $((16 << 20)) ]; then
      printf '%-14s %9d   (a line of %d bytes: over the 16 MiB line limit, left out)\n' "$kind" "$n" "$longest"
      rm -f "$log"
      continue
    fi
    # Correctness first: the whole line was read (nothing skipped on stderr).
    err=$("$fm" report --strict --format json "$log" 2>&1 >/dev/null) || { echo "$kind $n: $err" >&2; exit 1; }
    j=$(best "$fm" report --format json "$log")
    c=$(best "$fm" report --format csv "$log")
    printf '%-14s %9d %10d %9.3f %9.0f %9.3f %9.0f\n' "$kind" "$n" "$(stat -c %s "$log")" "$j" \
      "$(awk -v t="$j" -v n="$n" 'BEGIN { print t * 1e9 / n }')" "$c" "$(awk -v t="$c" -v n="$n" 'BEGIN { print t * 1e9 / n }')"
    rm -f "$log"
  done
done
