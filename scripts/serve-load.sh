#!/usr/bin/env bash
# Load test of situate serve on loopback (issue: the service's load
# acceptance): 50 concurrent clients search a 100k-chunk BM25 index for 60 s
# while a writer upserts documents and checks each is found once its job is
# done. Runs the project's harness (bench/serveload) and, separately, wrk
# (Debian package wrk) with the same writer beside it. Prints both results.
#
#   scripts/serve-load.sh [WORKDIR]     (default: a temp dir; about 6 minutes)
#
# SITUATE_SERVE_FLAGS adds flags to situate serve, e.g. "--recipe lucene"
# (one BM25 arm: its upserts leave the other arms behind, and the next
# server with the default recipe rebuilds them when it starts, so use a
# copy of WORKDIR) or "--max-searches -1" (no search queue).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
addr=127.0.0.1:18099
go build -o "$work/situate" ./cmd/situate
go build -o "$work/serveload" ./bench/serveload
# Keys live in STORE/situate.db; the key's tenant "load" has its own store
# in STORE/tenants/load, indexed here with the command line.
tenant="$work/store/tenants/load"
if [ ! -f "$tenant/situate.db" ]; then
  "$work/serveload" gen -docs 20000 -chunks 5 > "$work/corpus.jsonl"
  "$work/situate" index --store "$tenant" --chunk-size 150 --chunk-overlap 0 "$work/corpus.jsonl"
fi
"$work/situate" status --store "$tenant" > "$work/status.txt"; head -3 "$work/status.txt"
"$work/serveload" queries -n 2000 > "$work/queries.txt"
key=$("$work/situate" keys create --store "$work/store" --tenant load --admin 2>/dev/null)
# shellcheck disable=SC2086 # the flags are words
"$work/situate" serve --store "$work/store" --addr "$addr" --chunk-size 150 --chunk-overlap 0 --log-level warn ${SITUATE_SERVE_FLAGS:-} 2> "$work/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
# (a server rebuilding its index for other flags takes minutes to be ready)
for _ in $(seq 3000); do curl -sf "http://$addr/readyz" >/dev/null && break; sleep 0.2; done
# The server's CPU time (user + system, seconds) so far: on a shared machine
# the CPU time per request is steadier than the latencies.
cpu() { awk -v t="$(getconf CLK_TCK)" '{print ($14 + $15) / t}' "/proc/$pid/stat"; }
echo "== harness: 50 clients, 60 s, writer beside"
c0=$(cpu)
"$work/serveload" run -url "http://$addr" -key "$key" -clients 50 -duration 60s | tee "$work/harness.txt"
n=$(sed -n 's/^searches: \([0-9]*\) .*/\1/p' "$work/harness.txt")
awk -v a="$c0" -v b="$(cpu)" -v n="$n" 'BEGIN {printf "server CPU: %.1f s for %d searches and the writer: %.2f ms per search (load average %s)\n", b - a, n, 1000 * (b - a) / n, "'"$(cut -d' ' -f1-3 /proc/loadavg)"'"}'
echo "== wrk: 50 connections, 60 s, writer beside"
c0=$(cpu)
"$work/serveload" write -url "http://$addr" -key "$key" -duration 62s > "$work/writer.txt" &
wpid=$!
SITUATE_KEY=$key SITUATE_QUERIES="$work/queries.txt" wrk -t2 -c50 -d60s --latency -s bench/serveload/search.lua "http://$addr" | tee "$work/wrk.txt"
n=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
awk -v a="$c0" -v b="$(cpu)" -v n="$n" 'BEGIN {printf "server CPU: %.1f s for %d requests and the writer: %.2f ms per request (load average %s)\n", b - a, n, 1000 * (b - a) / n, "'"$(cut -d' ' -f1-3 /proc/loadavg)"'"}'
wait $wpid && cat "$work/writer.txt" || { cat "$work/writer.txt"; exit 1; }
