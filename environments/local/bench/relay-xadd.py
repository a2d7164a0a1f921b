# Fixed-rate XADD of engine-shaped decision events (~1.3 KB, the outbox's fields event_id, key, event)
# into a Redis stream, for environments/local/bin/bench-relay.sh: raw RESP, pipelined every 10 ms, so
# the generator costs little and needs no Redis client library.
#   python3 relay-xadd.py <redis port> <events/s> <seconds> [stream]   prints the number of entries written
# BENCH_RELAY_EVENT_BYTES=2900 grows each event to about that size with velocity results, as CARD_AUTH
# v2's ten velocity checks make the engine's events (~2.9 KB); unset or 0: ~0.8 KB as before.
import os, socket, sys, time, uuid, random
port, rate, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
stream = sys.argv[4] if len(sys.argv) > 4 else "vigil:decisions"
s = socket.create_connection(("127.0.0.1", port))
def cmd(*a):
    out = [b"*%d\r\n" % len(a)]
    for x in a:
        x = x if isinstance(x, bytes) else str(x).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(x), x))
    return b"".join(out)
TPL = ('{"event_id":"%s","event_version":1,"transaction_id":"%s","card_hash":"%s","occurred_at":"2026-01-01T10:00:00Z",'
 '"received_at":"2026-01-01T10:00:00Z","produced_at":"2026-01-01T10:00:00Z","evaluation_type":"AUTH",'
 '"transaction":{"transaction_id":"%s","card_hash":"%s","amount":120.5,"currency":"EUR","merchant_category_code":"5411",'
 '"billing_address":{"city":"Lyon","country":"FR"},"custom_fields":{"channel":"app"}},'
 '"decision":"APPROVE","engine_mode":"NORMAL","engine_error_code":null,"ruleset_key":"CARD_AUTH","ruleset_version":3,'
 '"rule_id":null,"reason_code":null,"matched_rules":[],"velocity_results":[%s],'
 '"processing_time_us":412,"timings_us":{"parse":11,"evaluation":23,"velocity":310},"engine_instance":"bench"}')
VELOCITY = ('{"rule_id":"card-velocity-%d","dimension":"card_hash","dimension_value":"%%s","window_seconds":300,'
            '"aggregate":"count","value":3.0,"threshold":5.0,"exceeded":false,"available":true}')
target = int(os.environ.get("BENCH_RELAY_EVENT_BYTES") or 0)
velocity = []
while len(TPL) + 36 * 5 + sum(len(v) + 12 for v in velocity) < target:
    velocity.append(VELOCITY % len(velocity))
VELOCITY_TPL = ",".join(velocity)
start = time.monotonic(); sent = 0; tick = 0.01
while True:
    now = time.monotonic() - start
    if now >= secs: break
    due = int(now * rate) - sent
    if due > 0:
        buf = []
        for _ in range(due):
            eid = str(uuid.uuid4()); card = "card-%d" % random.randrange(100000)
            buf.append(cmd("XADD", stream, "MAXLEN", "~", 1000000, "*", "event_id", eid, "key", card,
                           "event", TPL % (eid, "txn-" + eid, card, "txn-" + eid, card, VELOCITY_TPL.replace("%s", card))))
        s.sendall(b"".join(buf)); sent += due
        # drain replies
        s.setblocking(False)
        try:
            while s.recv(65536): pass
        except BlockingIOError: pass
        s.setblocking(True)
    time.sleep(tick)
print(sent)
