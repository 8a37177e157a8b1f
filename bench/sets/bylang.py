#!/usr/bin/env python3
"""Per-language and per-half hit@1 / MRR@10 of situate binaries, question by question.

usage (from the repository root):
  python3 bench/sets/bylang.py BINARY [BINARY...] [--sets unnamed-subject,qa-zh,faq-hand-zh,...]

Each binary runs `situate eval ... --configs offline --per-query --half tune|report`
on each set; a question's MRR@10 is read from its per-query line and hit@1 is
MRR@10 == 1 (every set here has one golden chunk or paragraph per question).
unnamed-subject is also split by the "lang" field of its queries.jsonl. Built
sets (faq-*, cloze-*, manpages-*) are read from the quality gate's cache
(go run ./bench/quality builds them first). Issue 29 used it on builds of
f1d4ae2, c440a2c, 298d52a, b3ca66c, 1dbd546 (f50a1c6^), f50a1c6, cf8ff88 and
the r-rank branch (git worktree add --detach DIR COMMIT; go build -o BIN ./cmd/situate).
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.getcwd()
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "situate-quality")
DEFAULT = ("unnamed-subject,qa-zh,xquad-zh,faq-hand-zh,faq-zh,cloze-zh,manpages-zh,"
           "xquad-en,codebase,examples-multilingual,examples-corpus,"
           "qa-ru,xquad-ru,faq-hand-ru,faq-ru,manpages-ru,qa-es,xquad-es")
LINE = re.compile(r"^(\S.*?) \[\w+\]\s+pass@\S+ (\S+)\s+recall@\S+ \S+\s+mrr@10 (\S+)")


def built(name):
    files = sorted(glob.glob(os.path.join(CACHE, name + "-*.json")), key=os.path.getmtime)
    if not files:
        sys.exit(f"{name}: not in {CACHE}; run go run ./bench/quality -sets {name} first")
    return files[-1]


def eval_args(s):
    if os.path.exists(os.path.join(ROOT, "bench", "sets", s, "queries.jsonl")):
        d = os.path.join(ROOT, "bench", "sets", s)
        return ["--format", "answers", "--docs", os.path.join(d, "docs"), "--queries", os.path.join(d, "queries.jsonl")]
    if s.startswith("examples-"):
        d = os.path.join(ROOT, "examples", s.split("-", 1)[1])
        return ["--format", "answers", "--docs", d, "--queries", os.path.join(d, "queries.jsonl")]
    if s.startswith("xquad-"):
        lang = s[6:]
        f = (os.path.join(ROOT, "..", "shared", "data", "xquad", f"xquad.{lang}.json") if lang in ("en", "de")
             else os.path.join(ROOT, "bench", "sets", "xquad", f"xquad.{lang}.json"))
        return ["--format", "squad", "--file", f, "--lang", lang]
    if s.startswith("faq-hand-"):
        lang = s[9:]
        return ["--format", "squad", "--file", os.path.join(ROOT, "cmd", "situate", "testdata", "debian-faq", f"hand.{lang}.json"), "--lang", lang]
    if s.split("-")[0] in ("faq", "cloze", "manpages"):
        return ["--format", "squad", "--file", built(s), "--lang", s.split("-")[1]]
    if s == "codebase":
        d = os.path.join(ROOT, "..", "shared", "data", "codebase")
        return ["--format", "anthropic", "--chunks", os.path.join(d, "codebase_chunks.json"),
                "--queries", os.path.join(d, "evaluation_set.jsonl"), "--contexts", os.path.join(d, "contexts_claude3haiku.json")]
    sys.exit(f"unknown set {s}")


def run(binary, s, half):
    out = subprocess.run([binary, "eval", *eval_args(s), "--configs", "offline", "--per-query", "--half", half],
                         capture_output=True, text=True, check=False)
    scores = {}
    for line in out.stdout.splitlines():
        m = LINE.match(line)
        if m:
            scores[m.group(1)] = (float(m.group(3)), float(m.group(2)))
    if not scores:
        sys.exit(f"{binary} {s} {half}: no per-query lines: {out.stderr[-500:]}")
    return scores


def cell(rows, s):
    if not rows:
        return "-"
    if s == "codebase":  # several golden chunks: Pass@10 is its metric
        return "%.2f" % (sum(p for _, p in rows) / len(rows))
    return "%.3f/%.3f" % (sum(m == 1.0 for m, _ in rows) / len(rows), sum(m for m, _ in rows) / len(rows))


def main():
    args, sets = sys.argv[1:], DEFAULT
    if "--sets" in args:
        i = args.index("--sets")
        sets, args = args[i + 1], args[:i] + args[i + 2:]
    lang = {}
    with open(os.path.join(ROOT, "bench", "sets", "unnamed-subject", "queries.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            lang[q["id"]] = q["lang"]
    res = {(b, s, h): run(b, s, h) for b in args for s in sets.split(",") for h in ("tune", "report")}
    names = [os.path.basename(b) for b in args]
    print("%-28s" % "hit@1/MRR@10" + "".join("%-16s" % n for n in names))
    if "unnamed-subject" in sets.split(","):
        for l in ("en", "es", "ru", "zh"):
            for h in ("tune", "report", "all"):
                halves = ("tune", "report") if h == "all" else (h,)
                print("%-28s" % f"unnamed-subject {l} {h}" + "".join(
                    "%-16s" % cell([v for hh in halves for k, v in res[(b, "unnamed-subject", hh)].items() if lang.get(k) == l], "")
                    for b in args))
    for s in sets.split(","):
        for h in ("tune", "report"):
            print("%-28s" % f"{s} {h}" + "".join("%-16s" % cell(list(res[(b, s, h)].values()), s) for b in args))


if __name__ == "__main__":
    main()
