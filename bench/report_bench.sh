#!/usr/bin/env bash
# report_bench.sh — `forgemeter report` throughput vs `grep -c 'forge HTTP:'`
# and vs an awk pipeline summing N per hour, on the same generated
# multi-replica log, in the same run (page cache warm for all three).
#
#   bench/report_bench.sh BUILD_DIR [BYTES=1000000000] [NOISE_PER_HOUR=1000]
#
# The log goes to a temporary file under /tmp and is deleted at exit. Each
# tool runs 3 times; the best wall time counts. Prints MB/s and the ratios.
# forgemeter runs with its default threads (the machine's cores) and, for the
# cost of one thread, again with --threads 1.
set -euo pipefail
build=${1:?usage: report_bench.sh BUILD_DIR [BYTES] [NOISE_PER_HOUR]}
bytes=${2:-1000000000}
noise=${3:-1000}
fm="$build/src/cli/forgemeter"
gen="$build/bench/report_gen"
log=$(mktemp /tmp/forgemeter-report-bench.XXXXXX.log)
trap 'rm -f "$log"' EXIT

facts=$("$gen" "$log" "$bytes" 10 "$noise")
want=$(sed -E 's/.*total_requests=([0-9]+).*/\1/' <<<"$facts")
size=$(stat -c %s "$log")
cat "$log" >/dev/null  # into the page cache

# Best of 3 runs of "$@" (stdout to a file: grep stops at the first match when
# it writes to /dev/null). Prints "wall cpu" in seconds, cpu = user + sys: on
# 2 cores shared with other work the CPU time is the steadier figure.
best() {
  local out; out=$(mktemp /tmp/forgemeter-report-bench.XXXXXX.out)
  local bw="" bc=""
  for _ in 1 2 3; do
    local t
    t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$out"; } 2>&1 )
    read -r w u s <<<"$t"
    bw=$(awk -v b="$bw" -v t="$w" 'BEGIN { if (b == "" || t < b) print t; else print b }')
    bc=$(awk -v b="$bc" -v t="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" 'BEGIN { if (b == "" || t < b) print t; else print b }')
  done
  rm -f "$out"
  echo "$bw $bc"
}
awk_sum() {
  awk 'match($0, /forge HTTP: [0-9]+ requests in the hour ending [0-9T:-]+Z/) {
         n = split(substr($0, RSTART, RLENGTH), f, " "); s[f[n]] += f[3] }
       END { for (h in s) print h, s[h] }' "$1"
}

# Correctness first: every tool must see the same sum.
got_fm=$("$fm" report --format csv "$log" | awk -F, 'NR > 1 { s += $2 } END { printf "%.0f\n", s }')
got_awk=$(awk_sum "$log" | awk '{ s += $2 } END { printf "%.0f\n", s }')
[ "$got_fm" = "$want" ] || { echo "forgemeter summed $got_fm, want $want" >&2; exit 1; }
[ "$got_awk" = "$want" ] || { echo "awk summed $got_awk, want $want" >&2; exit 1; }

read -r w_grep c_grep <<<"$(best grep -c 'forge HTTP:' "$log")"
read -r w_awk c_awk <<<"$(best awk_sum "$log")"
read -r w_fm c_fm <<<"$(best "$fm" report --format csv "$log")"
read -r w_fm1 c_fm1 <<<"$(best "$fm" report --threads 1 --format csv "$log")"
mbs() { awk -v n="$size" -v t="$1" 'BEGIN { printf "%5d", n / t / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "log: $size bytes, 10 replicas, $noise application lines per hour (spread over the replicas); $facts"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "                    wall s  MB/s    cpu s  MB/s(cpu)"
for t in grep awk fm fm1; do
  eval "w=\$w_$t c=\$c_$t"
  case $t in grep) name="grep -c 'forge HTTP:'" ;; awk) name="awk sum N per hour" ;; fm) name="forgemeter report" ;; fm1) name="report --threads 1" ;; esac
  printf '%-20s %6.3f  %s   %6.3f  %s\n' "$name" "$w" "$(mbs "$w")" "$c" "$(mbs "$c")"
done
echo "forgemeter vs grep: $(ratio "$w_grep" "$w_fm")x wall, $(ratio "$c_grep" "$c_fm")x cpu (target >= 2)"
echo "forgemeter vs awk:  $(ratio "$w_awk" "$w_fm")x wall, $(ratio "$c_awk" "$c_fm")x cpu (target >= 5)"
echo "(forgemeter uses $(nproc) threads by default: wall is the target figure, cpu is what they cost;"
echo " --threads 1 vs grep $(ratio "$w_grep" "$w_fm1")x, vs awk $(ratio "$w_awk" "$w_fm1")x wall)"
