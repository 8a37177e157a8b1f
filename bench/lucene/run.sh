#!/bin/sh
# run.sh: situate bm25 vs Lucene 8.7 on the same generated corpus.
#
# Exports bm25's benchmark corpus (100,000 chunks of ~150 Zipfian words,
# seed 42) and queries (2,000 "zipf" and 2,000 "rare" 3-8 term queries),
# runs bm25's Go benchmarks and bench/lucene/LuceneBench.java on them, and
# prints both side by side with the ratio situate/Lucene. Both index with
# the English analyzer and BM25 k1=1.2 b=0.75, on 2 threads, committing
# (fsync) every 10,000 chunks, and search top k disjunctions one query at a
# time on one thread.
#
# Needs: go, javac/java (openjdk-17) and liblucene8-java (apt-get install -y
# liblucene8-java). Usage: bench/lucene/run.sh [output-file]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-/dev/stdout}
CP=/usr/share/java/lucene-core-8.7.0.jar:/usr/share/java/lucene-analyzers-common-8.7.0.jar
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

javac -d "$WORK/classes" -cp "$CP" "$ROOT/bench/lucene/LuceneBench.java"
cd "$ROOT"
BM25_EXPORT_DIR=$WORK go test ./bm25/ -run '^TestExportBenchCorpus$' -count=1 >/dev/null

go test ./bm25/ -run '^$' -count=1 -bench 'BenchmarkIndex/docs=100000$' -benchtime 1x | tee "$WORK/go.txt" >&2
go test ./bm25/ -run '^$' -count=1 -bench 'BenchmarkSearch$' -benchtime 2000x | tee -a "$WORK/go.txt" >&2
go test ./bm25/ -run '^$' -count=1 -bench 'BenchmarkOpen$' -benchtime 20x | tee -a "$WORK/go.txt" >&2
go test ./bm25/ -run '^$' -count=1 -bench 'BenchmarkSearchRSS$' -benchtime 1x | tee -a "$WORK/go.txt" >&2
java -cp "$WORK/classes:$CP" LuceneBench bench "$WORK/corpus.tsv" "$WORK/lucene-index" 2 \
	"$WORK/queries-zipf.txt" "$WORK/queries-rare.txt" | tee "$WORK/lucene.txt" >&2

{
	echo "# situate bm25 vs Lucene $(basename /usr/share/java/lucene-core-*.jar .jar | sed 's/lucene-core-//') ($(java -version 2>&1 | head -1))"
	echo "# $(go version); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(nproc) cores"
	echo "# commit $(git rev-parse --short HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg)"
	awk '
	# value of the metric with unit u on a Go benchmark line
	function gv(line, u,   n, f, i) { n = split(line, f, /[ \t]+/); for (i = 2; i <= n; i++) if (f[i] == u) return f[i-1]; return "" }
	FNR == NR { if ($1 ~ /^Benchmark/) go[$1] = $0; next }
	{ split($0, kv, "="); lu[kv[1]] = kv[2] }
	END {
		printf "%-34s %14s %14s %10s\n", "metric", "situate", "lucene", "ratio"
		for (k in go) {
			if (k ~ /^BenchmarkIndex\/docs=100000/) {
				row("index chunks/s (higher is better)", gv(go[k], "chunks/s"), lu["lucene.index.docs_per_s"])
				row("index on disk, % of raw text", gv(go[k], "disk%raw"), lu["lucene.index.disk_pct_raw"])
			}
		}
		for (k in go) if (k ~ /^BenchmarkSearch\/docs=100000\/queries=zipf\/k=10-/)  s(go[k], "zipf", 10)
		for (k in go) if (k ~ /^BenchmarkSearch\/docs=100000\/queries=zipf\/k=100-/) s(go[k], "zipf", 100)
		for (k in go) if (k ~ /^BenchmarkSearch\/docs=100000\/queries=rare\/k=10-/)  s(go[k], "rare", 10)
		for (k in go) if (k ~ /^BenchmarkSearch\/docs=100000\/queries=rare\/k=100-/) s(go[k], "rare", 100)
		for (k in go) if (k ~ /^BenchmarkOpen/) printf "%-34s %14.1f\n", "open 100k-chunk index, ms", gv(go[k], "ns/op") / 1e6
		for (k in go) if (k ~ /^BenchmarkSearchRSS/) printf "%-34s %14s %14s %10s\n", "peak RSS searching, MB (x disk)", gv(go[k], "peakRSS-MB"), "", gv(go[k], "rss/disk")
	}
	function s(line, mix, k) {
		row(sprintf("search %s k=%d p50 us", mix, k), gv(line, "p50-µs"), lu["lucene.search.queries-" mix ".k" k ".p50_us"])
		row(sprintf("search %s k=%d p99 us", mix, k), gv(line, "p99-µs"), lu["lucene.search.queries-" mix ".k" k ".p99_us"])
	}
	function row(name, a, b) { printf "%-34s %14s %14s %10.2f\n", name, a, b, (b > 0 ? a / b : 0) }
	' "$WORK/go.txt" "$WORK/lucene.txt"
	echo
	echo "# raw output"
	cat "$WORK/go.txt" "$WORK/lucene.txt"
} >"$OUT"
