// The search view: query, options and filters; results with the generated
// context set apart; the explain view.
import { api, APIError } from "./api.js";
import { $, h, on, clear, fmtNumber, toast } from "./dom.js";
import { terms, highlight } from "./highlight.js";

const OPS = [
  ["eq", "equals"],
  ["ne", "does not equal"],
  ["in", "is one of"],
  ["not_in", "is none of"],
  ["gt", ">"],
  ["gte", "≥"],
  ["lt", "<"],
  ["lte", "≤"],
  ["exists", "is set"],
  ["missing", "is not set"],
];

let controller;
let lastResults = [];

export function initSearch(openDocument) {
  const form = $("#search-form");
  on(form, "submit", (ev) => {
    ev.preventDefault();
    run(openDocument);
  });
  on($("#add-filter"), "click", () => addFilterRow());
  const tabs = [$("#tab-results"), $("#tab-explain")];
  for (const t of tabs) {
    on(t, "click", () => selectTab(t.id === "tab-explain" ? "explain" : "results"));
    on(t, "keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        const next = t.id === "tab-results" ? "explain" : "results";
        selectTab(next);
        $("#tab-" + next).focus();
        ev.preventDefault();
      }
    });
  }
}

export function selectTab(which) {
  const explain = which === "explain";
  $("#tab-results").setAttribute("aria-selected", String(!explain));
  $("#tab-explain").setAttribute("aria-selected", String(explain));
  $("#tab-results").tabIndex = explain ? -1 : 0;
  $("#tab-explain").tabIndex = explain ? 0 : -1;
  $("#results").hidden = explain;
  $("#explain").hidden = !explain;
}

function addFilterRow(key = "", op = "eq", value = "") {
  const rows = $("#filter-rows");
  const n = rows.children.length + 1;
  const sel = h("select", { name: "op", "aria-label": `Filter ${n}: test` },
    OPS.map(([v, label]) => h("option", { value: v, selected: v === op }, label)));
  const valueInput = h("input", { name: "value", placeholder: "value (lists: comma-separated)", "aria-label": `Filter ${n}: value`, value });
  const sync = () => (valueInput.disabled = sel.value === "exists" || sel.value === "missing");
  on(sel, "change", sync);
  sync();
  const remove = h("button", { type: "button", class: "ghost icon", "aria-label": `Remove filter ${n}` }, "×");
  const row = h("div", { class: "filter-row" },
    h("input", { name: "key", placeholder: "metadata key", "aria-label": `Filter ${n}: key`, value: key }), sel, valueInput, remove);
  on(remove, "click", () => row.remove());
  rows.append(row);
  row.querySelector("input").focus();
}

function bound(v) {
  const s = v.trim();
  return s !== "" && !Number.isNaN(Number(s)) ? Number(s) : s;
}

// filters reads the filter rows into the API's Filter, or throws naming the
// row at fault.
function filters(form) {
  const f = {};
  const docs = form.elements.docs.value.split(",").map((s) => s.trim()).filter(Boolean);
  if (docs.length) f.docs = docs;
  const meta = {};
  document.querySelectorAll("#filter-rows .filter-row").forEach((row, i) => {
    const key = row.querySelector("[name=key]").value.trim();
    const op = row.querySelector("[name=op]").value;
    const value = row.querySelector("[name=value]").value;
    if (!key && !value.trim()) return;
    if (!key) throw new Error(`filter ${i + 1}: the metadata key is empty`);
    const c = typeof meta[key] === "object" ? meta[key] : {};
    switch (op) {
      case "eq": case "ne": c[op] = value; break;
      case "in": case "not_in": c[op] = value.split(",").map((s) => s.trim()).filter(Boolean); break;
      case "gt": case "gte": case "lt": case "lte":
        if (!value.trim()) throw new Error(`filter ${i + 1}: ${key} needs a number or a date`);
        c[op] = bound(value);
        break;
      case "exists": c.exists = true; break;
      case "missing": c.exists = false; break;
    }
    meta[key] = c;
  });
  if (Object.keys(meta).length) f.metadata = meta;
  return Object.keys(f).length ? f : undefined;
}

async function run(openDocument) {
  const form = $("#search-form");
  const query = form.elements.q.value.trim();
  if (!query) return;
  let f;
  try {
    f = filters(form);
  } catch (e) {
    toast(e.message, "error");
    return;
  }
  const req = { query, k: Number(form.elements.k.value), explain: true };
  if (form.elements.mode.value) req.mode = form.elements.mode.value;
  if (form.elements.rerank.checked) req.rerank = true;
  if (f) req.filters = f;
  controller?.abort();
  controller = new AbortController();
  const summary = $("#search-summary");
  summary.textContent = "Searching…";
  $("#results").setAttribute("aria-busy", "true");
  const started = performance.now();
  try {
    const res = await api.search(req, controller.signal);
    const ms = Math.round(performance.now() - started);
    lastResults = res.results ?? [];
    summary.textContent = `${lastResults.length} ${lastResults.length === 1 ? "result" : "results"} for “${res.query}” in ${ms} ms`;
    renderResults(lastResults, terms(query), openDocument);
    renderExplain(lastResults);
    $("#search-tabs").hidden = lastResults.length === 0;
    if (lastResults.length === 0) selectTab("results");
  } catch (e) {
    if (e.name === "AbortError") return;
    summary.textContent = "";
    clear($("#results")).append(errorBox(e));
    clear($("#explain"));
    $("#search-tabs").hidden = true;
  } finally {
    if (!controller.signal.aborted) $("#results").removeAttribute("aria-busy");
  }
}

