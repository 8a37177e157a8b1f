"""Build a bench/sets/qa-<lang> set from one language of XQuAD: every article
is a document, and QUESTIONS questions are drawn with a fixed seed from the
questions not already used by bench/sets/unnamed-subject."""
import os
import random
import sys

import qaset

XQUAD = "7d30520c717524000f0d9d2f9c10a069acd9d285"
SEED = 29
QUESTIONS = 200


def build(lang, out, xquad_git):
    arts = qaset.load_squad(xquad_git, XQUAD, "xquad.%s.json" % lang)
    skip = qaset.excluded_ids(os.path.join(out, "..", "unnamed-subject", "queries.jsonl"))
    skip = {i.split("-", 2)[2] for i in skip if i.startswith("xquad-")}
    docs, pool = {}, []
    for a in arts:
        rel = qaset.safe_name(a["title"]) + ".md"
        assert rel not in docs, rel
        docs[rel] = "# " + a["title"].replace("_", " ") + "\n\n" + "\n\n".join(p["context"].strip() for p in a["paragraphs"]) + "\n"
        for p in a["paragraphs"]:
            for qa in p["qas"]:
                if qa["id"] not in skip:
                    pool.append((rel, p["context"], qa))
    rng = random.Random(SEED)
    queries = []
    for rel, ctx, qa in rng.sample(pool, len(pool)):
        if len(queries) == QUESTIONS:
            break
        answer = qaset.paragraph_answer(docs[rel], ctx, qa)
        if answer is None:
            continue
        queries.append({"id": qa["id"], "query": qa["question"].strip(), "doc": rel, "answer": answer, "lang": lang})
    queries.sort(key=lambda q: q["id"])
    qaset.write_set(out, docs, queries)
    print("%d documents, %d questions" % (len(docs), len(queries)), file=sys.stderr)
