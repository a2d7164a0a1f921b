-- Vigil velocity, generic main part (appended to velocity-functions.lua): the checks of one call read
-- from the arguments, for plans that have no generated script (VelocityScripts: their cache is full,
-- or a plan that cannot be cached). Same keys, fields and answers as a generated script.
--
-- KEYS[1]     idempotency marker (velocity-functions.lua); then, per group (one dimension value): its velocity HASH,
--             followed by one ZSET per distinct check of the group, in check order
-- ARGV[1], ARGV[2]  now, mode (velocity-functions.lua)
-- ARGV[3]     marker TTL ms
-- ARGV[4]     distinct cap: members kept per distinct check
-- then, per group: number of checks k, TTL span ms (its longest window + bucket); then k times:
--   id        the check's short id (VelocityKeys.wireId): its fields in the hash, its line in the marker
--   spec      bucket ms * 1024 + n, n the buckets in the window (the window is n buckets exactly)
--   value     "c" count; "s<amount x 10^4, integer>" sum; "d<member>" or "d" (no member) distinct
-- Returns the answers in the marker's format, in check order (velocity-functions.lua); a retry answers
-- what it answered then.

cap = ARGV[4] + 0
capRank = tostring(-(cap + 1))
local DISTINCT = 100 -- 'd'

-- ring and distinct for the generic script: their writes appended to `set` (field, value, ...).
local function ringCheck(id, cur, n, add, state, set)
  local answer, new = ring(cur, n, add, state)
  if new then
    set[#set + 1] = id
    set[#set + 1] = new
  end
  return answer
end

local function distinctCheck(key, id, cur, n, bucket, member, state, set)
  local answer, new = distinct(key, cur, n, bucket, member, state)
  if new and new ~= state then
    set[#set + 1] = id
    set[#set + 1] = new
  end
  return answer
end

-- Ends one group of the generic script: writes the fields its checks changed (`set`).
local function writeGroup(hash, exp, span, set)
  if write and #set > 0 then writeFields(hash, exp, span, unpack(set)) end
end

-- One group (the checks on one dimension value), starting at ARGV[a] and KEYS[keyAt]: reads the
-- states of its checks with one HMGET, answers, writes with one HSET.
-- Returns the next ARGV and KEYS positions.
local function runGroup(a, keyAt, answered, out, marks)
  local hash = KEYS[keyAt]
  local k, span = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local first, last = a + 2, a + 2 + 3 * (k - 1)
  local fields, asked = {'|exp'}, 0
  for p = first, last, 3 do
    local id = ARGV[p]
    fields[#fields + 1] = id
    if not (answered and answered[id]) then asked = asked + 1 end
  end
  local values = asked > 0 and redis.call('HMGET', hash, unpack(fields)) or nil
  local j, set, distinctKey = 2, {}, keyAt + 1
  for p = first, last, 3 do
    local id, spec, value = ARGV[p], tonumber(ARGV[p + 1]), ARGV[p + 2]
    local n = spec % 1024
    local bucket = (spec - n) / 1024
    local kind = byte(value, 1)
    local key
    if kind == DISTINCT then
      key = KEYS[distinctKey]
      distinctKey = distinctKey + 1
    end
    local answer = answered and answered[id]
    if not answer then
      local cur = floor(now / bucket)
      if kind == DISTINCT then
        local member = #value > 1 and sub(value, 2) or nil
        answer = distinctCheck(key, id, cur, n, bucket, member, values[j], set)
      else
        answer = ringCheck(id, cur, n, kind == 99 and 1 or sub(value, 2) + 0, values[j], set)
      end
      if write then marks[#marks + 1] = pack('>c8d', id, answer) end
    end
    j = j + 1
    out[#out + 1] = pack('>c8d', id, answer)
  end

  writeGroup(hash, values and values[1], span, set)
  return last + 3, distinctKey
end

local function main()
  local prior = redis.call('GET', KEYS[1])
  local answered = answersOf(prior)
  local out, marks = {}, {}
  local a, keyAt = 5, 2
  while a <= #ARGV do
    a, keyAt = runGroup(a, keyAt, answered, out, marks)
  end
  if #marks > 0 then
    redis.call('SET', KEYS[1], (answered and prior or '\1') .. table.concat(marks), 'PX', ARGV[3])
  end
  return '\1' .. table.concat(out)
end

return main()
