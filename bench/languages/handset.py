#!/usr/bin/env python3
"""Attach the hand-written questions (questions.LANG.tsv) to cloze.py's set
for the same language, replacing its generated questions: a SQuAD file whose
questions were written by a person for one paragraph each.

  python3 bench/languages/cloze.py LANG DIR > cloze.LANG.json
  python3 bench/languages/handset.py cloze.LANG.json bench/languages/questions.LANG.tsv > hand.LANG.json
"""
import json, sys

d = json.load(open(sys.argv[1]))
for a in d["data"]:
    for p in a["paragraphs"]:
        p["qas"] = []
n = 0
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    ai, pi, q = line.rstrip("\n").split("\t")
    p = d["data"][int(ai)]["paragraphs"][int(pi)]
    p["qas"].append({"id": "hand-%s-%s" % (ai, pi), "question": q, "answers": [{"text": p["context"][:20], "answer_start": 0}]})
    n += 1
d["version"] = d["version"].replace("cloze", "hand")
json.dump(d, sys.stdout, ensure_ascii=False)
print("%d questions" % n, file=sys.stderr)
