-- Vigil velocity: the functions every velocity script is built from. A script is this file followed by
-- a main part: the code generated for one call plan (VelocityScripts: the plan's check ids, buckets
-- and spans as constants), or the generic velocity.lua, which reads the plan from its arguments
-- (docs/adr/0006-velocity-scripts-per-plan.md). Redis work is O(number of checks): no reading of whole
-- hashes or sets, nothing that grows with a card's history (docs/adr/0005-velocity-running-windows.md).
--
-- ARGV[1]     now, epoch ms, from the engine's clock
-- ARGV[2]     "w" count this transaction, "r" read only (simulate/replay: change nothing)
-- KEYS[1]     idempotency marker of (ruleset key, transaction id): STRING, byte 1 then per check
--             answered its short id (8 bytes) and its answer (big-endian double)
--
-- Numbers in Redis are packed big-endian doubles (struct.pack): parsing and formatting decimal text
-- cost more Redis CPU than all the commands of a call (docs/adr/0006-velocity-scripts-per-plan.md).
-- count/sum, in the group's HASH, one field per check:
--   <id>       the ring: head (newest bucket number written), running total of buckets head-n..head,
--              then n+1 slots, slot b mod (n+1) holding bucket b's count or sum (8 * (n+3) bytes)
--   A query counts buckets cur-n..cur (cur = floor(now / bucket)): every event younger than the
--   window, none older than window + one bucket. Moving the head subtracts the slots that leave.
-- distinct, in its own ZSET scored by last-seen ms; the HASH field <id> holds the bucket of the last
--   trim and the members kept (16 bytes; stale members removed and TTL moved once per bucket, not per
--   call). At most `cap` members are kept (the oldest go first).
-- |exp        the deadline (engine ms) the HASH's TTL was set to: PEXPIRE about once per bucket.
-- A field of another length (an older layout, another buckets-per-window) starts afresh.
-- Returns the answers as one string in the marker's format (byte 1, then per check its id and its answer,
-- sums x 10^4): one bulk reply costs Redis less than an array of integers, and a new transaction's
-- reply is its marker (docs/adr/0015-velocity-script-cost.md). A retry answers what it answered then.
--
-- Numbers from ARGV and |exp are read by arithmetic coercion (`+ 0`), not tonumber(): tonumber parses
-- the text twice (lua_isnumber, then lua_tonumber), and the strtod of a 16-digit number is ~600
-- instructions. Both are always written as numbers (the engine, writeFields).

local now = ARGV[1] + 0
local write = ARGV[2] == 'w'
-- members kept per distinct check, and the rank (text) from which ZREMRANGEBYRANK evicts beyond it:
-- set by the main part
local cap, capRank
local floor, rep, byte, sub = math.floor, string.rep, string.byte, string.sub
local pack, unpackBytes = struct.pack, struct.unpack

