-- Vigil velocity: the functions every velocity script is built from. A script is this file followed by
-- a main part: the code generated for one call plan (VelocityScripts: the plan's check ids, buckets
-- and spans as constants), or the generic velocity.lua, which reads the plan from its arguments
-- (docs/adr/0006-velocity-scripts-per-plan.md). Redis work is O(number of checks): no reading of whole
-- hashes or sets, nothing that grows with a card's history (docs/adr/0005-velocity-running-windows.md).
--
-- ARGV[1]     now, epoch ms, from the engine's clock
-- ARGV[2]     "w" count this transaction, "r" read only (simulate/replay: change nothing)
-- KEYS[1]     idempotency marker of (ruleset key, transaction id): STRING "<id>=<answer>\n..."
--
-- count/sum, in the group's HASH:
--   <id>       "<head> <floor> <total>": newest bucket number written, first bucket number whose slot
--              was ever written in this run of the ring, running total of buckets head-n..head
--   <id>|<r>   ring slot r = bucket number mod (n + 1): the count or sum of that bucket
--   A query counts buckets cur-n..cur (cur = floor(now / bucket)): every event younger than the
--   window, none older than window + one bucket. Moving the head subtracts the slots that leave.
-- distinct, in its own ZSET scored by last-seen ms; the HASH field <id> holds "<bucket of the last
--   trim> <members kept>" (stale members removed and TTL moved once per bucket, not per call). At most
--   `cap` members are kept (the oldest go first).
-- |exp        the deadline (engine ms) the HASH's TTL was set to: PEXPIRE about once per bucket.
-- Returns one integer per check (sums x 10^4); a retry answers what it answered then.


local now = tonumber(ARGV[1])
local write = ARGV[2] == 'w'
local cap -- members kept per distinct check: set by the main part
local match, floor = string.match, math.floor

-- The answers a transaction seen before got, by check id (nil for a new transaction).
local function answersOf(prior)
  if not prior then return nil end
  local answered = {}
  for id, v in string.gmatch(prior, '([^=\n]+)=([^\n]*)\n') do answered[id] = tonumber(v) end
  return answered
end

-- One count/sum check. `state` is "<head> <floor> <total>" (nil when new), `slot` the value of the
-- current bucket's slot. Moves the head to the current bucket, subtracting the buckets that leave
-- (their slots are reused), and adds this transaction. Appends its writes to `set`.
local function ringCheck(hash, id, cur, n, add, state, slot, set)
  local ring = n + 1
  local head, fl, total
  if state then
    head, fl, total = match(state, '^(%-?%d+) (%-?%d+) (%-?%d+)$')
    head, fl, total = tonumber(head), tonumber(fl), tonumber(total)
  end
  local current = 0
  if not head or cur - head > n then
    head, fl, total = cur, cur, 0 -- new, or idle for a whole window: nothing left to count
  elseif cur <= head then
    if cur < head then -- a replica behind counts into the newest bucket
      cur = head
      slot = redis.call('HGET', hash, id .. '|' .. (cur % ring))
    end
    current = tonumber(slot) or 0
  else
    -- the slot of the current bucket held the bucket leaving through it; skipped buckets' slots
    -- held the others that leave (read only when the head jumps, rare for a busy value)
    if cur - ring >= fl then total = total - (tonumber(slot) or 0) end
    if cur - head > 1 then
      local skipped = {}
      for b = head + 1, cur - 1 do skipped[#skipped + 1] = id .. '|' .. (b % ring) end
      local values = redis.call('HMGET', hash, unpack(skipped))
      for i, b in ipairs(values) do
        if head + i - ring >= fl then total = total - (tonumber(b) or 0) end
        if write then
          set[#set + 1] = skipped[i]
          set[#set + 1] = 0
        end
      end
    end
  end
  local answer = total + add
  if write then
    set[#set + 1] = id .. '|' .. (cur % ring)
    set[#set + 1] = current + add
    set[#set + 1] = id
    set[#set + 1] = cur .. ' ' .. fl .. ' ' .. answer
  end
  return answer
end

-- One distinct check on its ZSET. `state` is "<bucket of the last trim> <members kept>": members
-- are counted as they are added and removed, so a call costs one ZADD; stale members leave at the
-- first call of each bucket (ZREMRANGEBYSCORE), so the answer counts members seen within the window
-- plus at most one bucket (the count/sum bound). Read-only calls count exactly (ZCOUNT).
local function distinctCheck(key, id, cur, n, bucket, member, state, set)
  local window = bucket * n
  local since = now - window
  if not write then
    local live = redis.call('ZCOUNT', key, '(' .. since, '+inf')
    if member then
      local seen = redis.call('ZSCORE', key, member)
      if not seen or tonumber(seen) <= since then live = live + 1 end
    end
    if live > cap then live = cap end
    return live
  end
  local trimmed, size
  if state then
    trimmed, size = match(state, '^(%-?%d+) (%d+)$')
    trimmed, size = tonumber(trimmed), tonumber(size)
  end
  local changed, trimmedNow = false, false
  if not trimmed or cur > trimmed then
    if not trimmed or cur - trimmed > n then
      size = 0 -- idle for a whole window: whatever is left (if anything) has left the window
    end
    size = size - redis.call('ZREMRANGEBYSCORE', key, '-inf', since)
    if size < 0 then size = 0 end
    trimmed, changed, trimmedNow = cur, true, true
  end
  local added = member and redis.call('ZADD', key, 'GT', now, member) == 1
  if added then
    size, changed = size + 1, true
    if size > cap then
      size = size - redis.call('ZREMRANGEBYRANK', key, 0, -(cap + 1)) -- keep the cap members seen last
    end
  end
  if trimmedNow or (added and size == 1) then
    -- covers every member written until the next trim (at most one bucket away)
    redis.call('PEXPIRE', key, window + 2 * bucket)
  end
  if changed then
    set[#set + 1] = id
    set[#set + 1] = trimmed .. ' ' .. size
  end
  if size > cap then return cap end
  return size
end

-- Ends one group: writes the fields its checks changed (`set`) with one HSET, and moves the hash's TTL
-- when the deadline it remembers (`exp`, field |exp) is nearer than now + span.
local function writeGroup(hash, exp, span, set)
  if not write or #set == 0 then return end
  exp = tonumber(exp) or 0
  if exp < now + span then
    -- a tenth of the span as slack, so a busy hash pays the PEXPIRE about once per bucket
    exp = now + span + floor(span / 10)
    set[#set + 1] = '|exp'
    set[#set + 1] = exp
    redis.call('HSET', hash, unpack(set))
    redis.call('PEXPIRE', hash, exp - now)
  else
    redis.call('HSET', hash, unpack(set))
  end
end

-- The marker of a transaction seen before (`prior`, answers by id in `answered`) that gets new
-- checks (the ruleset changed since): its lines plus the new ones. `lines` holds "<id>=<answer>\n".
local function remark(marker, prior, lines, ttl)
  if #lines > 0 then
    redis.call('SET', marker, prior .. table.concat(lines), 'PX', ttl)
  end
end
