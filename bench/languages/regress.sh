#!/bin/bash
# regress.sh BIN : en/de XQuAD, codebase, CACM, example answer sets
b=$1; D=${D:-../shared/data}; W=${W:-.}
j() { python3 -c "
import json,sys
d=json.load(sys.stdin)
for c in d['configs']:
  m=c['metrics']; print('$1', c['name'], ' '.join('%s=%.4f'%(k,m[k]) for k in $2 if k in m))
"; }
for l in en de; do $b eval --format squad --file $D/xquad/xquad.$l.json --lang $l --configs raw,title,offline --json 2>/dev/null | j xquad-$l "['hit@1','mrr@10','hit@5']"; done
$b eval --format anthropic --chunks $D/codebase/codebase_chunks.json --queries $D/codebase/evaluation_set.jsonl --contexts $D/codebase/contexts_claude3haiku.json --compare --json 2>/dev/null | j codebase "['pass@5','pass@10','pass@20','mrr@10']"
$b eval --format answers --docs $W/examples/corpus --queries $W/examples/corpus/queries.jsonl --compare --json 2>/dev/null | j corpus "['hit@1','mrr@10']"
$b eval --format answers --docs $W/examples/multilingual --queries $W/examples/multilingual/queries.jsonl --compare --json 2>/dev/null | j multilingual "['hit@1','mrr@10']"
$b eval --format trec --docs $D/cacm/cacm.tar.gz --topics $D/cacm/topics.cacm.txt --qrels $D/cacm/qrels.cacm.txt --configs raw,offline --json 2>/dev/null | j cacm "['map','p@30','ndcg@10']"
