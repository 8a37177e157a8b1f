#!/usr/bin/env bash
# bench-goroot.sh: index the Go distribution's source ($(go env GOROOT)/src)
# from scratch with situate's defaults (offline contexts) and print what it
# cost: wall time, user and system CPU seconds, peak RSS, the load average
# around the run, and the store's size by part (SQLite tables, each BM25 arm,
# vectors) against the size of the text indexed.
#
#   scripts/bench-goroot.sh [STORE_DIR]        (default /tmp/situate-bench-goroot)
#
# Environment: SITUATE (a situate binary; default: built from this checkout
# into the store's parent directory), SRC (default $(go env GOROOT)/src),
# PROFILE=1 (also write cpu.pprof and mem.pprof next to the store).
# Needs GNU time (/usr/bin/time) and, for the SQLite table sizes, the sqlite3
# command with the dbstat table (Debian's has it).
set -euo pipefail

store=${1:-/tmp/situate-bench-goroot}
src=${SRC:-$(go env GOROOT)/src}
work=$(dirname "$store")
mkdir -p "$work"
if [ -z "${SITUATE:-}" ]; then
	SITUATE=$work/situate-bench
	(cd "$(dirname "$0")/.." && go build -o "$SITUATE" ./cmd/situate)
fi
[ -x /usr/bin/time ] || { echo "bench-goroot: needs GNU time (/usr/bin/time; apt-get install time)" >&2; exit 1; }

rm -rf "$store"
prof=()
if [ "${PROFILE:-}" = 1 ]; then
	prof=(--cpuprofile "$work/cpu.pprof" --memprofile "$work/mem.pprof")
fi
timing=$work/bench-goroot-time.txt
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/time -v -o "$timing" "$SITUATE" index --quiet --store "$store" "${prof[@]}" "$src" 2>"$work/bench-goroot-stderr.txt"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

field() { grep -F "$1" "$timing" | sed 's/.*: //'; }
user=$(field "User time (seconds)")
sys=$(field "System time (seconds)")
wall=$(field "Elapsed (wall clock) time")
rss_kb=$(field "Maximum resident set size (kbytes)")

bytes() { if [ -e "$1" ]; then du -s --apparent-size -B1 "$1" | cut -f1; else echo 0; fi; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

db=$(($(bytes "$store/situate.db") + $(bytes "$store/situate.db-wal")))
lang=$(bytes "$store/bm25")
code=$(bytes "$store/bm25-code")
pairs=$(bytes "$store/bm25-pairs")
arms=0
for d in "$store"/bm25*/; do arms=$((arms + $(bytes "$d"))); done
vec=$(bytes "$store/vectors")
total=$(bytes "$store")

# The text indexed: the files the store holds documents of.
text=0
docs=0
if command -v sqlite3 >/dev/null; then
	docs=$(sqlite3 "file:$store/situate.db?mode=ro" "select count(*) from documents")
	text=$(sqlite3 "file:$store/situate.db?mode=ro" "select path from documents" |
		tr '\n' '\0' | xargs -0 stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
fi

echo "situate index $src (offline contexts, defaults): $SITUATE, checkout $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3), $(nproc) CPUs"
echo "  wall $wall, user ${user} s, sys ${sys} s (CPU $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') s), peak RSS $((rss_kb / 1024)) MiB"
echo "  load average before: $load_before, after: $load_after"
echo "  documents $docs, text $(mb "$text") MB"
echo "  store $(mb "$total") MB$( [ "$text" -gt 0 ] && awk -v a="$total" -v b="$text" 'BEGIN { printf " = %.2f x the text", a / b }')"
printf "    %-22s %8s MB\n" "situate.db (+wal)" "$(mb "$db")"
for d in "$store"/bm25*/; do
	printf "    %-22s %8s MB\n" "$(basename "$d") (BM25 arm)" "$(mb "$(bytes "$d")")"
done
printf "    %-22s %8s MB\n" "vectors" "$(mb "$vec")"
if [ "$lang" -gt 0 ] && [ "$code" -gt 0 ] && [ "$arms" -gt 0 ]; then
	awk -v p="$pairs" -v l="$lang" -v c="$code" -v a="$arms" 'BEGIN { printf "    pair arm = %.2f x the language arm, %.2f x the code arm, %.0f%% of all BM25 arms\n", p / l, p / c, 100 * p / a }'
fi
if command -v sqlite3 >/dev/null; then
	echo "  SQLite by table and index (MB of pages):"
	sqlite3 "file:$store/situate.db?mode=ro" \
		"select printf('    %-26s %8.1f', name, sum(pgsize) / 1048576.0) from dbstat group by name having sum(pgsize) > 65536 order by sum(pgsize) desc" 2>/dev/null ||
		echo "    (this sqlite3 has no dbstat table)"
fi
