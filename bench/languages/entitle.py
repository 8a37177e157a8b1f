#!/usr/bin/env python3
"""Give a Russian or Chinese FAQ set the English chapter titles, as XQuAD
keeps English titles on its translated articles (chapters are in file-name
order in every language, so they align one to one).

  python3 bench/languages/entitle.py hand.ru.json cloze.en.json > hand.ru.entitle.json
"""
import json, sys

d, en = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(d["data"]) == len(en["data"]), "chapters do not align"
for a, b in zip(d["data"], en["data"]):
    a["title"] = b["title"].replace(" ", "_")
json.dump(d, sys.stdout, ensure_ascii=False)