export function errorBox(e) {
  const field = e instanceof APIError && e.field ? ` (field: ${e.field})` : "";
  return h("p", { class: "error", role: "alert" }, e.message + field);
}

function contextBlock(r) {
  if (!r.context) {
    return h("p", { class: "context none" }, h("span", { class: "label" }, "No generated context"));
  }
  const flags = r.flags ?? [];
  return h("aside", { class: "context" + (flags.length ? " flagged" : ""), "aria-label": `Generated context, written by ${r.contextualizer || "unknown"}` },
    h("p", { class: "label" },
      h("span", { class: "kind" }, "Generated context"),
      " · written by ",
      h("strong", { class: "source" }, r.contextualizer || "unknown"),
      flags.length ? h("span", { class: "badge warn", title: "checks this context failed" }, "flagged: " + flags.join(", ")) : null),
    h("p", { class: "context-text" }, r.context));
}

function renderResults(results, ts, openDocument) {
  const box = clear($("#results"));
  if (!results.length) {
    box.append(h("p", { class: "empty" }, "No results. Try other words, or fewer filters."));
    return;
  }
  const list = h("ol", { class: "results" });
  for (const r of results) {
    const headingPath = (r.heading || "").split(" > ").filter(Boolean);
    const open = h("a", { href: "#/documents/" + encodeURIComponent(r.doc), class: "doc" }, r.doc);
    on(open, "click", (ev) => {
      ev.preventDefault();
      openDocument(r.doc, r.chunk);
    });
    const item = h("li", { class: "result", "aria-label": `Result ${r.rank}: ${r.title || r.doc}` },
      h("header", {},
        h("span", { class: "rank", "aria-hidden": "true" }, String(r.rank)),
        h("div", { class: "head" },
          h("h2", { class: "title" }, r.title || r.doc),
          h("p", { class: "where" }, open, " · chunk ", String(r.chunk)),
          headingPath.length
            ? h("nav", { class: "heading", "aria-label": "Heading path" }, h("ol", {}, headingPath.map((p) => h("li", {}, p))))
            : null),
        h("span", { class: "score", title: "fused score" }, r.score.toFixed(3))),
      contextBlock(r),
      h("div", { class: "chunk" },
        h("p", { class: "label" }, h("span", { class: "kind" }, "Original text")),
        h("div", { class: "text" }, highlight(r.text, ts))));
    list.append(item);
  }
  box.append(list);
}

function x(r, name) {
  const e = r.explain ?? {};
  return e[name];
}

// arm is a result's place in one arm ("lexical", "dense", "bm25", ...).
function arm(r, name) {
  return (x(r, "arms") ?? []).find((a) => a.arm === name) ?? {};
}

// bm25Arms are the BM25 arms a result was searched by, each with its rank:
// the parts the lexical column combines.
function bm25Arms(r) {
  const parts = (x(r, "arms") ?? []).filter((a) => a.arm !== "lexical" && a.arm !== "dense");
  if (parts.length < 2) return h("td", { class: "muted" }, "—");
  return h("td", { class: "arms muted" }, parts.map((a, i) =>
    h("span", {}, i ? " · " : "", a.arm.replace(/^bm25-/, ""), " ", a.rank ? "#" + a.rank : "—")));
}

function rankCell(rank, score) {
  if (!rank) return h("td", { class: "num muted" }, "—");
  return h("td", { class: "num" }, h("strong", {}, "#" + rank), " ", h("span", { class: "muted" }, Number(score).toFixed(4)));
}

function renderExplain(results) {
  const box = clear($("#explain"));
  if (!results.length) return;
  const reranked = results.some((r) => x(r, "reranked"));
  const table = h("table", { class: "explain" },
    h("caption", {}, "How each result was ranked: its rank and score in each arm, fused, and reranked"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "#"),
      h("th", { scope: "col" }, "Document · chunk"),
      h("th", { scope: "col", class: "num" }, "BM25"),
      h("th", { scope: "col", class: "arms" }, "BM25 arms"),
      h("th", { scope: "col", class: "num" }, "Dense"),
      h("th", { scope: "col", class: "num" }, "Fused"),
      reranked ? h("th", { scope: "col", class: "num" }, "Rerank") : null)),
    h("tbody", {}, results.map((r) => h("tr", {},
      h("td", { class: "num" }, String(r.rank)),
      h("th", { scope: "row" }, h("span", { class: "doc" }, r.doc), " · ", String(r.chunk)),
      rankCell(arm(r, "lexical").rank, arm(r, "lexical").score),
      bm25Arms(r),
      rankCell(arm(r, "dense").rank, arm(r, "dense").score),
      h("td", { class: "num" }, Number(x(r, "fused_score") ?? r.score).toFixed(4)),
      reranked ? h("td", { class: "num" }, x(r, "reranked") ? Number(x(r, "rerank_score")).toFixed(4) : "—") : null))));
  box.append(h("div", { class: "table-wrap" }, table),
    h("p", { class: "hint" }, `Ranks are 1-based; — means the arm did not retrieve the chunk. BM25 is the BM25 arms combined (language, code identifiers, word pairs, declarations). ${fmtNumber(results.length)} results.`));
}
