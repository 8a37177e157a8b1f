#!/usr/bin/env bash
# Command-line search cost on a store: every query is a new `situate search`
# process (cold process, warm page cache), timed with GNU time. Prints each
# query's wall time, CPU time (user + system) and peak RSS, then the
# medians, for the default recipe and for --recipe lucene. On a shared
# machine the CPU time is the steadier figure.
#
#   scripts/search-bench.sh STORE [SITUATE_BINARY] [QUERIES_FILE]
#
# Build the GOROOT store with: situate index --store STORE $(go env GOROOT)/src
set -euo pipefail
store=$1
bin=${2:-}
queries=${3:-$(dirname "$0")/../bench/searchcli/queries.txt}
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/situate
  go build -o "$bin" "$(dirname "$0")/../cmd/situate"
fi
# One search first so the page cache holds what a search reads.
"$bin" search --store "$store" -k 10 warm up >/dev/null
for recipe in situate lucene; do
  out=$(mktemp)
  while IFS= read -r q; do
    /usr/bin/time -f "%e %M %U %S" -o "$out.t" "$bin" search --store "$store" --recipe "$recipe" -k 10 "$q" >/dev/null
    read -r wall rss user sys < "$out.t"
    printf '%s\t%s\t%s\t%s\n' "$wall" "$rss" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$q" >> "$out"
  done < "$queries"
  echo "== --recipe $recipe: wall s, peak RSS KiB, CPU s, query"
  cat "$out"
  n=$(wc -l < "$out")
  mw=$(cut -f1 "$out" | sort -g | awk -v n="$n" '{a[NR]=$1} END {print (n%2 ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2)}')
  mr=$(cut -f2 "$out" | sort -g | awk -v n="$n" '{a[NR]=$1} END {print (n%2 ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2)}')
  mc=$(cut -f3 "$out" | sort -g | awk -v n="$n" '{a[NR]=$1} END {print (n%2 ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2)}')
  echo "median of $n: wall ${mw} s, CPU ${mc} s, peak RSS $((${mr%.*} / 1024)) MiB (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  rm -f "$out" "$out.t"
done
