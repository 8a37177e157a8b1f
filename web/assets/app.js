// situate's page: hash routes #/search, #/documents[/ID], #/usage.
import { api, apiKey, setAPIKey, onUnauthorized } from "./api.js";
import { $, $$, on, toast } from "./dom.js";
import { initSearch } from "./search.js";
import { initDocuments, showDocuments, openDocument } from "./documents.js";
import { initUsage, showUsage } from "./usage.js";

const VIEWS = ["search", "documents", "usage"];

function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [view, ...rest] = hash.split("/");
  const name = VIEWS.includes(view) ? view : "search";
  for (const v of VIEWS) $(`#view-${v}`).hidden = v !== name;
  for (const a of $$("[data-nav]")) {
    if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.title = `situate · ${name}`;
  if (name === "documents") {
    showDocuments();
    const id = rest.length ? decodeURIComponent(rest.join("/")) : "";
    if (id) openDocument(id);
  } else if (name === "usage") {
    showUsage();
  } else {
    $("#q").focus();
  }
}

// goDocument opens a document from a search result.
function goDocument(id, chunk) {
  history.pushState(null, "", "#/documents/" + encodeURIComponent(id));
  route();
  openDocument(id, chunk);
}

function initKeyDialog() {
  const dialog = $("#key-dialog");
  const open = () => {
    $("#key-input").value = apiKey();
    dialog.showModal();
    $("#key-input").focus();
  };
  on($("#key-button"), "click", open);
  on(dialog, "close", () => {
    if (dialog.returnValue === "save") {
      setAPIKey($("#key-input").value.trim());
      toast("Key saved for this browser.");
      route();
      whoami();
    } else if (dialog.returnValue === "forget") {
      setAPIKey("");
      toast("Key forgotten.");
      whoami();
    }
    $("#key-input").value = "";
  });
  onUnauthorized(() => {
    toast("This server needs an API key.", "error");
    if (!dialog.open) open();
  });
}

async function whoami() {
  const el = $("#who");
  try {
    const s = await api.status();
    el.textContent = s.admin ? `${s.tenant} · admin` : `${s.tenant}`;
    // Offer only what this key may use: uploading needs a write key,
    // usage an administrator's, dense and hybrid search an embedder.
    $("#upload-box").hidden = !(s.admin || s.write);
    $('[data-nav="usage"]').hidden = !s.admin;
    for (const o of $$('select[name="mode"] option[value="dense"], select[name="mode"] option[value="hybrid"]')) {
      o.hidden = o.disabled = !s.embedder;
    }
  } catch {
    el.textContent = "";
  }
}

function initKeyboard() {
  on(document, "keydown", (ev) => {
    const typing = ev.target.closest?.("input, textarea, select, [contenteditable]");
    if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault();
      if (location.hash && !location.hash.startsWith("#/search")) location.hash = "#/search";
      $("#q").focus();
      $("#q").select();
    } else if (ev.key === "Escape" && ev.target === $("#q")) {
      $("#q").blur();
    }
  });
}

initSearch(goDocument);
initDocuments();
initUsage();
initKeyDialog();
initKeyboard();
on(window, "hashchange", route);
route();
whoami();
