# Reference for fusion.Cookbook / fusion.CookbookKeyed: the fusion step of
# retrieve_advanced in the Anthropic cookbook's contextual-embeddings guide,
# written out with the same Python operations (set union, list.index,
# weight * (1 / (index + 1)) summed semantic first, sorted with
# key=(score, *id) and reverse=True). Reads {"semantic": [...], "bm25": [...]}
# on stdin, where an item is [doc_id, original_index] (a tuple id) or a string;
# prints [[id..., float.hex(score)], ...] in fused order.
import json
import sys

SEMANTIC_WEIGHT = 0.8
BM25_WEIGHT = 0.2


def key_of(item):
    return tuple(item) if isinstance(item, list) else item


def main():
    data = json.load(sys.stdin)
    semantic = [key_of(x) for x in data["semantic"]]
    bm25 = [key_of(x) for x in data["bm25"]]
    chunk_ids = list(set(semantic + bm25))
    scores = {}
    for chunk_id in chunk_ids:
        score = 0
        if chunk_id in semantic:
            score += SEMANTIC_WEIGHT * (1 / (semantic.index(chunk_id) + 1))
        if chunk_id in bm25:
            score += BM25_WEIGHT * (1 / (bm25.index(chunk_id) + 1))
        scores[chunk_id] = score

    def sort_key(x):
        return (scores[x],) + (x if isinstance(x, tuple) else (x,))

    ordered = sorted(scores.keys(), key=sort_key, reverse=True)
    out = []
    for x in ordered:
        ident = list(x) if isinstance(x, tuple) else [x]
        out.append(ident + [float(scores[x]).hex()])
    json.dump(out, sys.stdout)


main()
