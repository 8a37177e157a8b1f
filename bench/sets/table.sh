#!/bin/sh
# usage: bench/sets/table.sh BINARY (from the repository root)
# Prints every set of bench/sets, both halves, raw and offline contexts:
# hit@1, hit@5 and MRR@10 with its 95% bootstrap interval.
for s in qa-es qa-ru qa-zh unnamed-subject code-werkzeug; do for h in tune report; do
  "$1" eval --format answers --docs bench/sets/$s/docs --queries bench/sets/$s/queries.jsonl --configs raw,offline --half $h --json 2>/dev/null |
  python3 -c "
import json,sys
for c in json.load(sys.stdin)['configs']:
    m=c['metrics']; iv=c.get('intervals', {}).get('mrr@10', {'Lo': float('nan'), 'Hi': float('nan')})
    print('%-16s %-6s %-8s %4d  hit@1 %.3f  hit@5 %.3f  MRR@10 %.3f [%.3f, %.3f]' % ('$s','$h',c['name'],c['queries'],m['hit@1'],m['hit@5'],m['mrr@10'],iv['Lo'],iv['Hi']))"
done; done
