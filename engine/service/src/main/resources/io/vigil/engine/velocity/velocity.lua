-- Vigil velocity: every velocity check of one transaction (in one hash slot) in one atomic call,
-- with a small, fixed number of Redis commands whatever the number of checks (docs/adr/0004).
--
-- KEYS[1]      idempotency marker of (ruleset key, transaction id): STRING "<id>=<value>\n..."
-- KEYS[1 + h]  velocity HASH of one (dimension value, ruleset key), h = 1..#KEYS-1. Fields:
--                <id>|<bucket-start-ms>  -> count or sum of that bucket       (count, sum)
--                <id>|<member>           -> last time (ms) the member was seen (distinct)
--                |exp                    -> the engine-clock deadline the hash's TTL was set to
--              where <id> = <rule id>:<window>s:<aggregate> is the check id (also its marker field).
-- ARGV[1]      now, epoch ms, from the engine's clock (window edges are the caller's, replicas agree)
-- ARGV[2]      "w" count this transaction, "r" read only (simulate/replay: change nothing)
-- ARGV[3]      marker TTL ms (longest window of the call + its bucket)
-- ARGV[4]      distinct cap: members kept per distinct check (the one seen longest ago is evicted)
-- ARGV[5 + 7(i-1) ...] per check i: hash index h, aggregate c|s|d, window ms, bucket ms, id,
--              field (count/sum: "<id>|<current bucket start>"; distinct: "<id>|<member>", or ""
--              when the transaction has no member), amount (sum) or ""
--
-- count/sum: a bucket starting at s counts while s > now - window - bucket: every event younger than
-- the window is counted, none older than window + one bucket (the error bound).
-- distinct: exact; a member counts while last seen > now - window; at most cap members are kept, so
-- the answer saturates at cap.
-- Commands: GET marker; per hash HGETALL, then (writing) one HSET, HDEL only when fields went stale,
-- PEXPIRE only when the hash's deadline must move (about once per bucket); SET marker. A retry
-- answered entirely by its marker costs the GET alone.
-- Returns one value per check: counts as integers, sums as "%.17g" strings, retries as answered then.
-- Hot path: string functions are locals, numbers go to Redis as numbers (formatted in C), and every
-- per-check table is allocated once per call, not per hash.

