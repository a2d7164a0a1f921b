-- Vigil velocity: every velocity check of one transaction (in one hash slot) in one atomic call.
--
-- KEYS[1]      idempotency marker of (ruleset key, transaction id): HASH check-id -> answered value
-- KEYS[1 + i]  check i's window: HASH bucket-start-ms -> count|sum (count, sum), or the prefix of
--              its per-bucket HyperLogLog keys "<KEYS[1+i]>:<bucket-start-ms>" (distinct). The
--              HLL keys share KEYS[1+i]'s hash tag, hence its slot.
-- ARGV[1]      now, epoch ms, from the engine's clock (window edges are the caller's, replicas agree)
-- ARGV[2]      "w" count this transaction, "r" read only (simulate/replay: change nothing)
-- ARGV[3]      marker TTL ms (longest window of the call + its bucket)
-- ARGV[4 + 5(i-1) ...] per check: aggregate c|s|d, window ms, bucket ms, value (amount for s,
--              member for d, "" for c), check id (the marker's field)
--
-- A bucket starting at s counts while s > now - window - bucket: every event younger than the
-- window is counted, and none older than window + one bucket (the error bound).
-- Returns one string per check (values as "%.17g", so a retry gets the very same number).

local now = tonumber(ARGV[1])
local write = ARGV[2] == 'w'
local markerTtl = tonumber(ARGV[3])
local marker = KEYS[1]
local n = #KEYS - 1

local ids = {}
for i = 1, n do
  ids[i] = ARGV[3 + 5 * (i - 1) + 5]
end
-- a transaction seen before answers what it answered then, and changes nothing
local prior = redis.call('HMGET', marker, unpack(ids))

local out = {}
local marks = {}
for i = 1, n do
  if prior[i] then
    out[i] = prior[i]
  else
    local a = 3 + 5 * (i - 1)
    local agg = ARGV[a + 1]
    local window = tonumber(ARGV[a + 2])
    local bucket = tonumber(ARGV[a + 3])
    local value = ARGV[a + 4]
    local key = KEYS[i + 1]
    local oldest = now - window - bucket
    local current = now - (now % bucket)
    local ttl = window + 2 * bucket
    local result
    if agg == 'd' then
      local buckets = {}
      local s = current
      while s > oldest do
        buckets[#buckets + 1] = key .. ':' .. string.format('%d', s)
        s = s - bucket
      end
      if value == '' then
        -- the transaction has no member to add (its field is missing): just read
        result = redis.call('PFCOUNT', unpack(buckets))
      elseif write then
        redis.call('PFADD', buckets[1], value)
        redis.call('PEXPIRE', buckets[1], ttl)
        result = redis.call('PFCOUNT', unpack(buckets))
      else
        -- what the count would be with this member, without keeping anything
        local scratch = key .. ':ro'
        redis.call('PFMERGE', scratch, unpack(buckets))
        redis.call('PFADD', scratch, value)
        result = redis.call('PFCOUNT', scratch)
        redis.call('DEL', scratch)
      end
    else
      local total = 0
      local stale = {}
      local fields = redis.call('HGETALL', key)
      for j = 1, #fields, 2 do
        if tonumber(fields[j]) > oldest then
          total = total + tonumber(fields[j + 1])
        else
          stale[#stale + 1] = fields[j]
        end
      end
      if agg == 'c' then
        total = total + 1
      else
        total = total + tonumber(value)
      end
      if write then
        local field = string.format('%d', current)
        if agg == 'c' then
          redis.call('HINCRBY', key, field, 1)
        else
          redis.call('HINCRBYFLOAT', key, field, value)
        end
        if #stale > 0 then
          redis.call('HDEL', key, unpack(stale))
        end
        redis.call('PEXPIRE', key, ttl)
      end
      result = total
    end
    out[i] = string.format('%.17g', result)
    if write then
      marks[#marks + 1] = ids[i]
      marks[#marks + 1] = out[i]
    end
  end
end
if #marks > 0 then
  redis.call('HSET', marker, unpack(marks))
  redis.call('PEXPIRE', marker, markerTtl)
end
return out
