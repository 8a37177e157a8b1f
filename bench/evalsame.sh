#!/bin/sh
# evalsame.sh OLD [NEW] — does a refactoring leave ranking alone?
#
# Builds situate at commits OLD and NEW (default: the work tree), runs
# `situate eval --json` on the codebase set (Claude contexts and offline),
# CACM (the product's defaults and the Lucene recipe) and XQuAD de, and
# compares every metric of every configuration. Prints one line per set and
# exits 1 when any metric differs. Issue 30 asks refactorings to show this.
#
#   bench/evalsame.sh 3401774          # HEAD's work tree against 3401774
set -eu
old=${1:?usage: bench/evalsame.sh OLD [NEW]}
new=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${SITUATE_DATA:-$root/../shared/data}
tmp=$(mktemp -d)
trap 'for w in "$tmp"/src-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$tmp"' EXIT

build() { # build REV OUT: a situate binary of REV ("" for the work tree)
	if [ -z "$1" ]; then
		(cd "$root" && go build -o "$2" ./cmd/situate)
	else
		git -C "$root" worktree add --quiet --detach "$tmp/src-$(basename "$2")" "$1"
		(cd "$tmp/src-$(basename "$2")" && go build -o "$2" ./cmd/situate)
	fi
}
build "$old" "$tmp/old.bin"
build "$new" "$tmp/new.bin"

runs() { # runs BIN DIR: every evaluation, one JSON file each (its log in DIR/log)
	exec 3>&2 2>"$2/log"
	"$1" eval --json --format anthropic --chunks "$data/codebase/codebase_chunks.json" \
		--queries "$data/codebase/evaluation_set.jsonl" \
		--contexts "$data/codebase/contexts_claude3haiku.json" --compare >"$2/codebase.json"
	mkdir -p "$2/cacm-docs" && tar -xzf "$data/cacm/cacm.tar.gz" -C "$2/cacm-docs"
	"$1" eval --json --format trec --docs "$2/cacm-docs" --topics "$data/cacm/topics.cacm.txt" \
		--qrels "$data/cacm/qrels.cacm.txt" >"$2/cacm.json"
	"$1" eval --json --format trec --docs "$2/cacm-docs" --topics "$data/cacm/topics.cacm.txt" \
		--qrels "$data/cacm/qrels.cacm.txt" --contextualizer none --analyzer english \
		--bm25-k1 0.9 --bm25-b 0.4 --recipe lucene --chunk-size 100000 >"$2/cacm-lucene.json"
	"$1" eval --json --format squad --file "$data/xquad/xquad.de.json" --lang de \
		--configs raw,title,offline >"$2/xquad-de.json"
	rm -rf "$2/cacm-docs"
	exec 2>&3 3>&-
}
mkdir -p "$tmp/a" "$tmp/b"
runs "$tmp/old.bin" "$tmp/a"
runs "$tmp/new.bin" "$tmp/b"

status=0
for f in codebase cacm cacm-lucene xquad-de; do
	python3 - "$tmp/a/$f.json" "$tmp/b/$f.json" "$f" <<'EOF' || status=1
import json, sys
def metrics(o, path=""):
    # Every number in the report except timings.
    if isinstance(o, dict):
        for k, v in o.items():
            if any(t in k.lower() for t in ("second", "time", "elapsed", "duration", "ms")):
                continue
            yield from metrics(v, f"{path}.{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from metrics(v, f"{path}[{i}]")
    elif isinstance(o, (int, float)) and not isinstance(o, bool):
        yield path, o
a, b = (dict(metrics(json.load(open(p)))) for p in sys.argv[1:3])
diff = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
print(f"{sys.argv[3]}: {len(a)} numbers, {len(diff)} differ")
for k, x, y in diff[:20]:
    print(f"  {k}: {x} -> {y}")
sys.exit(1 if diff else 0)
EOF
done
exit $status
