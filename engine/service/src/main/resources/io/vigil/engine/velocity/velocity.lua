-- Vigil velocity: the velocity checks of one transaction whose keys share one hash slot, in one atomic
-- call. Redis work is O(number of checks): no reading of whole hashes or sets, nothing that grows with
-- a card's history (docs/adr/0005-velocity-running-windows.md, docs/velocity.md).
--
-- KEYS[1]     idempotency marker of (ruleset key, transaction id): STRING "<id>=<answer>\n..."
-- then, per group (one dimension value): its velocity HASH, followed by one ZSET per distinct check
--             of the group, in check order
-- ARGV[1]     now, epoch ms, from the engine's clock
-- ARGV[2]     "w" count this transaction, "r" read only (simulate/replay: change nothing)
-- ARGV[3]     marker TTL ms
-- ARGV[4]     distinct cap: members kept per distinct check
-- then, per group: number of checks k, TTL span ms (its longest window + bucket); then k times:
--   id        check id "<rule>:<window>s:<aggregate>": the hash field of its state, marker field
--   bucket    bucket length ms (the window is n buckets exactly)
--   n         buckets in the window
--   value     "c" count; "s<amount x 10^4, integer>" sum; "d<member>" or "d" (no member) distinct
--
-- count/sum, in the group's HASH:
--   <id>       "<head> <floor> <total>": newest bucket number written, first bucket number whose slot
--              was ever written in this run of the ring, running total of buckets head-n..head
--   <id>|<r>   ring slot r = bucket number mod (n + 1): the count or sum of that bucket
--   A query counts buckets cur-n..cur (cur = floor(now / bucket)): every event younger than the
--   window, none older than window + one bucket. Moving the head subtracts the slots that leave.
-- distinct, in its own ZSET scored by last-seen ms; the HASH field <id> holds the bucket number of
--   the last trim (stale members removed and TTL moved once per bucket, not per call). A member counts
--   while last seen > now - window; at most `cap` members are kept (the oldest go first).
-- |exp        the deadline (engine ms) the HASH's TTL was set to: PEXPIRE about once per bucket.
-- Returns one integer per check (sums x 10^4); a retry answers what it answered then.

local now = tonumber(ARGV[1])
local write = ARGV[2] == 'w'
local cap = tonumber(ARGV[4])
local byte, sub, match, format, floor = string.byte, string.sub, string.match, string.format, math.floor
local COUNT, SUM, DISTINCT = 99, 115, 100 -- 'c', 's', 'd'

-- The answers a transaction seen before got, by check id (nil for a new transaction).
local function answersOf(prior)
  if not prior then return nil end
  local answered = {}
  for id, v in string.gmatch(prior, '([^=\n]+)=([^\n]*)\n') do answered[id] = tonumber(v) end
  return answered
end

-- The slot field of bucket number b of a check.
local function slot(c, b)
  return c.id .. '|' .. (b % (c.n + 1))
end

