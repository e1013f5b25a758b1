#!/usr/bin/env bash
# proxy_bench.sh — `forgemeter proxy` (metering and the cache on) against
# nginx's proxy_pass (an upstream block with keepalive), both in front of
# the same fast static upstream (nginx serving a JSON file), on loopback:
#   * saturation requests/s with 64 keep-alive clients (wrk), and CPU
#     microseconds per request of the proxy process; median of 3 runs, one
#     run of each in turn;
#   * latency added over going direct at a fixed 1 000 requests/s (h2load
#     --h1 --rps, each request's time from its log): p50 and p99;
#   * resident memory with 1 000 idle keep-alive connections open.
# Debian packages: nginx-light wrk nghttp2-client. Results: bench/proxy.md.
#
#   bench/proxy_bench.sh BUILD_DIR [seconds per run, default 10]
set -euo pipefail
build=$(cd "${1:?usage: proxy_bench.sh BUILD_DIR [seconds]}" && pwd)
secs=${2:-10}
for tool in nginx wrk h2load python3; do
  command -v "$tool" >/dev/null || { echo "proxy_bench: $tool is missing (apt install nginx-light wrk nghttp2-client)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/forgemeter-proxy-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
up=$(free_port); ngx=$(free_port); fm=$(free_port); adm=$(free_port)

mkdir -p "$work/www/repos/o" "$work/logs"
python3 -c 'import json; print(json.dumps({"id": 1, "name": "r", "full_name": "o/r", "url": "http://127.0.0.1/repos/o/r",
  "description": "x" * 1500}))' > "$work/www/repos/o/r"
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  keepalive_requests 1000000;
  upstream forge { server 127.0.0.1:$up; keepalive 64; }
  server { listen 127.0.0.1:$up; root $work/www; etag on; }
  server {
    listen 127.0.0.1:$ngx;
    location / { proxy_pass http://forge; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work" & pids+=($!)
"$build/src/cli/forgemeter" proxy --upstream "http://127.0.0.1:$up" --listen "127.0.0.1:$fm" \
  --admin-listen "127.0.0.1:$adm" --meter-log "$work/lines" 2>"$work/proxy.err" & fm_pid=$!; pids+=($fm_pid)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$fm/repos/o/r" >/dev/null 2>&1 && curl -sf "http://127.0.0.1:$ngx/repos/o/r" >/dev/null && break
  sleep 0.1
done
ngx_worker=$(pgrep -P "$(cat "$work/nginx.pid")" | head -1)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# rps and CPU µs per request of process $2 for one wrk run against port $1
run_wrk() {
  local port=$1 pid=$2 before after out rps
  before=$(cpu_ticks "$pid")
  out=$(wrk -t2 -c64 -d"${secs}s" "http://127.0.0.1:$port/repos/o/r")
  after=$(cpu_ticks "$pid")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  awk -v r="$rps" -v t=$((after - before)) -v hz="$hz" -v s="$secs" 'BEGIN { printf "%.0f %.1f\n", r, t / hz * 1e6 / (r * s) }'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$work/ngx" ; : >"$work/fm"
for i in 1 2 3; do
  run_wrk "$ngx" "$ngx_worker" >>"$work/ngx"
  run_wrk "$fm" "$fm_pid" >>"$work/fm"
done
n_rps=$(cut -d' ' -f1 "$work/ngx" | median); n_cpu=$(cut -d' ' -f2 "$work/ngx" | median)
f_rps=$(cut -d' ' -f1 "$work/fm" | median); f_cpu=$(cut -d' ' -f2 "$work/fm" | median)
echo "saturation, 64 keep-alive clients, ${secs}s runs, median of 3:"
printf '  %-24s %10s req/s %8s us CPU/request\n' "nginx proxy_pass" "$n_rps" "$n_cpu" "forgemeter proxy" "$f_rps" "$f_cpu"
awk -v f="$f_rps" -v n="$n_rps" 'BEGIN { printf "  forgemeter / nginx: %.2fx (target >= 0.5x)\n", f / n }'

# Latency at a fixed 1 000 requests/s: 10 clients x 100 req/s, 10 000 requests.
p_of() {  # p50 p99 in ms of an h2load log (3rd column: microseconds)
  sort -n -k3 "$1" | awk '{a[NR]=$3} END {printf "%.2f %.2f\n", a[int(NR*0.5)]/1000, a[int(NR*0.99)]/1000}'
}
for target in direct:$up nginx:$ngx forgemeter:$fm; do
  name=${target%%:*}; port=${target##*:}
  h2load --h1 -c 10 --rps 100 -n 10000 --log-file "$work/$name.log" "http://127.0.0.1:$port/repos/o/r" >/dev/null
done
read -r d50 d99 < <(p_of "$work/direct.log")
read -r n50 n99 < <(p_of "$work/nginx.log")
read -r f50 f99 < <(p_of "$work/forgemeter.log")
echo "latency at 1000 req/s (10 000 requests), p50 / p99 in ms:"
printf '  direct %s / %s, nginx %s / %s, forgemeter %s / %s\n' "$d50" "$d99" "$n50" "$n99" "$f50" "$f99"
awk -v f="$f99" -v d="$d99" -v n="$n99" 'BEGIN { printf "  added p99: forgemeter %.2f ms (target <= 2), nginx %.2f ms\n", f - d, n - d }'

# 1 000 idle keep-alive connections.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
idle_before=$(rss "$fm_pid")
python3 - "$fm" <<'PY' &
import socket, sys, time
conns = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(1000)]
time.sleep(3)
PY
idle_pid=$!
sleep 2
idle_with=$(rss "$fm_pid")
wait "$idle_pid"
echo "resident memory: $((idle_before / 1024)) MiB, $((idle_with / 1024)) MiB with 1 000 idle connections open"
