#!/usr/bin/env python3
"""Build a SQuAD-format paragraph retrieval set from the Debian FAQ (packages
debian-faq, debian-faq-de, debian-faq-ru, debian-faq-zh-cn: chunked DocBook
HTML, one file per chapter).

Article = one chapter (title = the chapter heading without its number),
paragraph = one question's answer (the <p> text of its section, up to the next
heading), question = the section heading without its number ("Что такое
Debian GNU/Linux?", "什么是 Debian GNU/Linux？"), kept only when it ends with a
question mark and the answer is written in the language (for ru/zh at least
40% of its letters are Cyrillic/Han: the translations leave some answers in
English; those stay as distractor paragraphs without a question). The heading
is not part of any paragraph, as an XQuAD question is not part of its
paragraph.

  python3 bench/languages/faq.py LANG DIR > faq.LANG.json
  DIR: /usr/share/doc/debian/FAQ (en), .../FAQ/de, .../FAQ/ru, .../FAQ/zh-cn
"""
import glob, html, json, os, re, sys

lang, d = sys.argv[1], sys.argv[2]
suffix = {"en": ".en.html"}.get(lang, "." + {"zh": "zh-cn"}.get(lang, lang) + ".html")
head = re.compile(r'<h([1-4]) class="title"[^>]*>(?:<a id="([^"]*)"></a>)?(.*?)</h\1>', re.S)
para = re.compile(r"<p>(.*?)</p>", re.S)


def text(s):
    s = re.sub(r"<[^>]+>", "", s)
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def native(s):
    letters = [c for c in s if c.isalpha()]
    if not letters or lang in ("en", "de"):
        return True
    if lang == "ru":
        n = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    else:
        n = sum(1 for c in letters if "\u4e00" <= c <= "\u9fff")
    return n * 5 >= len(letters) * 2


number = re.compile(r"^(第\s*\d+\s*章|Глава\s*\d+\.?|Kapitel\s*\d+\.?|Chapter\s*\d+\.?|[\d.]+)\s*")
data = []
nq = 0
for f in sorted(glob.glob(os.path.join(d, "*" + suffix))):
    base = os.path.basename(f)
    if base.startswith("index") or base.startswith("faqinfo"):
        continue
    src = open(f, encoding="utf-8").read()
    heads = list(head.finditer(src))
    if not heads:
        continue
    title = number.sub("", text(heads[0].group(3)))
    ps = []
    for i, h in enumerate(heads[1:], start=1):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(src)
        body = " ".join(text(p) for p in para.findall(src[h.end():end]))
        body = body.strip()
        if len(body) < 40:
            continue
        q = number.sub("", text(h.group(3)))
        qas = []
        if q.endswith(("?", "？")) and native(body) and native(q):
            qas = [{"id": "%s-%s" % (lang, h.group(2) or i), "question": q,
                    "answers": [{"text": body[:20], "answer_start": 0}]}]
            nq += 1
        ps.append({"context": body[:2000], "qas": qas})
    if ps:
        data.append({"title": title, "paragraphs": ps})
json.dump({"version": "debian-faq-" + lang, "data": data}, sys.stdout, ensure_ascii=False)
print("%s: %d articles, %d paragraphs, %d questions" % (lang, len(data), sum(len(a["paragraphs"]) for a in data), nq), file=sys.stderr)
