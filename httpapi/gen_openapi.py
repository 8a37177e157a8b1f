# Writes openapi.json. Run: python3 httpapi/gen_openapi.py > httpapi/openapi.json
# (the JSON file is what the server serves and the tests validate against;
# this script is only a convenient way to edit it).
import json

def ref(n): return {"$ref": "#/components/schemas/" + n}
def err(desc): return {"description": desc, "content": {"application/json": {"schema": ref("Error")}}}
def ok(desc, schema): return {"description": desc, "content": {"application/json": {"schema": schema}}}

E = {
  "400": err("Bad input; error.field names the field."),
  "401": err("Missing, wrong or revoked API key."),
  "404": err("Not found, or not readable by this key (the two are indistinguishable)."),
  "413": err("Body, upload or text larger than the limit."),
  "415": err("Wrong Content-Type, or a file format the server cannot read."),
  "429": err("Rate limit of this key exceeded; see Retry-After."),
  "500": err("Internal error; error.request_id is in the server log."),
  "503": err("Timed out or shutting down."),
}
def errs(*codes): return {c: E[c] for c in codes}

str_ = {"type": "string"}
int_ = {"type": "integer"}
strs = {"type": "array", "items": str_}
strmap = {"type": "object", "additionalProperties": str_}
time_ = {"type": "string", "format": "date-time"}

bound = {"oneOf": [{"type": "number"}, {"type": "string"}], "description": "A number, or a date (RFC 3339 or YYYY-MM-DD)."}
schemas = {
  "Error": {"type": "object", "required": ["error"], "additionalProperties": False, "properties": {
    "error": {"type": "object", "required": ["code", "message"], "additionalProperties": False, "properties": {
      "code": {"type": "string", "enum": ["bad_request", "unauthenticated", "forbidden", "not_found", "conflict", "too_large",
                                          "unsupported_media_type", "rate_limited", "timeout", "unavailable", "internal"]},
      "message": str_, "field": str_, "request_id": str_}}}},
  "Condition": {"description": "A string (equality) or an object of tests that must all hold.", "oneOf": [
    str_,
    {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
      "eq": str_, "ne": str_, "in": strs, "not_in": strs, "gt": bound, "gte": bound, "lt": bound, "lte": bound,
      "exists": {"type": "boolean"}}}]},
  "Filter": {"type": "object", "additionalProperties": False, "properties": {
    "docs": {"type": "array", "items": str_, "maxItems": 10000},
    "metadata": {"type": "object", "additionalProperties": ref("Condition"), "maxProperties": 64}}},
  "SearchRequest": {"type": "object", "required": ["query"], "additionalProperties": False, "properties": {
    "query": {"type": "string", "minLength": 1},
    "k": {"type": "integer", "minimum": 0, "description": "1..max k (100 by default); 0 or absent means 10."},
    "mode": {"type": "string", "enum": ["bm25", "dense", "hybrid"]},
    "rerank": {"type": "boolean"}, "explain": {"type": "boolean"}, "filters": ref("Filter")}},
  "Explanation": {"type": "object", "additionalProperties": False, "properties": {
    "BM25Rank": int_, "BM25Score": {"type": "number"}, "DenseRank": int_, "DenseScore": {"type": "number"},
    "FusedScore": {"type": "number"}, "RerankScore": {"type": "number"}, "Reranked": {"type": "boolean"}}},
  "SearchResult": {"type": "object", "additionalProperties": False,
    "required": ["rank", "doc", "chunk", "text", "context", "contextualizer", "score", "heading"], "properties": {
    "rank": int_, "doc": str_, "chunk": int_,
    "text": {"type": "string", "description": "The chunk's original text."},
    "context": {"type": "string", "description": "The generated context, apart from the text."},
    "contextualizer": {"type": "string", "description": "What wrote the context."},
    "flags": strs, "score": {"type": "number"}, "heading": str_, "title": str_, "explain": ref("Explanation")}},
  "SearchResponse": {"type": "object", "required": ["query", "results"], "additionalProperties": False, "properties": {
    "query": str_, "results": {"type": "array", "items": ref("SearchResult")}}},
  "DocumentRequest": {"type": "object", "additionalProperties": False, "properties": {
    "id": str_, "title": str_, "text": str_,
    "format": {"type": "string", "enum": ["text", "markdown", "html", "code"]},
    "lang": str_, "metadata": strmap, "access": strs}},
  "UpsertForm": {"type": "object", "required": ["file"], "properties": {
    "document": {"type": "string", "description": "A DocumentRequest as JSON, without text."},
    "file": {"type": "string", "format": "binary"}}},
  "Job": {"type": "object", "additionalProperties": False,
    "required": ["id", "document", "state", "attempts", "chunks", "chunks_done", "calls", "tokens", "created_at"], "properties": {
    "id": int_, "document": str_, "state": {"type": "string", "enum": ["queued", "running", "done", "failed"]},
    "error": str_, "attempts": int_,
    "change": {"type": "string", "enum": ["added", "updated", "unchanged", "deleted", "superseded"]},
    "chunks": int_, "chunks_done": int_, "calls": int_, "tokens": int_,
    "created_at": time_, "started_at": time_, "finished_at": time_}},
  "UpsertResponse": {"type": "object", "required": ["document", "job"], "additionalProperties": False, "properties": {
    "document": str_, "job": ref("Job")}},
  "Chunk": {"type": "object", "additionalProperties": False,
    "required": ["index", "start", "end", "heading", "text", "context", "contextualizer"], "properties": {
    "index": int_, "start": int_, "end": int_, "heading": str_, "text": str_, "context": str_, "contextualizer": str_, "flags": strs}},
  "Document": {"type": "object", "additionalProperties": False,
    "required": ["id", "title", "format", "lang", "metadata", "access", "version", "chunks", "indexed_at"], "properties": {
    "id": str_, "title": str_, "format": str_, "lang": str_, "metadata": strmap, "access": strs,
    "version": int_, "chunks": int_, "indexed_at": time_, "flagged": int_,
    "chunk_list": {"type": "array", "items": ref("Chunk")}}},
  "DocumentList": {"type": "object", "required": ["documents"], "additionalProperties": False, "properties": {
    "documents": {"type": "array", "items": ref("Document")}, "next": str_}},
  "Status": {"type": "object", "additionalProperties": False,
    "required": ["tenant", "documents", "chunks", "languages", "principals", "admin", "contextualizer"], "properties": {
    "tenant": str_, "documents": int_, "chunks": int_, "languages": {"type": "object", "additionalProperties": int_},
    "principals": strs, "admin": {"type": "boolean"}, "jobs": {"type": "object", "additionalProperties": int_},
    "contextualizer": str_, "embedder": str_, "reranker": str_}},
  "Health": {"type": "object", "required": ["status"], "properties": {"status": str_}},
}

