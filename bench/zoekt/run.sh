#!/usr/bin/env bash
# run.sh: Zoekt (sourcegraph/zoekt, built from a source snapshot) against
# situate on the same code-search questions with the same judging, on the
# report halves of bench/codesearch (Go, GOROOT/src) and bench/sets/code-werkzeug
# (Python), and (GOROOT=1) the time both take to index $(go env GOROOT)/src.
#
#   bench/zoekt/run.sh ZOEKT_GIT          # ZOEKT_GIT: the bare git directory the fetch
#                                         # tool brings for github:sourcegraph/zoekt
#
# Environment: ZOEKT_COMMIT (default the snapshot this was measured on), HALF
# (report; tune or "" for all questions), GOROOT_TIMING=1 (also index all of
# GOROOT/src with both, under /usr/bin/time -v), WORK (default /tmp/zoektbench),
# SITUATE (a situate binary; default built from this checkout).
#
# Judging (zoektbench's doc comment): file level, the rank of the question's
# file; chunk level, for Zoekt the first result whose best line (Zoekt's
# highest-scored line match) is in the right file within ±18 lines of the
# answer, for situate the first chunk of the right file holding the answer
# (situate eval's own judging). Zoekt's query is an OR of the question's
# keywords (lower-cased, English stop words and words under 3 letters
# dropped), each a case-insensitive substring of content or file name; its
# modes: default (Zoekt's ranking, ctags symbol boosts) and bm25.
set -euo pipefail

git_dir=${1:?usage: run.sh ZOEKT_GIT (bare git directory of sourcegraph/zoekt)}
commit=${ZOEKT_COMMIT:-c4d8f3537f7a67423835d8cf6b0e1d13e68e0b4c}
half=${HALF-report}
work=${WORK:-/tmp/zoektbench}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
goroot=$(go env GOROOT)
mkdir -p "$work"

# Zoekt's source, unpacked where go.mod's replace points (./src, git-ignored).
if [ ! -f "$here/src/go.mod" ] || [ "$(cat "$here/src/.commit" 2>/dev/null)" != "$commit" ]; then
	rm -rf "$here/src"
	mkdir -p "$here/src"
	git --git-dir="$git_dir" archive "$commit" | tar -x -C "$here/src"
	echo "$commit" >"$here/src/.commit"
fi
command -v ctags >/dev/null || command -v universal-ctags >/dev/null ||
	echo "run.sh: no universal-ctags on PATH: Zoekt indexes without symbols (apt-get install universal-ctags)" >&2
(cd "$here" && go build -o "$work/zoektbench" .)
if [ -z "${SITUATE:-}" ]; then
	SITUATE=$work/situate
	(cd "$root" && go build -o "$SITUATE" ./cmd/situate)
fi
half_flag=()
[ -n "$half" ] && half_flag=(--half "$half")

echo "# zoekt $commit ($(ctags --version 2>/dev/null | head -1))"
echo "# situate binary $SITUATE (checkout at $(cd "$root" && git rev-parse --short HEAD)), $(go version | cut -d' ' -f3-4), half: ${half:-all}"

one() { # name docs queries [config]
	local name=$1 docs=$2 queries=$3 config=${4:-}
	local cfg=()
	[ -n "$config" ] && cfg=(--config "$config")
	echo
	echo "## $name"
	"$SITUATE" eval --format answers --docs "$docs" --queries "$queries" "${cfg[@]}" \
		--configs offline "${half_flag[@]}" --per-query >"$work/$name-situate.txt"
	local zcfg=()
	[ -n "$config" ] && zcfg=(-config "$config")
	"$work/zoektbench" -index "$work/$name-index" -docs "$docs" "${zcfg[@]}" 2>"$work/$name-index.log"
	"$work/zoektbench" -index "$work/$name-index" -docs "$docs" -queries "$queries" -situate "$work/$name-situate.txt" 2>>"$work/$name-index.log"
}

one codesearch "$goroot/src" "$root/bench/codesearch/queries.jsonl" "$root/bench/codesearch/situate.toml"
one code-werkzeug "$root/bench/sets/code-werkzeug/docs" "$root/bench/sets/code-werkzeug/queries.jsonl"

if [ "${GOROOT_TIMING:-}" = 1 ]; then
	echo
	echo "## indexing $goroot/src from scratch (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
	t=$work/time.txt
	/usr/bin/time -v -o "$t" "$work/zoektbench" -index "$work/goroot-zoekt" -docs "$goroot/src" 2>"$work/goroot-zoekt.log"
	echo "zoekt:   wall $(grep -F 'Elapsed (wall' "$t" | sed 's/.*: //'), user $(grep -F 'User time' "$t" | sed 's/.*: //') s, sys $(grep -F 'System time' "$t" | sed 's/.*: //') s, peak RSS $(grep -F 'Maximum resident' "$t" | sed 's/.*: //') KB, index $(du -sh "$work/goroot-zoekt" | cut -f1)"
	rm -rf "$work/goroot-situate"
	/usr/bin/time -v -o "$t" "$SITUATE" index --quiet --store "$work/goroot-situate" "$goroot/src" 2>"$work/goroot-situate.log"
	echo "situate: wall $(grep -F 'Elapsed (wall' "$t" | sed 's/.*: //'), user $(grep -F 'User time' "$t" | sed 's/.*: //') s, sys $(grep -F 'System time' "$t" | sed 's/.*: //') s, peak RSS $(grep -F 'Maximum resident' "$t" | sed 's/.*: //') KB, store $(du -sh "$work/goroot-situate" | cut -f1) (offline contexts, defaults)"
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
