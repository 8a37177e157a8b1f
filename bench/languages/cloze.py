#!/usr/bin/env python3
"""Build an XQuAD-like paragraph retrieval set (SQuAD format) from the Debian
FAQ's HTML (packages debian-faq, -de, -ru, -zh-cn) with questions made from
the paragraphs' own sentences, as XQuAD's are: most of a question's words
are in its paragraph, one span (the answer) is replaced by a question word
and some words are left out or moved.

Article = one chapter (title = the chapter heading without its number; the
titles are in the set's language, unlike XQuAD's English ones), paragraph =
one <p> of at least 150 characters (zh: 60) (headings are left out), up to two
questions per paragraph written in the language (ru: mostly Cyrillic,
zh: mostly Han); paragraphs left in English by the translators stay as
distractors. Deterministic (seeded by the paragraph's text).

  python3 bench/languages/cloze.py LANG DIR [--inflect] > cloze.LANG.json
"""
import glob, hashlib, html, json, os, random, re, sys

lang, d = sys.argv[1], sys.argv[2]
# --inflect (ru): a translated question rarely repeats the paragraph's word
# forms; half of the kept Cyrillic words of 5+ letters get another case ending.
inflect = "--inflect" in sys.argv[3:]
ENDINGS = ["а", "у", "ом", "ы", "е", "ой", "ами", "ах", "ов", "ей", "ую", "ая", "ые", "ого"]


def reinflect(w, rnd):
    if not inflect or len(w) < 5 or not ("\u0400" <= w[-1] <= "\u04ff") or rnd.random() < 0.5:
        return w
    core = w.rstrip("аеёиоуыэюяйьъ")
    if len(core) < 3:
        return w
    return core + rnd.choice(ENDINGS)
suffix = {"en": ".en.html"}.get(lang, "." + {"zh": "zh-cn"}.get(lang, lang) + ".html")
head = re.compile(r'<h([1-4]) class="title"[^>]*>(?:<a id="([^"]*)"></a>)?(.*?)</h\1>', re.S)
para = re.compile(r"<p>(.*?)</p>", re.S)
number = re.compile(r"^(第\s*\d+\s*章|Глава\s*\d+\.?|Kapitel\s*\d+\.?|Chapter\s*\d+\.?|[\d.]+)\s*")


def text(s):
    s = re.sub(r"<[^>]+>", "", s)
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def native(s):
    letters = [c for c in s if c.isalpha()]
    if not letters:
        return False
    if lang in ("en", "de"):
        return True
    if lang == "ru":
        n = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    else:
        n = sum(1 for c in letters if "\u4e00" <= c <= "\u9fff")
    return n * 10 >= len(letters) * 6


QW = {
    "en": ("what", "how many", "in which year"),
    "de": ("was", "wie viele", "in welchem Jahr"),
    "ru": ("что", "сколько", "в каком году"),
    "zh": ("什么", "多少", "哪一年"),
}


def words_question(sent, rnd):
    w = re.findall(r"[\w\-./]+", sent)
    if len(w) < 7:
        return None
    what, many, year = QW[lang]
    nums = [i for i, x in enumerate(w) if x.isdigit()]
    if nums:
        i = rnd.choice(nums)
        qw = year if len(w[i]) == 4 and w[i][0] in "12" else many
        span = (i, i + 1)
    else:
        i = rnd.randrange(0, max(1, len(w) - 3))
        span = (i, i + rnd.choice((1, 2)))
        qw = what
    rest = w[: span[0]] + w[span[1]:]
    keep = [x for x in rest if rnd.random() > 0.25]  # paraphrase: a quarter of the words go
    if len(keep) > 14:  # questions are shorter than sentences: a window around the answer
        s = max(0, min(span[0] - 6, len(keep) - 14))
        keep = keep[s: s + 14]
    keep = [reinflect(x.strip(".,;:"), rnd) for x in keep]
    if keep and lang != "de":
        keep[0] = keep[0][:1].lower() + keep[0][1:] if keep[0][1:2].islower() else keep[0]
    q = qw + " " + " ".join(x for x in keep if x) + "?"
    return q[0].upper() + q[1:]


def han_question(sent, rnd):
    s = re.sub(r"\s+", "", sent)
    if len(s) < 14:
        return None
    what, many, year = QW[lang]
    m = list(re.finditer(r"\d+", s))
    if m:
        x = rnd.choice(m)
        qw = year if len(x.group()) == 4 and x.group()[0] in "12" else many
        a, b = x.span()
    else:
        a = rnd.randrange(0, len(s) - 4)
        b = a + rnd.choice((2, 3, 4))
        qw = what
    q = s[:a] + qw + s[b:]
    # paraphrase: one or two runs of 2-4 characters away from the question word go
    for _ in range(rnd.choice((1, 2))):
        qa = q.find(qw)
        cands = [i for i in range(0, len(q) - 4) if i + 4 < qa or i > qa + len(qw)]
        if cands:
            i = rnd.choice(cands)
            q = q[:i] + q[i + rnd.choice((2, 3, 4)):]
    if len(q) > 40:
        qa = q.find(qw)
        s0 = max(0, min(qa - 18, len(q) - 40))
        q = q[s0: s0 + 40]
    return q.rstrip("，。；：") + "？"


data = []
nq = 0
for f in sorted(glob.glob(os.path.join(d, "*" + suffix))):
    base = os.path.basename(f)
    if base.startswith("index") or base.startswith("faqinfo"):
        continue
    src = open(f, encoding="utf-8").read()
    h = head.search(src)
    if not h:
        continue
    title = number.sub("", text(h.group(3)))
    ps = []
    for p in para.findall(src):
        body = text(p)
        if len(body) < (60 if lang == "zh" else 150) or any(body == x["context"] for x in ps):
            continue
        qas = []
        if native(body):
            rnd = random.Random(hashlib.sha1(body.encode()).hexdigest())
            sents = [s for s in re.split(r"(?<=[.!?。！？；])\s*", body) if s]
            rnd.shuffle(sents)
            for s in sents:
                q = han_question(s, rnd) if lang == "zh" else words_question(s, rnd)
                if q:
                    qas.append({"id": "%s-%s-%d-%d" % (lang, base.split(".")[0], len(ps), len(qas)), "question": q,
                                "answers": [{"text": s[:20], "answer_start": 0}]})
                if len(qas) == 2:
                    break
        nq += len(qas)
        ps.append({"context": body, "qas": qas})
    if ps:
        data.append({"title": title, "paragraphs": ps})
json.dump({"version": "debian-faq-cloze-" + lang, "data": data}, sys.stdout, ensure_ascii=False)
print("%s: %d articles, %d paragraphs, %d questions" % (lang, len(data), sum(len(a["paragraphs"]) for a in data), nq), file=sys.stderr)
