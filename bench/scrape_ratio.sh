#!/usr/bin/env bash
# scrape_ratio.sh — runs prometheus_bench (5 repetitions) and prints each
# case's median wall and CPU time per scrape and its ratio to the baseline's
# (BM_ScrapeCounters, 10 000 plain prometheus-cpp counters, same run).
# The target: BM_ScrapeMeter <= 1.5x.
#
#   bench/scrape_ratio.sh BUILD_DIR [more benchmark flags]
set -euo pipefail
build=${1:?usage: scrape_ratio.sh BUILD_DIR [benchmark flags]}
shift
"$build/bench/prometheus_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_format=csv "$@" 2>/dev/null |
  awk -F, '
    $1 ~ /_median"?$/ {
      name = $1; gsub(/"/, "", name); sub(/_median$/, "", name)
      order[++n] = name; wall[name] = $3; cpu[name] = $4; unit[name] = $5
      series[name] = $NF
    }
    END {
      base = "BM_ScrapeCounters"
      if (!(base in wall)) { print "no BM_ScrapeCounters in the run" > "/dev/stderr"; exit 1 }
      printf "%-20s %7s %12s %12s %10s %10s\n", "median of 5", "series", "wall", "cpu", "x wall", "x cpu"
      for (i = 1; i <= n; ++i) {
        b = order[i]
        printf "%-20s %7d %9.2f %-2s %9.2f %-2s %9.2fx %9.2fx\n", b, series[b], wall[b], unit[b], cpu[b], unit[b],
               wall[b] / wall[base], cpu[b] / cpu[base]
      }
    }'
