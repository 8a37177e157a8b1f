#!/usr/bin/env python3
"""Build a SQuAD-format paragraph retrieval set from translated man pages.
Article = one man page (title = page name), paragraphs = the rendered page's
paragraphs (NAME section left out), question = the NAME line's description
("выводит список содержимого каталога"), answer paragraph = the first
paragraph of the description section (the third section)."""
import glob, json, os, re, subprocess, sys

lang, mandir, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(mandir + "/man[1-8]/*.gz"))
k = max(1, len(files) / limit)
files = [files[int(i * k)] for i in range(min(limit, len(files)))]
data = []
for f in files:
    env = dict(os.environ, MANWIDTH="10000", LC_ALL="C.UTF-8")
    try:
        out = subprocess.run(["man", "-l", "-Tutf8", f], capture_output=True, env=env, timeout=20).stdout.decode("utf-8", "replace")
    except Exception:
        continue
    out = re.sub(r".\x08", "", out)  # overstrike
    lines = out.split("\n")[1:-2]   # drop the page header and footer lines
    sections, cur = [], None
    for l in lines:
        if l and not l[0].isspace():
            cur = [l.strip(), []]
            sections.append(cur)
        elif cur is not None:
            cur[1].append(l.strip())
    if len(sections) < 3:
        continue
    name = " ".join(x for x in sections[0][1] if x)
    m = re.split(r"\s+[-—–]\s+", name, maxsplit=1)
    if len(m) != 2 or len(m[1]) < 8:
        continue
    question = m[1].strip()
    paras = []
    first_desc = None
    for si, (head, body) in enumerate(sections[1:], start=1):
        p = []
        for l in body + [""]:
            if l:
                p.append(l)
            elif p:
                text = " ".join(p)
                if len(text) >= 40:
                    if si == 2 and first_desc is None:
                        first_desc = len(paras)
                    paras.append(text)
                p = []
    if first_desc is None or len(paras) < 2:
        continue
    title = os.path.basename(f)[:-3]
    ps = []
    for i, t in enumerate(paras[:60]):
        qas = []
        if i == first_desc:
            qas = [{"id": lang + "-" + title, "question": question, "answers": [{"text": t[:20], "answer_start": 0}]}]
        ps.append({"context": t, "qas": qas})
    data.append({"title": title, "paragraphs": ps})
json.dump({"version": "manpages-" + lang, "data": data}, sys.stdout, ensure_ascii=False)
print(len(data), file=sys.stderr)
