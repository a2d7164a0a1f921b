// vigil-load: an open-loop, constant-rate HTTP load generator for the rate ladder of `make bench`
// (docs/performance.md, "The rate ladder"). Requests follow a fixed schedule (request i due at
// start + i/rate) whatever the server does; latency is measured from the due time, so queueing in
// the server or in the generator is counted (no coordinated omission). Bodies come from the traffic
// generator's pool (loadtests/wrk/pool.js); each request gets a unique transaction_id and the current
// timestamp; a share of requests resend a recent request verbatim (a retry).
//
// It reports, as JSON: the achieved rate, latency percentiles, answers by engine_mode and
// engine_error_code, its own CPU per request (getrusage) and the CPU of the processes it is told
// to watch (/proc/<pid>/stat) over the same window.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	target    *url.URL
	pool      string
	rate      float64
	duration  time.Duration
	conns     int
	tag       string
	out       string
	watch     string
	settle    time.Duration
	timeout   time.Duration
	retryRate float64
	seed      uint64
	clkTck    int
	tokens    string
}

// worker holds the counts of a run.
type worker struct {
	hist    histogram // latency from the due time
	wait    histogram // due time -> written (the generator's own queueing)
	ok      uint64
	non200  uint64
	errors  uint64
	retries uint64
	modes   map[string]uint64
	codes   map[string]uint64
	last    time.Time // time of the last answer
	inStep  uint64    // answers received before the step's end (the achieved rate)
}

type result struct {
	Tag             string             `json:"tag"`
	RateOffered     float64            `json:"rate_offered"`
	DurationS       float64            `json:"duration_s"`
	Scheduled       int64              `json:"scheduled"`
	Answered        uint64             `json:"answered"`
	Non200          uint64             `json:"non200"`
	TransportErrors uint64             `json:"transport_errors"`
	Retries         uint64             `json:"retries"`
	AchievedRate    float64            `json:"achieved_rate"`
	LatencyMs       map[string]float64 `json:"latency_ms"`
	SendWaitMs      map[string]float64 `json:"send_wait_ms"`
	Modes           map[string]uint64  `json:"modes"`
	Codes           map[string]uint64  `json:"codes"`
	GeneratorCPUUs  float64            `json:"generator_cpu_us"`
	GeneratorUsReq  float64            `json:"generator_cpu_us_per_request"`
	WindowS         float64            `json:"window_s"`
	ProcessCPUUs    map[string]float64 `json:"process_cpu_us"`
	Conns           int                `json:"conns"`
	GoMaxProcs      int                `json:"gomaxprocs"`
}

func main() {
	var c config
	var target string
	flag.StringVar(&target, "url", "http://127.0.0.1:8081/v1/evaluate/auth", "where to POST")
	flag.StringVar(&c.pool, "pool", "", "request bodies, one a line, transaction_id as @ID@ (loadtests/wrk/pool.js)")
	flag.Float64Var(&c.rate, "rate", 1000, "requests per second")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "how long to send")
	flag.IntVar(&c.conns, "conns", 128, "keep-alive connections (each carries one request at a time)")
	flag.StringVar(&c.tag, "tag", "", "transaction_id prefix (unique per run)")
	flag.StringVar(&c.out, "out", "", "write the result JSON here (default: stdout only)")
	flag.StringVar(&c.watch, "watch", "", "name:pid,... whose CPU (/proc/<pid>/stat) to report over the window")
	flag.DurationVar(&c.settle, "settle", 0, "after the last answer, wait this long before reading the watched CPU (durable work still in flight)")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Second, "per-request timeout (an error, the connection is reopened)")
	flag.Float64Var(&c.retryRate, "retry-rate", 0.01, "share of requests that resend a recent request verbatim")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed (pool draw, retries)")
	flag.IntVar(&c.clkTck, "clk-tck", 100, "clock ticks per second of /proc/<pid>/stat (getconf CLK_TCK)")
	flag.StringVar(&c.tokens, "tokens", "", "bearer tokens, one a line: each request carries one drawn at random (a few hundred callers reusing theirs)")
	procs := flag.Int("procs", 1, "GOMAXPROCS: one thread is enough for 10,000/s and costs the least")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fatalf("-url must be http://host:port/path, was %q", target)
	}
	c.target = u
	if c.pool == "" || c.rate <= 0 || c.duration <= 0 || c.conns <= 0 {
		fatalf("-pool, a positive -rate, -duration and -conns are required")
	}
	if c.tag == "" {
		c.tag = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	watch, err := parseWatch(c.watch)
	if err != nil {
		fatalf("%v", err)
	}
	pool, err := loadPool(c.pool)
	if err != nil {
		fatalf("%v", err)
	}
	res, err := run(c, pool, watch)
	if err != nil {
		fatalf("%v", err)
	}
	res.GoMaxProcs = *procs
	b, _ := json.Marshal(res)
	if c.out != "" {
		if err := os.WriteFile(c.out, b, 0o644); err != nil {
			fatalf("%v", err)
		}
	}
	fmt.Printf("vigil-load %s: %.0f/s offered, %.0f/s answered, p50 %.2f p99 %.2f p99.9 %.2f ms, NORMAL %s, errors %d, generator %.1f µs/request\n",
		res.Tag, res.RateOffered, res.AchievedRate, res.LatencyMs["p50"], res.LatencyMs["p99"], res.LatencyMs["p999"],
		share(res.Modes["NORMAL"], res.Answered), res.TransportErrors+res.Non200, res.GeneratorUsReq)
}

