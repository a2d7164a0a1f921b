-- wrk script for the ceiling phases of `make bench` (loadtests/bench, docs/performance.md): a light,
-- closed-loop load generator beside k6, so the engine's own ceiling is measured without k6's
-- ~350-550 µs of CPU per request on the same two cores.
--
--   wrk -t1 -c32 -d10s -s loadtests/wrk/vigil.lua http://127.0.0.1:8081 -- <pool-file> <path> <run-tag> <summary.json>
--
-- Bodies come from pool.js (the k6 traffic generator: Zipf cards, the seeds' mixes); each request gets a
-- unique transaction_id; 1% of requests resend a recent request verbatim (a retry, same transaction_id).
-- The summary has the shape of the k6 scenarios' summary (loadtests/k6/vigil.js buildSummary), so the
-- bench report reads both.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  pool_file, path, tag, summary_file = args[1], args[2], args[3], args[4]
  pre, post = {}, {}
  for line in io.lines(pool_file) do
    local i, j = string.find(line, "@ID@", 1, true)
    if i then
      pre[#pre + 1] = string.sub(line, 1, i - 1)
      post[#post + 1] = string.sub(line, j + 1)
    end
  end
  if #pre == 0 then error("no bodies in " .. tostring(pool_file)) end
  prefix = tag .. "-" .. id .. "-"
  seq, recent, recent_n = 0, {}, 0
  ok, non200, decided, normal, declined = 0, 0, 0, 0, 0
  headers = { ["Content-Type"] = "application/json" }
  noop = string.find(path, "noop", 1, true) ~= nil
end

function request()
  if recent_n > 0 and math.random() < 0.01 then
    return recent[math.random(math.min(recent_n, 64))]
  end
  seq = seq + 1
  local k = (seq - 1) % #pre + 1
  local req = wrk.format("POST", path, headers, pre[k] .. prefix .. seq .. post[k])
  recent[(recent_n % 64) + 1] = req
  recent_n = recent_n + 1
  return req
end

function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
    return
  end
  ok = ok + 1
  if noop then
    if string.find(body, '"noop":true', 1, true) then normal = normal + 1 end
    return
  end
  if string.find(body, '"decision":"', 1, true) then
    decided = decided + 1
    if string.find(body, '"engine_mode":"NORMAL"', 1, true) then normal = normal + 1 end
    if string.find(body, '"decision":"DECLINE"', 1, true) then declined = declined + 1 end
  end
end

function done(summary, latency, requests)
  -- done() runs in wrk's main Lua state: what init() set lives in the threads' states.
  local path, summary_file = threads[1]:get("path"), threads[1]:get("summary_file")
  local noop = string.find(path, "noop", 1, true) ~= nil
  local t = { ok = 0, non200 = 0, decided = 0, normal = 0, declined = 0 }
  for _, th in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (th:get(k) or 0) end
  end
  local seconds = summary.duration / 1e6
  local n = summary.requests
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  local function ms(p) return math.floor(latency:percentile(p) + 0.5) / 1000 end
  local base = noop and t.ok or t.decided
  local json = string.format(
    '{"scenario":"wrk","target":"%s","duration_s":%.1f,"generator":"wrk","overall":{"requests":%d,"rps":%.1f,' ..
    '"latency_ms":{"avg":%.3f,"p50":%.3f,"p90":%.3f,"p95":%.3f,"p99":%.3f,"p999":%.3f,"max":%.3f},' ..
    '"failed_rate":%.6f,"normal_rate":%s,"declined_rate":%s,"dropped_iterations":0},' ..
    '"parts":{},"bad_answers":%d,"transport_errors":%d,"passed":%s,"failed_thresholds":[]}',
    noop and "noop" or "auth", seconds, n, n / seconds,
    latency.mean / 1000, ms(50), ms(90), ms(95), ms(99), ms(99.9), latency.max / 1000,
    n > 0 and (t.non200 + errors) / n or 0,
    base > 0 and string.format("%.6f", t.normal / base) or "null",
    (not noop and base > 0) and string.format("%.6f", t.declined / base) or "null",
    t.non200 + (noop and 0 or (t.ok - t.decided)), errors, tostring(t.non200 + errors == 0))
  local f = assert(io.open(summary_file, "w"))
  f:write(json)
  f:close()
  io.write(string.format("vigil wrk (%s): %d requests, %.1f/s, p50 %.2f p99 %.2f ms, non-200 %d, normal %s\n",
    path, n, n / seconds, ms(50), ms(99), t.non200, base > 0 and string.format("%.2f%%", 100 * t.normal / base) or "-"))
end