local find, sub, gmatch = string.find, string.sub, string.gmatch
local now = tonumber(ARGV[1])
local write = ARGV[2] == 'w'
local cap = tonumber(ARGV[4])
local n = (#ARGV - 4) / 7

local out = {}
local answered
local prior = redis.call('GET', KEYS[1])
if prior then
  -- a transaction seen before answers what it answered then, and changes nothing
  answered = {}
  for k, v in gmatch(prior, '([^=\n]+)=([^\n]*)\n') do
    answered[k] = v
  end
end

-- the checks still to answer, grouped by hash
local agg, win, bkt, id, field, amount = {}, {}, {}, {}, {}, {}
local groups = {}
for i = 1, n do
  local a = 4 + 7 * (i - 1)
  local v = answered and answered[ARGV[a + 5]]
  if v then
    out[i] = v
  else
    local h = tonumber(ARGV[a + 1])
    agg[i] = ARGV[a + 2]
    win[i] = tonumber(ARGV[a + 3])
    bkt[i] = tonumber(ARGV[a + 4])
    id[i] = ARGV[a + 5]
    field[i] = ARGV[a + 6]
    amount[i] = ARGV[a + 7]
    local g = groups[h]
    if not g then
      g = {}
      groups[h] = g
    end
    g[#g + 1] = i
  end
end

local total, current, oldest, oldestSeen = {}, {}, {}, {}
local marks = {}
for h = 1, #KEYS - 1 do
  local g = groups[h]
  if g then
    local key = KEYS[h + 1]
    -- a duplicate id (the same rule asked twice) answers like its first
    local byId, todo, alias = {}, {}, nil
    local maxWindow, maxBucket = 0, 0
    for _, i in ipairs(g) do
      local first = byId[id[i]]
      if first then
        alias = alias or {}
        alias[i] = first
      else
        byId[id[i]] = i
        todo[#todo + 1] = i
        total[i] = 0
        if win[i] > maxWindow then maxWindow = win[i] end
        if bkt[i] > maxBucket then maxBucket = bkt[i] end
      end
    end

    local fields = redis.call('HGETALL', key)
    local stale = {}
    local exp = 0
    local otherWindow
    for j = 1, #fields, 2 do
      local f = fields[j]
      local bar = find(f, '|', 1, true)
      if bar == 1 then
        if f == '|exp' then exp = tonumber(fields[j + 1]) end
      elseif bar then
        local cid = sub(f, 1, bar - 1)
        local i = byId[cid]
        if i then
          if agg[i] == 'd' then
            if f == field[i] then
              -- this transaction's own member: counted below, whenever it was last seen
            else
              local seen = tonumber(fields[j + 1])
              if seen > now - win[i] then
                total[i] = total[i] + 1
                if not oldestSeen[i] or seen < oldestSeen[i] then
                  oldestSeen[i] = seen
                  oldest[i] = f
                end
              else
                stale[#stale + 1] = f
              end
            end
          elseif f == field[i] then
            local v = tonumber(fields[j + 1])
            current[i] = v
            total[i] = total[i] + v
          else
            local s = tonumber(sub(f, bar + 1))
            if s > now - win[i] - bkt[i] then
              total[i] = total[i] + tonumber(fields[j + 1])
            else
              stale[#stale + 1] = f
            end
          end
        else
          -- a field of a check this call does not ask (another rule, another ruleset version):
          -- dropped once surely out of its window (a bucket is never longer than its window)
          otherWindow = otherWindow or {}
          local w = otherWindow[cid]
          if not w then
            w = tonumber(string.match(cid, ':(%d+)s:%a+$') or '0') * 1000
            otherWindow[cid] = w
          end
          if w == 0 then
            -- not a field this script writes: left alone
          elseif sub(cid, -9) == ':distinct' then
            if tonumber(fields[j + 1]) <= now - w then stale[#stale + 1] = f end
          else
            local s = tonumber(sub(f, bar + 1))
            if s and s <= now - 2 * w then stale[#stale + 1] = f end
          end
        end
      end
    end

    local set = {}
    for _, i in ipairs(todo) do
      local a = agg[i]
      if a == 'd' then
        -- the other live members, plus this transaction's (new, or seen before inside the window)
        local live = total[i]
        if field[i] ~= '' then
          live = live + 1
          if write then
            set[#set + 1] = field[i]
            set[#set + 1] = now
            local over = live - cap
            if over == 1 then
              stale[#stale + 1] = oldest[i]
            elseif over > 1 then
              -- the cap was lowered: keep the cap's newest (rare, so sort here)
              local members = {}
              local prefix = id[i] .. '|'
              for j = 1, #fields, 2 do
                local f = fields[j]
                if sub(f, 1, #prefix) == prefix and f ~= field[i] then
                  local seen = tonumber(fields[j + 1])
                  if seen > now - win[i] then members[#members + 1] = {seen, f} end
                end
              end
              table.sort(members, function(x, y) return x[1] < y[1] end)
              for k = 1, over do stale[#stale + 1] = members[k][2] end
            end
          end
        end
        if live > cap then live = cap end
        out[i] = live
      elseif a == 'c' then
        out[i] = total[i] + 1
        if write then
          set[#set + 1] = field[i]
          set[#set + 1] = (current[i] or 0) + 1
        end
      else
        local add = tonumber(amount[i])
        out[i] = string.format('%.17g', total[i] + add)
        if write then
          set[#set + 1] = field[i]
          set[#set + 1] = (current[i] or 0) + add
        end
      end
      if write then
        marks[#marks + 1] = id[i]
        marks[#marks + 1] = '='
        marks[#marks + 1] = out[i]
        marks[#marks + 1] = '\n'
      end
    end
    if alias then
      for i, first in pairs(alias) do out[i] = out[first] end
    end

    if write then
      -- deleting before setting: a member listed as stale and seen again is set again below
      for k = 1, #stale, 1000 do
        redis.call('HDEL', key, unpack(stale, k, math.min(k + 999, #stale)))
      end
      if #set > 0 then
        -- the TTL covers every field written now (window + bucket); moved one bucket further than
        -- needed so a busy hash pays the PEXPIRE about once per bucket, and never shortened
        local need = now + maxWindow + maxBucket
        local extend = exp < need
        if extend then
          exp = need + maxBucket
          set[#set + 1] = '|exp'
          set[#set + 1] = exp
        end
        redis.call('HSET', key, unpack(set))
        if extend then
          redis.call('PEXPIRE', key, exp - now)
        end
      end
    end
  end
end

if #marks > 0 then
  redis.call('SET', KEYS[1], (prior or '') .. table.concat(marks), 'PX', ARGV[3])
end
return out
