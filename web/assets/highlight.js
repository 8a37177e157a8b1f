// Highlighting of the query's terms in a result's text, built from text
// nodes and <mark> elements (never HTML).

const WORD = /[\p{L}\p{N}_]+/gu;
const HAN = /\p{Script=Han}/u;

// terms turns a query into what to highlight: lower-cased words of at least
// two characters (any length for Chinese), stripped of common English
// endings so "revenues" also marks "revenue".
export function terms(query) {
  const out = new Set();
  for (const m of query.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (HAN.test(w)) { out.add(w); continue; }
    if ([...w].length < 2) continue;
    out.add(stem(w));
  }
  return [...out];
}

function stem(w) {
  for (const suf of ["ing", "ies", "es", "ed", "s"]) {
    if (w.endsWith(suf) && [...w].length - suf.length >= 3) return w.slice(0, -suf.length);
  }
  return w;
}

function matches(word, ts) {
  const lw = word.toLowerCase();
  return ts.some((t) => (HAN.test(t) ? false : lw.startsWith(t) && [...lw].length - [...t].length <= 4));
}

// highlight returns a DocumentFragment of text with the terms marked.
export function highlight(text, ts) {
  const frag = document.createDocumentFragment();
  if (!ts.length) { frag.append(document.createTextNode(text)); return frag; }
  const han = ts.filter((t) => HAN.test(t));
  let last = 0;
  const mark = (s) => { const m = document.createElement("mark"); m.textContent = s; frag.append(m); };
  const plain = (s) => { if (s) frag.append(document.createTextNode(s)); };
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    const at = m.index;
    if (han.length && HAN.test(word)) {
      // Chinese has no spaces: mark each occurrence of a term inside the run.
      plain(text.slice(last, at));
      let i = 0;
      while (i < word.length) {
        const t = han.find((t) => word.startsWith(t, i));
        if (t) { mark(t); i += t.length; continue; }
        let j = i + 1;
        while (j < word.length && !han.some((t) => word.startsWith(t, j))) j++;
        plain(word.slice(i, j));
        i = j;
      }
      last = at + word.length;
      continue;
    }
    if (matches(word, ts)) {
      plain(text.slice(last, at));
      mark(word);
      last = at + word.length;
    }
  }
  plain(text.slice(last));
  return frag;
}
