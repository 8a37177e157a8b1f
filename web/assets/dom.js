// DOM helpers. Every piece of text reaches the page as a text node: no
// string from a document or the API is ever parsed as HTML.

// h builds an element. attrs are set as attributes (never event handlers:
// listeners are attached with on()); children are nodes, or strings and
// numbers that become text nodes; null and false are skipped.
export function h(tag, attrs, ...children) {
  const el = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (/^on/i.test(k)) throw new Error(`h: event attribute ${k} refused; use on()`);
    if (k === "class") el.setAttribute("class", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function on(el, type, fn, opts) {
  el.addEventListener(type, fn, opts);
  return el;
}

// clear removes every child of el.
export function clear(el) {
  el.replaceChildren();
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function fmtNumber(n) {
  return new Intl.NumberFormat().format(n ?? 0);
}

export function fmtMoney(n) {
  const v = n ?? 0;
  return "$" + (v >= 1 ? v.toFixed(2) : v.toFixed(4));
}

export function fmtDate(s) {
  if (!s) return "";
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 1971) return "";
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

let toastTimer;
// toast shows a short message in the status region.
export function toast(msg, kind = "info") {
  const t = document.getElementById("toast");
  t.textContent = msg;
  t.className = "show " + kind;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.className = ""), kind === "error" ? 8000 : 4000);
}
