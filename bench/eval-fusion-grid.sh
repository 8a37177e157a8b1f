#!/bin/sh
# eval-fusion-grid.sh runs `situate eval` over every fusion method and
# dense:lexical weight pair with the offline GloVe embedder (provider/glove,
# SIF weighting) on the English evaluation sets, and prints one TSV row per
# (dataset, half, method, weights) with Pass@5/10/20, MRR@10, nDCG@10, MAP.
#
# Usage: bench/eval-fusion-grid.sh HALF [DATASET...]
#   HALF: tune, report or all; DATASET: codebase, xquad, xquad-de, cacm (default:
#   codebase xquad). Needs /tmp/situate (go build -o /tmp/situate
#   ./cmd/situate), jq, ../shared/data and scripts/fetch-glove.sh run once.
# Environment: METHODS (default "rrf cookbook minmax relative"), WEIGHTS
# (dense:lexical pairs, default "1:1 0.8:0.2 0.5:1 0.3:1 0.2:1 0.1:1").
set -eu
half=$1
shift
[ $# -gt 0 ] || set -- codebase xquad
bin=${SITUATE:-/tmp/situate}
data=../shared/data
methods=${METHODS:-rrf cookbook minmax relative}
weights=${WEIGHTS:-1:1 0.8:0.2 0.5:1 0.3:1 0.2:1 0.1:1}
halfflag=""
[ "$half" = all ] || halfflag="--half $half"

row() { # dataset method weights; reads `situate eval --json` (TREC sets have no Pass@k: "-")
	jq -r --arg d "$1" --arg h "$half" --arg m "$2" --arg w "$3" '
		def r(k; s): if .metrics[k] == null then "-" else (.metrics[k] * s | round / s) end;
		.configs[] | [$d, $h, .name, $m, $w, r("pass@5"; 100), r("pass@10"; 100), r("pass@20"; 100),
		 r("recall@20"; 10000), r("mrr@10"; 10000), r("ndcg@10"; 10000), r("map"; 10000)] | @tsv'
}

run() { # dataset args...
	ds=$1
	shift
	case $ds in
	codebase)
		"$bin" eval --format anthropic --chunks $data/codebase/codebase_chunks.json \
			--queries $data/codebase/evaluation_set.jsonl --contexts $data/codebase/contexts_claude3haiku.json \
			$halfflag --embed glove: --json "$@" 2>/dev/null ;;
	xquad)
		"$bin" eval --format squad --file $data/xquad/xquad.en.json --lang en $halfflag --embed glove: --json "$@" 2>/dev/null ;;
	xquad-de) # English vectors on German text: a dense arm that barely works
		"$bin" eval --format squad --file $data/xquad/xquad.de.json --lang de $halfflag --embed glove: --json "$@" 2>/dev/null ;;
	cacm)
		"$bin" eval --format trec --docs $data/cacm/cacm.tar.gz --topics $data/cacm/topics.cacm.txt \
			--qrels $data/cacm/qrels.cacm.txt --lang en --depth 1000 $halfflag --embed glove: --json "$@" 2>/dev/null ;;
	esac
}

printf 'dataset\thalf\tconfig\tfusion\tdense:lexical\tpass@5\tpass@10\tpass@20\trecall@20\tmrr@10\tndcg@10\tmap\n'
for ds in "$@"; do
	case $ds in
	codebase) base=provided; dense="raw+dense,provided+dense"; hybrid=provided+hybrid ;;
	xquad | xquad-de) base=title; dense="raw+dense,title+dense"; hybrid=title+hybrid ;;
	cacm) base=offline; dense="raw+dense"; hybrid=offline+hybrid ;;
	*) echo "unknown dataset $ds" >&2; exit 2 ;;
	esac
	run "$ds" --configs "$base,$dense" | row "$ds" - -
	for m in $methods; do
		for w in $weights; do
			run "$ds" --configs $hybrid --fusion "$m" --dense-weight "${w%:*}" --lexical-weight "${w#*:}" | row "$ds" "$m" "$w"
		done
	done
done