-- The answers a transaction seen before got, by check id (nil for a new transaction, or a marker
-- of an older layout: its transaction was counted in counters this layout does not read).
local function answersOf(prior)
  if not prior or byte(prior, 1) ~= 1 or (#prior - 1) % 16 ~= 0 then return nil end
  local k = (#prior - 1) / 16
  local v = {unpackBytes('>' .. rep('c8d', k), prior, 2)}
  local answered = {}
  for i = 1, 2 * k, 2 do answered[v[i]] = v[i + 1] end
  return answered
end

-- a zero slot, as a constant (no pack per call)
local ZERO = '\0\0\0\0\0\0\0\0'

-- One count/sum check. `state` is its packed ring (nil when new): head and running total (16 bytes),
-- then slot r (0..n) at byte 17 + 8r. Moves the head to the current bucket, subtracting the buckets
-- that leave (their slots are reused, zeroed), and adds this transaction. Returns the answer and,
-- when counting, the ring's new state: built by one pack (one new string besides the pieces it copies),
-- only the slots it touches unpacked, the rest of the ring copied as bytes (docs/adr/0026-velocity-redis-work-per-call.md).
local function ring(cur, n, add, state)
  local slots = n + 1
  local head, total
  if state and #state == 8 * (slots + 2) then head, total = unpackBytes('>dd', state) end
  local moved -- buckets the head moves (nil: a new ring)
  if not head or cur - head > n then
    total = 0 -- new, or idle for a whole window: nothing left to count
  elseif cur <= head then
    cur, moved = head, 0 -- the same bucket; a replica behind counts into the newest bucket
  else
    moved = cur - head
    for b = head + 1, cur do total = total - unpackBytes('>d', state, 17 + 8 * (b % slots)) end
  end
  local answer = total + add
  if not write then return answer end
  local r = cur % slots
  local at = 17 + 8 * r
  -- 'c0' packs a whole string argument: the pieces go into the state without packing the numbers
  -- apart and concatenating (two fewer Lua strings to create and collect per ring)
  if not moved then
    return answer, pack('>ddc0dc0', cur, answer, rep(ZERO, r), add, rep(ZERO, slots - r - 1))
  elseif moved == 0 then
    return answer, pack('>ddc0dc0', cur, answer, sub(state, 17, at - 1), unpackBytes('>d', state, at) + add,
        sub(state, at + 8))
  elseif moved == 1 then -- the most frequent move (a busy value's short windows): slot r leaves, gets this transaction
    return answer, pack('>ddc0dc0', cur, answer, sub(state, 17, at - 1), add, sub(state, at + 8))
  elseif r - moved + 1 >= 0 then -- slots r-moved+1 .. r leave: zero them, r gets this transaction
    return answer, pack('>ddc0c0dc0', cur, answer, sub(state, 17, at - 8 * moved + 7), rep(ZERO, moved - 1),
        add, sub(state, at + 8))
  end
  -- they wrap around the ring's end
  local tail = moved - r - 1
  return answer, pack('>ddc0dc0c0', cur, answer, rep(ZERO, r), add,
      sub(state, at + 8, 16 + 8 * (slots - tail)), rep(ZERO, tail))
end

-- One distinct check on its ZSET. `state` packs the bucket of the last trim and the members kept: members
-- are counted as they are added and removed, so a call costs one ZADD; stale members leave at the
-- first call of each bucket (ZREMRANGEBYSCORE), so the answer counts members seen within the window
-- plus at most one bucket (the count/sum bound). Read-only calls count exactly (ZCOUNT).
-- Returns the answer and, when counting, the state to keep (`state` itself when unchanged).
local function distinct(key, cur, n, bucket, member, state)
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
  if state and #state == 16 then trimmed, size = unpackBytes('>dd', state) end
  local changed, trimmedNow = false, false
  if not trimmed or cur > trimmed then
    if not trimmed or cur - trimmed > n then
      size = 0 -- idle for a whole window: whatever is left (if anything) has left the window
    end
    size = size - redis.call('ZREMRANGEBYSCORE', key, '-inf', since)
    if size < 0 then size = 0 end
    trimmed, changed, trimmedNow = cur, true, true
  end
  -- now as the engine sent it (ARGV[1]): a Lua number argument is printed with %.17g on every call
  local added = member and redis.call('ZADD', key, 'GT', ARGV[1], member) == 1
  if added then
    size, changed = size + 1, true
    if size > cap then
      size = size - redis.call('ZREMRANGEBYRANK', key, '0', capRank) -- keep the cap members seen last
    end
  end
  if trimmedNow or (added and size == 1) then
    -- covers every member written until the next trim (at most one bucket away)
    redis.call('PEXPIRE', key, window + 2 * bucket)
  end
  if changed then state = pack('>dd', trimmed, size) end
  if size > cap then return cap, state end
  return size, state
end

-- Writes one group's fields (`...`: field, value, ...) with one HSET, and moves the hash's TTL when
-- the deadline it remembers (`exp`, field |exp) is nearer than now + span. Generated scripts pass
-- their fields directly: no table per group.
local function writeFields(hash, exp, span, ...)
  exp = exp and exp + 0 or 0
  if exp < now + span then
    -- a tenth of the span as slack, so a busy hash pays the PEXPIRE about once per bucket
    exp = now + span + floor(span / 10)
    redis.call('HSET', hash, '|exp', exp, ...)
    redis.call('PEXPIRE', hash, exp - now)
  else
    redis.call('HSET', hash, ...)
  end
end