idparam = {"name": "id", "in": "path", "required": True, "description": "Document id (may contain '/').",
           "schema": {"type": "string", "minLength": 1, "maxLength": 1024}}
upsert_body = {"required": True, "content": {
  "application/json": {"schema": ref("DocumentRequest")},
  "multipart/form-data": {"schema": ref("UpsertForm")}}}

paths = {
  "/healthz": {"get": {"operationId": "health", "summary": "Liveness.", "security": [],
    "responses": {"200": ok("Alive.", ref("Health"))}}},
  "/readyz": {"get": {"operationId": "ready", "summary": "Readiness: tenants open, not shutting down.", "security": [],
    "responses": {"200": ok("Ready.", ref("Health")), "503": ok("Not ready.", ref("Health"))}}},
  "/metrics": {"get": {"operationId": "metrics", "summary": "Prometheus metrics of the caller's tenant (administrator keys only).",
    "responses": {"200": {"description": "Prometheus text format.", "content": {"text/plain": {"schema": str_}}},
                  "403": err("Not an administrator key."), **errs("401", "429")}}},
  "/v1/openapi.json": {"get": {"operationId": "openapi", "summary": "This document.", "security": [],
    "responses": {"200": ok("The OpenAPI document.", {"type": "object"})}}},
  "/v1/status": {"get": {"operationId": "status", "summary": "What the caller may see of its tenant.",
    "responses": {"200": ok("Status.", ref("Status")), **errs("401", "429", "500")}}},
  "/v1/search": {"post": {"operationId": "search",
    "summary": "Search; access and filters apply inside every arm before ranking.",
    "requestBody": {"required": True, "content": {"application/json": {"schema": ref("SearchRequest")}}},
    "responses": {"200": ok("Results, the shape `situate search --json` prints.", ref("SearchResponse")),
                  **errs("400", "401", "413", "415", "429", "500", "503")}}},
  "/v1/documents": {
    "get": {"operationId": "listDocuments", "summary": "Documents the caller may read, ordered by id.",
      "parameters": [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}},
        {"name": "cursor", "in": "query", "schema": str_, "description": "The next value of the previous page."},
        {"name": "filter", "in": "query", "schema": str_, "description": "A Filter as JSON."}],
      "responses": {"200": ok("One page.", ref("DocumentList")), **errs("400", "401", "429", "500")}},
    "post": {"operationId": "createDocument", "summary": "Create a document (409 if the id is in use); indexed by a background job.",
      "requestBody": upsert_body,
      "responses": {"202": ok("Stored; the job indexes it.", ref("UpsertResponse")),
                    "403": err("The key may not write."), "409": err("The id is in use."),
                    **errs("400", "401", "413", "415", "429", "500", "503")}}},
  "/v1/documents/{id}": {
    "parameters": [idparam],
    "get": {"operationId": "getDocument", "summary": "A document, with its chunks and contexts when chunks=true.",
      "parameters": [{"name": "chunks", "in": "query", "schema": {"type": "string", "enum": ["true", "false", "1", "0"]}}],
      "responses": {"200": ok("The document.", ref("Document")), **errs("400", "401", "404", "429", "500")}},
    "put": {"operationId": "upsertDocument", "summary": "Create or replace a document; a changed one is re-situated as a whole by a background job.",
      "requestBody": upsert_body,
      "responses": {"202": ok("Stored; the job indexes it.", ref("UpsertResponse")),
                    "403": err("The key may not write."), "409": err("The id is used by a document this key may not replace."),
                    **errs("400", "401", "413", "415", "429", "500", "503")}},
    "delete": {"operationId": "deleteDocument", "summary": "Remove a document, its source and its index entries.",
      "responses": {"204": {"description": "Deleted."}, "403": err("The key may not write."),
                    **errs("400", "401", "404", "429", "500")}}},
  "/v1/jobs/{id}": {"get": {"operationId": "getJob", "summary": "A job's state and progress.",
    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}],
    "responses": {"200": ok("The job.", ref("Job")), **errs("400", "401", "404", "429", "500")}}},
}

doc = {
  "openapi": "3.0.3",
  "info": {"title": "situate", "version": "1",
           "description": "Contextual retrieval over HTTP. Every result carries the chunk's original text with the generated context apart. A document the caller may not read is indistinguishable from one that does not exist."},
  "security": [{"bearer": []}],
  "paths": paths,
  "components": {"schemas": schemas, "securitySchemes": {
    "bearer": {"type": "http", "scheme": "bearer", "description": "An API key (sk_<id>_<secret>) from `situate keys create`; not needed on a loopback server without keys."}}},
}
print(json.dumps(doc, indent=2))
