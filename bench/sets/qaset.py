"""Shared helpers for the build scripts of bench/sets: read a pinned file out of
a fetched git directory, pick an answer string that occurs exactly once in its
document, and write a set (docs/, queries.jsonl) in the `situate eval --format
answers` layout."""
import json
import os
import re
import shutil
import subprocess


def git_show(gitdir, commit, path):
    """Return the bytes of path at commit in the bare repository gitdir."""
    return subprocess.run(["git", "--git-dir", gitdir, "show", commit + ":" + path],
                          check=True, capture_output=True).stdout


def load_squad(gitdir, commit, path):
    return json.loads(git_show(gitdir, commit, path).decode("utf-8"))["data"]


def _wordy(c):
    """A letter or digit of a script written with spaces between words."""
    return c.isalnum() and not ("\u2e80" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" or "\uf900" <= c <= "\ufaff")


def unique_answer(doc, start, text, grow=60):
    """The shortest string around doc[start:start+len(text)] (the answer span)
    that occurs exactly once in doc: the span itself if it is unique, else the
    span widened a step at a time, right then left, by at most grow characters
    and never across a line break. A step takes one character, or a whole word
    in a script written with spaces, so no word is cut. None when no such
    string exists (the question is then left out)."""
    if doc[start:start + len(text)] != text:
        return None
    lo, hi = start, start + len(text)
    for step in range(2 * grow + 1):
        cand = doc[lo:hi]
        if cand.strip() and doc.count(cand) == 1:
            s = cand.strip()
            return s if doc.count(s) == 1 else None
        if hi - lo > len(text) + grow:
            return None
        if step % 2 == 0:
            if hi < len(doc) and doc[hi] != "\n":
                hi += 1
                while hi < len(doc) and _wordy(doc[hi - 1]) and _wordy(doc[hi]):
                    hi += 1
        elif lo > 0 and doc[lo - 1] != "\n":
            lo -= 1
            while lo > 0 and _wordy(doc[lo]) and _wordy(doc[lo - 1]):
                lo -= 1
    return None


def subject_names(title):
    """The names a document's subject goes by, for the unnamed-subject rule:
    the title with underscores as spaces, any parenthesised part removed and
    anything after the first comma removed ("Fresno,_California" -> "Fresno"),
    plus, for a name written with a middle dot (Chinese transliterations such as
    "艾蒂安·拉莫特"), each part of two or more characters."""
    core = title.replace("_", " ")
    core = re.sub(r"[（(][^)）]*[)）]", "", core)
    core = core.split(",")[0].split("，")[0].strip()
    names = {core} if core else set()
    if "·" in core or "・" in core:
        names |= {p for p in re.split(r"[·・]", core) if len(p.strip()) >= 2}
    return sorted(n.strip() for n in names if n.strip())


def names_any(text, names):
    low = text.lower()
    return any(n.lower() in low for n in names)


def safe_name(s):
    """A file name for a title: letters, digits and CJK kept, the rest as '_'."""
    return re.sub(r"[^\w\-.]+", "_", s, flags=re.UNICODE).strip("_.") or "doc"


def write_set(outdir, docs, queries):
    """Replace outdir/docs and outdir/queries.jsonl: docs maps a path under
    docs/ to its text; queries is a list of dicts with id, query, doc, answer,
    lang. Every answer is checked to occur exactly once in its document."""
    ddir = os.path.join(outdir, "docs")
    if os.path.isdir(ddir):
        shutil.rmtree(ddir)
    for rel, text in docs.items():
        p = os.path.join(ddir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    ids = set()
    with open(os.path.join(outdir, "queries.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        for q in queries:
            assert q["id"] not in ids, q["id"]
            ids.add(q["id"])
            n = docs[q["doc"]].count(q["answer"])
            assert n == 1, (q["id"], q["answer"], n)
            f.write(json.dumps({k: q[k] for k in ("id", "query", "doc", "answer", "lang")}, ensure_ascii=False) + "\n")


def excluded_ids(path):
    """The query ids of an existing queries.jsonl (empty if it does not exist),
    so that two sets built from one source do not share questions."""
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return {json.loads(line)["id"] for line in f if line.strip()}


def paragraph_answer(doc, paragraph, qa):
    """The unique answer string for qa, whose answer_start is an offset into
    paragraph (as written in the source), inside doc, which holds the paragraph
    stripped of surrounding white space. None when there is none."""
    stripped = paragraph.strip()
    base = doc.index(stripped) - (len(paragraph) - len(paragraph.lstrip()))
    ans = qa["answers"][0]
    return unique_answer(doc, base + ans["answer_start"], ans["text"])
