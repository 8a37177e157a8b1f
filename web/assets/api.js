// The JSON API of situate serve (/v1/...). The key, when the user gave one,
// is sent as a bearer token.

const KEY = "situate.apiKey";

export function apiKey() {
  try { return localStorage.getItem(KEY) ?? ""; } catch { return ""; }
}

export function setAPIKey(k) {
  try {
    if (k) localStorage.setItem(KEY, k);
    else localStorage.removeItem(KEY);
  } catch { /* storage disabled: the key lasts for this page only */ }
}

// APIError carries the server's error body: {error: {code, message, field}}.
export class APIError extends Error {
  constructor(status, body) {
    const e = body?.error ?? {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code ?? "";
    this.field = e.field ?? "";
  }
}

const listeners = new Set();
// onUnauthorized registers fn to run when a request is refused for its key.
export function onUnauthorized(fn) { listeners.add(fn); }

export async function request(method, path, body, opts = {}) {
  const headers = { Accept: "application/json" };
  const key = apiKey();
  if (key) headers.Authorization = "Bearer " + key;
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const resp = await fetch(path, { method, headers, body: payload, signal: opts.signal, credentials: "same-origin" });
  if (resp.status === 204) return null;
  let data = null;
  const type = resp.headers.get("Content-Type") ?? "";
  if (type.includes("json")) data = await resp.json().catch(() => null);
  if (!resp.ok) {
    const err = new APIError(resp.status, data);
    if (resp.status === 401) listeners.forEach((fn) => fn(err));
    throw err;
  }
  return data;
}

export const api = {
  status: () => request("GET", "/v1/status"),
  search: (q, signal) => request("POST", "/v1/search", q, { signal }),
  documents: (cursor, limit = 50) => {
    const p = new URLSearchParams({ limit: String(limit) });
    if (cursor) p.set("cursor", cursor);
    return request("GET", "/v1/documents?" + p);
  },
  document: (id) => request("GET", "/v1/documents/" + encodeDocID(id) + "?chunks=true"),
  upsert: (id, form) => request("PUT", "/v1/documents/" + encodeDocID(id), form),
  upsertJSON: (id, doc) => request("PUT", "/v1/documents/" + encodeDocID(id), doc),
  remove: (id) => request("DELETE", "/v1/documents/" + encodeDocID(id)),
  job: (id) => request("GET", "/v1/jobs/" + encodeURIComponent(id)),
  usage: (days) => request("GET", "/v1/usage?days=" + encodeURIComponent(days)),
};

// encodeDocID keeps the slashes of a document id (a path) and escapes the
// rest of each segment.
export function encodeDocID(id) {
  return id.split("/").map(encodeURIComponent).join("/");
}
