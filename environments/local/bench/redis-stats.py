# Redis' own view of a bench window, for environments/local/bin/bench-relay.sh: per command, calls and
# usec_per_call (INFO commandstats) and the longest single run (SLOWLOG, which the bench sets to keep
# every command slower than its threshold). Raw RESP, no client library.
#   python3 redis-stats.py <port> reset          CONFIG RESETSTAT + SLOWLOG RESET
#   python3 redis-stats.py <port> report CMD...  one line per command: name calls usec_per_call longest_us
import socket, sys
port, action = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
f = s.makefile("rb")

def call(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    s.sendall(b"".join(out))
    return read()

def read():
    line = f.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:]
    if kind in (b"+", b"-"):
        return rest.decode()
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode("utf-8", "replace")
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [read() for _ in range(n)]
    raise ValueError("unexpected reply %r" % line)

if action == "reset":
    call("CONFIG", "RESETSTAT")
    call("SLOWLOG", "RESET")
    sys.exit(0)

stats = {}
for line in call("INFO", "commandstats").splitlines():
    # cmdstat_xack:calls=12,usec=345,usec_per_call=28.75,...
    if line.startswith("cmdstat_"):
        name, fields = line[len("cmdstat_"):].split(":", 1)
        kv = dict(p.split("=", 1) for p in fields.split(","))
        stats[name] = (int(kv["calls"]), float(kv["usec_per_call"]))
longest = {}
for entry in call("SLOWLOG", "GET", "-1"):
    name, micros = entry[3][0].lower(), entry[2]
    longest[name] = max(longest.get(name, 0), micros)
for name in sys.argv[3:]:
    calls, per_call = stats.get(name, (0, 0.0))
    print(name, calls, "%.1f" % per_call, longest.get(name, 0))
