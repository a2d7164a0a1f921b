package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A real loopback server: every third answer DEGRADED, answers written in two parts (the loop must
// wait for the rest), every tenth with "Connection: close" (the loop must reopen).
func startServer(t *testing.T) (string, *atomic.Int64, chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	ids := make(chan string, 1000)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					length := 0
					for {
						line, err := r.ReadString('\n')
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
						if len(line) > 16 && line[:16] == "Content-Length: " {
							length, _ = strconv.Atoi(line[16 : len(line)-2])
						}
					}
					body := make([]byte, length)
					if _, err := io.ReadFull(r, body); err != nil {
						return
					}
					i := n.Add(1)
					if j := bytes.Index(body, []byte(`"transaction_id":"`)); j >= 0 {
						rest := body[j+18:]
						ids <- string(rest[:bytes.IndexByte(rest, '"')])
					}
					answer := `{"decision":"APPROVE","engine_mode":"NORMAL","engine_error_code":null}`
					if i%3 == 0 {
						answer = `{"decision":"APPROVE","engine_mode":"DEGRADED","engine_error_code":"VELOCITY_UNAVAILABLE"}`
					}
					closing := ""
					if i%10 == 0 {
						closing = "Connection: close\r\n"
					}
					resp := "HTTP/1.1 200 OK\r\n" + closing + "Content-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer
					c.Write([]byte(resp[:20]))
					time.Sleep(200 * time.Microsecond)
					c.Write([]byte(resp[20:]))
					if closing != "" {
						return
					}
				}
			}(c)
		}
	}()
	return ln.Addr().String(), &n, ids
}

func TestRunAnswersEveryScheduledRequest(t *testing.T) {
	addr, served, _ := startServer(t)
	u, _ := url.Parse("http://" + addr + "/v1/evaluate/auth")
	pool := []template{}
	for _, line := range []string{
		`{"transaction_id":"@ID@","card_hash":"a","timestamp":"2020-01-01T00:00:00.000Z"}`,
		`{"transaction_id":"@ID@","card_hash":"b","timestamp":"2020-01-01T00:00:00.000Z","x":1}`,
	} {
		tpl, err := parseTemplate([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		pool = append(pool, tpl)
	}
	c := config{target: u, rate: 2000, duration: 60 * time.Millisecond, conns: 4, tag: "t", timeout: 5 * time.Second,
		retryRate: 0, seed: 7, clkTck: 100}
	res, err := run(c, pool, map[string]int{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduled != 120 || res.Answered != 120 || res.TransportErrors != 0 || res.Non200 != 0 {
		t.Fatalf("scheduled %d answered %d errors %d non-200 %d", res.Scheduled, res.Answered, res.TransportErrors, res.Non200)
	}
	if served.Load() != 120 {
		t.Fatalf("the server saw %d requests, want 120", served.Load())
	}
	if res.Modes["NORMAL"] != 80 || res.Modes["DEGRADED"] != 40 || res.Codes["DEGRADED/VELOCITY_UNAVAILABLE"] != 40 {
		t.Fatalf("modes %v codes %v", res.Modes, res.Codes)
	}
	if res.LatencyMs["count"] != 120 || res.LatencyMs["p50"] <= 0 {
		t.Fatalf("latency %v", res.LatencyMs)
	}
}

func TestRetriesResendTheSameTransaction(t *testing.T) {
	addr, _, ids := startServer(t)
	u, _ := url.Parse("http://" + addr + "/v1/evaluate/auth")
	tpl, _ := parseTemplate([]byte(`{"transaction_id":"@ID@","timestamp":"2020-01-01T00:00:00.000Z"}`))
	c := config{target: u, rate: 2000, duration: 50 * time.Millisecond, conns: 2, tag: "r", timeout: 5 * time.Second,
		retryRate: 0.5, seed: 3, clkTck: 100}
	res, err := run(c, []template{tpl}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 100 || res.Retries == 0 || res.Retries >= 100 {
		t.Fatalf("answered %d retries %d", res.Answered, res.Retries)
	}
	// A retry carries an id sent before; fresh requests never reuse one.
	distinct := map[string]bool{}
	for i := 0; i < 100; i++ {
		distinct[<-ids] = true
	}
	if uint64(len(distinct)) != 100-res.Retries {
		t.Fatalf("%d distinct transaction ids for %d fresh requests", len(distinct), 100-res.Retries)
	}
}

// A request the server never answers times out: an error, its wait stays in the latency
// histogram, the connection is replaced and the rest of the schedule is answered.
func TestTimeoutIsAnErrorAndKeepsItsLatency(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					length := 0
					for {
						line, err := r.ReadString('\n')
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
						if len(line) > 16 && line[:16] == "Content-Length: " {
							length, _ = strconv.Atoi(line[16 : len(line)-2])
						}
					}
					if _, err := io.ReadFull(r, make([]byte, length)); err != nil {
						return
					}
					if n.Add(1) == 3 {
						continue // never answered
					}
					answer := `{"engine_mode":"NORMAL","engine_error_code":null}`
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer))
				}
			}(c)
		}
	}()
	u, _ := url.Parse("http://" + ln.Addr().String() + "/v1/evaluate/auth")
	tpl, _ := parseTemplate([]byte(`{"transaction_id":"@ID@","timestamp":"2020-01-01T00:00:00.000Z"}`))
	c := config{target: u, rate: 1000, duration: 10 * time.Millisecond, conns: 1, tag: "to",
		timeout: 30 * time.Millisecond, seed: 1, clkTck: 100}
	res, err := run(c, []template{tpl}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 9 || res.TransportErrors != 1 || res.LatencyMs["count"] != 10 {
		t.Fatalf("answered %d errors %d latency count %v", res.Answered, res.TransportErrors, res.LatencyMs["count"])
	}
	if res.LatencyMs["max"] < 30 {
		t.Fatalf("the timed-out request's wait (> 30 ms) is missing: max %v ms", res.LatencyMs["max"])
	}
}
