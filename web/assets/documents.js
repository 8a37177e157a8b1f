// The documents view: upload, job progress, the documents with their
// contextualization status, and one document's chunks and contexts.
import { api } from "./api.js";
import { $, h, on, clear, fmtNumber, fmtDate, toast } from "./dom.js";
import { errorBox } from "./search.js";

let nextCursor = "";
const polling = new Map(); // job id -> timer

export function initDocuments() {
  const form = $("#upload-form");
  on(form, "submit", (ev) => {
    ev.preventDefault();
    upload(form);
  });
  on($("#upload-file"), "change", () => {
    const f = $("#upload-file").files[0];
    const id = $("#upload-id");
    if (f && !id.value) id.placeholder = f.name;
  });
  on($("#refresh-docs"), "click", () => loadDocuments(true));
}

export async function showDocuments() {
  loadStatus();
  await loadDocuments(true);
}

async function loadStatus() {
  const el = $("#tenant-status");
  try {
    const s = await api.status();
    const parts = [`${fmtNumber(s.documents)} documents`, `${fmtNumber(s.chunks)} chunks`, `contexts by ${s.contextualizer}`];
    if (s.embedder) parts.push(`embeddings by ${s.embedder}`);
    if (s.jobs) {
      parts.push("jobs: " + ["queued", "running", "done", "failed"].map((k) => `${fmtNumber(s.jobs[k] ?? 0)} ${k}`).join(", "));
    }
    el.textContent = `Tenant ${s.tenant}: ` + parts.join(" · ");
  } catch (e) {
    clear(el).append(errorBox(e));
  }
}

function parseMetadata(text) {
  const out = {};
  text.split("\n").forEach((line, i) => {
    const s = line.trim();
    if (!s) return;
    const eq = s.indexOf("=");
    if (eq <= 0) throw new Error(`metadata line ${i + 1}: want key=value`);
    out[s.slice(0, eq).trim()] = s.slice(eq + 1).trim();
  });
  return out;
}

async function upload(form) {
  const file = form.elements.file.files[0];
  const text = form.elements.text.value;
  const id = (form.elements.id.value || file?.name || "").trim();
  if (!file && !text.trim()) {
    toast("Choose a file or paste some text.", "error");
    return;
  }
  if (!id) {
    toast("Give the pasted text an id.", "error");
    return;
  }
  let doc;
  try {
    doc = { title: form.elements.title.value.trim() || undefined };
    const access = form.elements.access.value.split(",").map((s) => s.trim()).filter(Boolean);
    if (access.length) doc.access = access;
    const meta = parseMetadata(form.elements.metadata.value);
    if (Object.keys(meta).length) doc.metadata = meta;
  } catch (e) {
    toast(e.message, "error");
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    let res;
    if (file) {
      const fd = new FormData();
      fd.append("document", new Blob([JSON.stringify(doc)], { type: "application/json" }), "document.json");
      fd.append("file", file, file.name);
      res = await api.upsert(id, fd);
    } else {
      res = await api.upsertJSON(id, { ...doc, text });
    }
    toast(`Uploaded ${res.document}; indexing it.`);
    form.reset();
    $("#upload-id").placeholder = "defaults to the file's name";
    watchJob(res.job);
  } catch (e) {
    toast(`Upload of ${id} failed: ${e.message}${e.field ? ` (field: ${e.field})` : ""}`, "error");
  } finally {
    button.disabled = false;
  }
}

