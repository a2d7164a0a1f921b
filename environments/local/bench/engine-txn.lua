-- wrk script for bench-engine-cpu.sh: random card transactions (engine contract §2) posted to the
-- path given on the command line. Cards are drawn uniformly from CARDS (default 100,000) with stable
-- per-card attributes, so velocity windows see repeat cards; every transaction_id is unique.
local cards = tonumber(os.getenv("CARDS") or "100000")
local mccs = {"5411", "5812", "5541", "5999", "5311", "4111", "5732", "4511", "7011", "7995", "6051"}
local countries = {"US", "US", "US", "GB", "DE", "FR", "IN", "BR", "CA", "NG", "SG", "JP"}
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("thread_id", thread_id)
  thread_id = thread_id + 1
end

function init(args)
  math.randomseed(os.time() * 1000 + (thread_id or 0))
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local card = math.random(0, cards - 1)
  local r = math.random()
  local amount
  if r < 0.80 then amount = 100 + math.random() * 4900
  elseif r < 0.95 then amount = 5000 + math.random() * 45000
  else amount = 50000 + math.random() * 450000 end
  local body = string.format(
    '{"transaction_id":"cpu-%d-%d-%d","card_hash":"card-%06d","merchant_id":"m-%d",' ..
    '"device_id":"dev-%d","email":"u%d@example.com","ip_address":"10.%d.%d.%d",' ..
    '"amount":%.2f,"currency":"USD","merchant_category_code":"%s","country_code":"%s",' ..
    '"card_present":%s,"timestamp":"2026-11-21T12:00:00Z"}',
    thread_id or 0, counter, math.random(0, 999999), card, math.random(1, 5000),
    card % 50000, card, card % 200, math.random(0, 255), card % 250, amount,
    mccs[math.random(#mccs)], countries[(card % #countries) + 1],
    (card % 3 == 0) and "false" or "true")
  return wrk.format(nil, nil, nil, body)
end