func share(n, of uint64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(of))
}

func fatalf(f string, a ...any) {
	fmt.Fprintf(os.Stderr, "vigil-load: "+f+"\n", a...)
	os.Exit(2)
}

func run(c config, pool []template, watch map[string]int) (*result, error) {
	addr, err := resolve(c.target.Host)
	if err != nil {
		return nil, err
	}
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(epfd)
	s := newSchedule(c.rate, c.duration)
	w := &worker{modes: map[string]uint64{}, codes: map[string]uint64{}}
	heads, err := tokenHeads(c.tokens, c.target.RequestURI(), c.target.Host)
	if err != nil {
		return nil, err
	}
	l := &loop{c: c, s: s, epfd: epfd, pool: pool, head: requestHead(c.target.RequestURI(), c.target.Host), heads: heads,
		rng: rand.New(rand.NewPCG(c.seed, 1)), prefix: []byte("txn-" + c.tag + "-"),
		recent: make([][]byte, 64), parser: bufio.NewReaderSize(nil, 16<<10), w: w, addr: addr}
	for i := 0; i < c.conns; i++ {
		cn, err := l.open()
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", c.target.Host, err)
		}
		l.conns = append(l.conns, cn)
		l.idle = append(l.idle, cn)
	}

	cpu0 := selfCPU()
	procs0 := readCPU(watch)
	l.t0 = time.Now()
	l.run()
	cpu1 := selfCPU()

	res := &result{Tag: c.tag, RateOffered: c.rate, DurationS: c.duration.Seconds(), Scheduled: s.total,
		Modes: w.modes, Codes: w.codes, Conns: c.conns, Answered: w.ok, Non200: w.non200,
		TransportErrors: w.errors, Retries: w.retries}
	// Achieved: answers received while the step was sending, per second. A server that keeps up
	// reaches the offered rate less the last few requests in flight; one that falls behind shows its
	// own rate, not the backlog it clears after the step.
	res.AchievedRate = round(float64(w.inStep)/c.duration.Seconds(), 1)
	res.LatencyMs = summary(&w.hist)
	res.SendWaitMs = summary(&w.wait)
	res.GeneratorCPUUs = float64(cpu1 - cpu0)
	if sent := res.Answered + res.Non200 + res.TransportErrors; sent > 0 {
		res.GeneratorUsReq = round(res.GeneratorCPUUs/float64(sent), 2)
	}
	if c.settle > 0 {
		time.Sleep(c.settle)
	}
	procs1 := readCPU(watch)
	res.WindowS = round(time.Since(l.t0).Seconds(), 3)
	res.ProcessCPUUs = map[string]float64{}
	for name, a := range procs0 {
		if b, ok := procs1[name]; ok && b >= a {
			res.ProcessCPUUs[name] = float64(b-a) * 1e6 / float64(c.clkTck)
		}
	}
	res.ProcessCPUUs["generator"] = res.GeneratorCPUUs
	return res, nil
}

func summary(h *histogram) map[string]float64 {
	ms := func(us uint64) float64 { return round(float64(us)/1000, 3) }
	return map[string]float64{
		"p50": ms(h.percentile(50)), "p90": ms(h.percentile(90)), "p99": ms(h.percentile(99)),
		"p999": ms(h.percentile(99.9)), "max": ms(h.max), "count": float64(h.total),
	}
}

func round(v float64, nd int) float64 {
	p := 1.0
	for i := 0; i < nd; i++ {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

func parseWatch(s string) (map[string]int, error) {
	m := map[string]int{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, pid, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(pid)
		if !ok || name == "" || err != nil || n <= 0 {
			return nil, fmt.Errorf("-watch: expected name:pid, was %q", part)
		}
		m[name] = n
	}
	return m, nil
}

// readCPU returns utime+stime (clock ticks) of each watched process that still exists.
func readCPU(watch map[string]int) map[string]uint64 {
	out := map[string]uint64{}
	for name, pid := range watch {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		if t, err := parseStatCPU(b); err == nil {
			out[name] = t
		}
	}
	return out
}

// parseStatCPU reads utime + stime (fields 14 and 15) of a /proc/<pid>/stat line; the command name
// (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
func parseStatCPU(stat []byte) (uint64, error) {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("bad stat line")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("bad stat line")
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad stat line")
	}
	return u + st, nil
}

// selfCPU is this process' user + system CPU in microseconds.
func selfCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec
}
