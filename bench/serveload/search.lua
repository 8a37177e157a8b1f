-- wrk script: POST /v1/search with queries read from queries.txt (one per
-- line, made by "serveload queries"), cycling; the key comes from the
-- SITUATE_KEY environment variable. Non-200 answers are counted and
-- printed at the end (wrk itself counts only socket errors and non-2xx/3xx).
local queries = {}
local i = 0
local bad = 0
local key = os.getenv("SITUATE_KEY") or ""
local file = os.getenv("SITUATE_QUERIES") or "queries.txt"
for line in io.lines(file) do
  queries[#queries + 1] = line
end

request = function()
  i = i % #queries + 1
  local body = '{"query":"' .. queries[i] .. '","k":10}'
  local headers = { ["Content-Type"] = "application/json" }
  if key ~= "" then headers["Authorization"] = "Bearer " .. key end
  return wrk.format("POST", "/v1/search", headers, body)
end

response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms; non-2xx/3xx %d, socket errors %d (connect %d, read %d, write %d, timeout %d)\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