function jobCard(job) {
  const total = job.chunks || 0;
  const done = job.chunks_done || 0;
  const finished = job.state === "done" || job.state === "failed";
  const prog = h("progress", { max: total || 1, "aria-label": `Progress of ${job.document}` });
  prog.value = finished && job.state === "done" ? total || 1 : done;
  if (!total && !finished) prog.removeAttribute("value"); // indeterminate until chunked
  return h("div", { class: `job ${job.state}`, id: `job-${job.id}`, dataset: { state: job.state } },
    h("p", {},
      h("strong", {}, job.document), " ",
      h("span", { class: `badge state-${job.state}` }, job.state),
      job.change ? h("span", { class: "muted" }, ` ${job.change}`) : null),
    prog,
    h("p", { class: "muted small" },
      total ? `${fmtNumber(done)} of ${fmtNumber(total)} chunks` : "waiting for chunks",
      ` · ${fmtNumber(job.calls)} LLM calls · ${fmtNumber(job.tokens)} tokens`,
      job.attempts > 1 ? ` · attempt ${job.attempts}` : ""),
    job.error ? h("p", { class: "error" }, job.error) : null);
}

function watchJob(job) {
  const box = $("#jobs");
  const render = (j) => {
    const card = jobCard(j);
    const old = document.getElementById(`job-${j.id}`);
    if (old) old.replaceWith(card);
    else box.prepend(card);
  };
  render(job);
  clearTimeout(polling.get(job.id));
  const tick = async () => {
    try {
      const j = await api.job(job.id);
      render(j);
      if (j.state === "done" || j.state === "failed") {
        polling.delete(j.id);
        if (j.state === "done") toast(`${j.document} is indexed.`);
        else toast(`${j.document}: indexing failed: ${j.error}`, "error");
        loadDocuments(true);
        loadStatus();
        return;
      }
    } catch (e) {
      toast(`Job ${job.id}: ${e.message}`, "error");
      polling.delete(job.id);
      return;
    }
    polling.set(job.id, setTimeout(tick, 400));
  };
  polling.set(job.id, setTimeout(tick, 200));
}

async function loadDocuments(reset) {
  const box = $("#doc-table");
  if (reset) nextCursor = "";
  let page;
  try {
    page = await api.documents(nextCursor);
  } catch (e) {
    clear(box).append(errorBox(e));
    return;
  }
  let tbody = box.querySelector("tbody");
  if (reset || !tbody) {
    tbody = h("tbody", {});
    clear(box).append(h("div", { class: "table-wrap" }, h("table", { class: "docs" },
      h("caption", { class: "visually-hidden" }, "Indexed documents"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Document"),
        h("th", { scope: "col" }, "Lang"),
        h("th", { scope: "col", class: "num" }, "Chunks"),
        h("th", { scope: "col", class: "num" }, "Ver."))),
      tbody)));
  }
  for (const d of page.documents) {
    const link = h("a", { href: "#/documents/" + encodeURIComponent(d.id) }, d.title || d.id);
    on(link, "click", (ev) => {
      ev.preventDefault();
      openDocument(d.id);
    });
    tbody.append(h("tr", { dataset: { doc: d.id } },
      h("td", {}, link, d.title && d.title !== d.id ? h("div", { class: "muted small mono" }, d.id) : null,
        h("div", { class: "muted small" }, d.access?.length ? "readers: " + d.access.join(", ") : "readers: everyone",
          d.indexed_at ? " · " + fmtDate(d.indexed_at) : "")),
      h("td", {}, d.lang || ""),
      h("td", { class: "num" }, fmtNumber(d.chunks)),
      h("td", { class: "num" }, String(d.version))));
  }
  box.querySelector(".more")?.remove();
  if (!tbody.children.length) {
    tbody.append(h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No documents yet: upload one above.")));
  }
  nextCursor = page.next || "";
  if (nextCursor) {
    const more = h("button", { type: "button", class: "ghost more" }, "More documents");
    on(more, "click", () => loadDocuments(false));
    box.append(more);
  }
}