-- Reads a count/sum state "<head> <floor> <total>" and says which slots the call needs: the slot of
-- the current bucket always (its count, or the bucket leaving through it), the other leaving ones
-- only when the head moves more than one bucket (rare for a busy value; a value idle for a whole
-- window starts afresh without reading anything).
local function ringState(c, s, reads)
  if s then
    local head, fl, total = match(s, '^(%-?%d+) (%-?%d+) (%-?%d+)$')
    c.head, c.floor, c.total = tonumber(head), tonumber(fl), tonumber(total)
  end
  if not c.head or c.cur - c.head > c.n then
    c.head, c.floor, c.total, c.fresh = c.cur, c.cur, 0, true
    return
  end
  if c.cur < c.head then -- a replica behind counts into the newest bucket
    c.cur = c.head
    reads[#reads + 1] = slot(c, c.cur)
  end
  for b = c.head + 1, c.cur - 1 do
    if b - c.n - 1 >= c.floor then reads[#reads + 1] = slot(c, b) end
  end
end

-- One count/sum check: moves the head to the current bucket, subtracting the buckets that leave,
-- and adds this transaction. `slots` holds the slot values read for the group.
local function ringCheck(c, slots, set)
  local cur, ring, total = c.cur, c.n + 1, c.total
  local current = 0
  if not c.fresh then
    if cur == c.head then
      current = tonumber(slots[slot(c, cur)]) or 0
    else
      for b = c.head + 1, cur do
        if b - ring >= c.floor then total = total - (tonumber(slots[slot(c, b)]) or 0) end
      end
    end
  end
  local answer = total + c.add
  if write then
    for b = c.head + 1, cur - 1 do -- buckets skipped hold nothing (their slots held buckets now gone)
      set[#set + 1] = slot(c, b)
      set[#set + 1] = 0
    end
    set[#set + 1] = slot(c, cur)
    set[#set + 1] = format('%d', current + c.add)
    set[#set + 1] = c.id
    set[#set + 1] = format('%d %d %d', cur, c.floor, answer)
  end
  return answer
end

-- One distinct check on its ZSET.
local function distinctCheck(c, key, set)
  local since = now - c.window
  local newBucket = not c.trimmed or c.cur > c.trimmed
  if not write then
    local live = redis.call('ZCOUNT', key, '(' .. since, '+inf')
    if c.member then
      local seen = redis.call('ZSCORE', key, c.member)
      if not seen or tonumber(seen) <= since then live = live + 1 end
    end
    if live > cap then live = cap end
    return live
  end
  local added = 0
  if c.member then added = redis.call('ZADD', key, now, c.member) end
  local live = redis.call('ZCOUNT', key, '(' .. since, '+inf')
  if added == 1 and live > cap then
    redis.call('ZREMRANGEBYRANK', key, 0, -(cap + 1)) -- keep the cap members seen last
  end
  if newBucket then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', since)
    set[#set + 1] = c.id
    set[#set + 1] = c.cur
  end
  if newBucket or (added == 1 and live == 1) then
    -- covers every member written until the next trim (at most one bucket away)
    redis.call('PEXPIRE', key, c.window + 2 * c.bucket)
  end
  if live > cap then live = cap end
  return live
end

-- One group: the checks on one dimension value. Returns the next ARGV and KEYS positions.
local function runGroup(a, keyAt, answered, out, marks)
  local hash = KEYS[keyAt]
  keyAt = keyAt + 1
  local k, span = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local checks = {}
  for _ = 1, k do
    local id, bucket, n, value = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3]
    a = a + 4
    local c = {id = id, bucket = bucket, n = n, cur = floor(now / bucket), kind = byte(value, 1), window = bucket * n}
    if c.kind == COUNT then
      c.add = 1
    elseif c.kind == SUM then
      c.add = tonumber(sub(value, 2))
    else
      c.kind = DISTINCT
      c.key = KEYS[keyAt]
      keyAt = keyAt + 1
      if #value > 1 then c.member = sub(value, 2) end
    end
    c.out = #out + 1
    out[c.out] = false
    local prior = answered and answered[id]
    if prior then
      out[c.out] = prior
    else
      checks[#checks + 1] = c
    end
  end
  if #checks == 0 then return a, keyAt end

  -- the states of this group's checks, their current slots and the TTL deadline, in one read
  local fields = {'|exp'}
  for _, c in ipairs(checks) do
    fields[#fields + 1] = c.id
    if c.kind ~= DISTINCT then fields[#fields + 1] = slot(c, c.cur) end
  end
  local values = redis.call('HMGET', hash, unpack(fields))
  local exp = tonumber(values[1]) or 0
  local slots, reads = {}, {}
  local j = 2
  for _, c in ipairs(checks) do
    if c.kind == DISTINCT then
      c.trimmed = tonumber(values[j])
      j = j + 1
    else
      slots[fields[j + 1]] = values[j + 1]
      ringState(c, values[j], reads)
      j = j + 2
    end
  end
  if #reads > 0 then
    local more = redis.call('HMGET', hash, unpack(reads))
    for i, f in ipairs(reads) do slots[f] = more[i] end
  end

  local set = {}
  for _, c in ipairs(checks) do
    local answer
    if c.kind ~= DISTINCT then
      answer = ringCheck(c, slots, set)
    else
      answer = distinctCheck(c, c.key, set)
    end
    out[c.out] = answer
    if write then
      marks[#marks + 1] = c.id .. '=' .. format('%d', answer) .. '\n'
    end
  end

  if write and #set > 0 then
    local need = now + span
    local extend = exp < need
    if extend then
      -- one bucket's slack so a busy hash pays the PEXPIRE about once per bucket; never shortened
      exp = need + floor(span / 10)
      set[#set + 1] = '|exp'
      set[#set + 1] = exp
    end
    redis.call('HSET', hash, unpack(set))
    if extend then redis.call('PEXPIRE', hash, exp - now) end
  end
  return a, keyAt
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
    redis.call('SET', KEYS[1], (prior or '') .. table.concat(marks), 'PX', ARGV[3])
  end
  return out
end

return main()
