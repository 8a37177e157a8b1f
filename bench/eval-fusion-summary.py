#!/usr/bin/env python3
"""eval-fusion-summary.py: reads TSV rows of bench/eval-fusion-grid.sh on
stdin and prints, per fusion method and dense:lexical weights, the change
against BM25 alone (the row whose fusion is "-" and config has no "+") in
Pass@10, Pass@20 and MRR@10 for every (dataset, half) — MAP, recall@20 and
MRR@10 for TREC sets, which have no Pass@k — and the worst drops."""
import sys, collections
rows = [l.rstrip("\n").split("\t") for l in sys.stdin if l.strip() and not l.startswith(("dataset\t", "#"))]
base, hyb = {}, collections.OrderedDict()
cols = None
for r in rows:
    ds, half, config, fusion, w = r[:5]
    if r[6] == "-":  # TREC: MAP and recall@20 (×100) stand in for Pass@10/20
        p10, p20, mrr = float(r[11]) * 100, float(r[8]) * 100, float(r[9])
    else:
        p10, p20, mrr = float(r[6]), float(r[7]), float(r[9])
    key = (ds, half)
    if fusion == "-" and "+" not in config:
        base[key] = (p10, p20, mrr)
    elif fusion != "-":
        hyb.setdefault((fusion, w), {})[key] = (p10, p20, mrr)
keys = sorted({k for v in hyb.values() for k in v})
print("| fusion | dense:lexical | " + " | ".join((f"{d} {h}: ΔMAP×100 / Δrecall@20×100 / ΔMRR" if d == "cacm" else f"{d} {h}: ΔP@10 / ΔP@20 / ΔMRR") for d, h in keys) + " | worst ΔP@20 | worst ΔMRR |")
print("|---|---|" + "---|" * len(keys) + "---|---|")
order = {"rrf": 0, "cookbook": 1, "minmax": 2, "relative": 3}
def ratio(w):
    d, l = (float(x) for x in w.split(":"))
    return d / l if l else float("inf")
for (f, w), v in sorted(hyb.items(), key=lambda kv: (order.get(kv[0][0], 9), -ratio(kv[0][1]))):
    cells, worst20, worstm = [], 0.0, 0.0
    for k in keys:
        if k not in v or k not in base:
            cells.append("")
            continue
        d = [a - b for a, b in zip(v[k], base[k])]
        worst20, worstm = min(worst20, d[1]), min(worstm, d[2])
        cells.append(f"{d[0]:+.2f} / {d[1]:+.2f} / {d[2]:+.4f}")
    print(f"| {f} | {w} | " + " | ".join(cells) + f" | {worst20:+.2f} | {worstm:+.4f} |")