// openDocument shows a document's chunks with their contexts; chunk, when
// given, is scrolled to and marked.
export async function openDocument(id, chunk) {
  const box = clear($("#doc-detail"));
  box.append(h("p", { class: "muted" }, `Loading ${id}…`));
  let d;
  try {
    d = await api.document(id);
  } catch (e) {
    clear(box).append(errorBox(e));
    return;
  }
  const chunks = d.chunk_list ?? [];
  const bySource = new Map();
  let flagged = 0;
  for (const c of chunks) {
    const k = c.contextualizer || "none";
    bySource.set(k, (bySource.get(k) ?? 0) + 1);
    if (c.flags?.length) flagged++;
  }
  const onlyFlagged = h("input", { type: "checkbox", id: "only-flagged" });
  const list = h("ol", { class: "chunks" });
  const renderChunks = () => {
    clear(list);
    for (const c of chunks) {
      if (onlyFlagged.checked && !c.flags?.length) continue;
      list.append(h("li", { class: "chunk-item" + (c.index === chunk ? " target" : ""), id: `chunk-${c.index}`, tabindex: "-1" },
        h("p", { class: "where" }, `chunk ${c.index}`, c.heading ? ` · ${c.heading}` : "", h("span", { class: "muted" }, ` · bytes ${c.start}–${c.end}`)),
        c.context
          ? h("aside", { class: "context" + (c.flags?.length ? " flagged" : ""), "aria-label": `Generated context, written by ${c.contextualizer}` },
            h("p", { class: "label" }, h("span", { class: "kind" }, "Generated context"), " · written by ", h("strong", { class: "source" }, c.contextualizer),
              c.flags?.length ? h("span", { class: "badge warn" }, "flagged: " + c.flags.join(", ")) : null),
            h("p", { class: "context-text" }, c.context))
          : h("p", { class: "context none" }, h("span", { class: "label" }, "No generated context")),
        h("div", { class: "chunk" }, h("p", { class: "label" }, h("span", { class: "kind" }, "Original text")), h("div", { class: "text" }, c.text))));
    }
    if (!list.children.length) list.append(h("li", { class: "empty" }, "No flagged contexts in this document."));
  };
  on(onlyFlagged, "change", renderChunks);
  renderChunks();
  const del = h("button", { type: "button", class: "ghost danger" }, "Delete");
  on(del, "click", async () => {
    if (!window.confirm(`Delete ${d.id} and its chunks and contexts?`)) return;
    try {
      await api.remove(d.id);
      toast(`Deleted ${d.id}.`);
      clear(box);
      loadDocuments(true);
      loadStatus();
    } catch (e) {
      toast(e.message, "error");
    }
  });
  const meta = Object.entries(d.metadata ?? {});
  clear(box).append(
    h("div", { class: "toolbar" }, h("h2", {}, d.title || d.id), del),
    h("dl", { class: "facts" },
      h("dt", {}, "Id"), h("dd", { class: "mono" }, d.id),
      h("dt", {}, "Format"), h("dd", {}, `${d.format} · ${d.lang}`),
      h("dt", {}, "Version"), h("dd", {}, `${d.version} · indexed ${fmtDate(d.indexed_at)}`),
      h("dt", {}, "Readers"), h("dd", {}, d.access?.length ? d.access.join(", ") : "everyone"),
      meta.length ? [h("dt", {}, "Metadata"), h("dd", {}, meta.map(([k, v]) => `${k}=${v}`).join(" · "))] : null,
      h("dt", {}, "Contexts"), h("dd", { id: "context-status" },
        [...bySource].map(([k, n]) => `${fmtNumber(n)} by ${k}`).join(", ") || "none",
        " · ", h("span", { class: flagged ? "badge warn" : "badge ok" }, `${fmtNumber(flagged)} flagged`))),
    h("label", { class: "check" }, onlyFlagged, " Show flagged contexts only"),
    list);
  if (chunk !== undefined) {
    const t = document.getElementById(`chunk-${chunk}`);
    t?.scrollIntoView({ block: "center" });
    t?.focus({ preventScroll: true });
  } else {
    // Opened from the list: on a phone the document sits below the
    // list, so bring it into view.
    box.scrollIntoView({ block: "start" });
    box.focus?.({ preventScroll: true });
  }
}
