#!/bin/bash
# matrix.sh BIN... : hit@1 / MRR@10 of raw and offline, default recipe and --recipe lucene, on every set in $SETS
# (built as README.md says; BIN paths absolute). regress.sh BIN: the other sets (run from the repository root).
cd "${SETS:-.}" || exit 1
for f in hand.ru hand.zh hand.ru.entitle hand.zh.entitle faq.ru faq.zh man.ru man.zh cloze.ru cloze.zh; do
  l=${f#*.}; l=${l%%.*}
  for b in "$@"; do
    for r in situate lucene; do
      $b eval --format squad --file $f.json --lang $l --configs raw,offline --recipe $r --json 2>/dev/null | python3 -c "
import json,sys
d=json.load(sys.stdin)
q=d['configs'][0].get('queries', '')
print('%-16s %-7s %-8s'%('$f','$b','$r'), '  '.join('%s %.4f / %.4f'%(c['name'],c['metrics']['hit@1'],c['metrics']['mrr@10']) for c in d['configs']))
"
    done
  done
done
