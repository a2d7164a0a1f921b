package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHistogramBucketsHoldTheirValues(t *testing.T) {
	prev := -1
	for _, v := range []uint64{0, 1, 127, 128, 129, 255, 256, 1000, 4999, 5000, 123456, 60_000_000} {
		i := histIndex(v)
		if i < prev {
			t.Fatalf("index of %d (%d) below the previous one (%d)", v, i, prev)
		}
		prev = i
		hi := histHighest(i)
		if hi < v {
			t.Fatalf("bucket %d of %d reports %d, below the value", i, v, hi)
		}
		if v >= histLinear && float64(hi-v) > 0.016*float64(v) {
			t.Fatalf("bucket of %d reports %d: more than 1.6%% above", v, hi)
		}
		if v < histLinear && hi != v {
			t.Fatalf("%d is not exact below %d: %d", v, histLinear, hi)
		}
	}
}

func TestPercentilesOfKnownValues(t *testing.T) {
	var h histogram
	for v := uint64(1); v <= 100; v++ { // 1..100 µs, exact range
		h.record(v)
	}
	for p, want := range map[float64]uint64{50: 50, 99: 99, 99.9: 100, 100: 100, 1: 1} {
		if got := h.percentile(p); got != want {
			t.Errorf("p%v = %d, want %d", p, got, want)
		}
	}
	var other histogram
	other.record(10_000)
	h.merge(&other)
	if h.total != 101 || h.max != 10_000 || h.percentile(100) != 10_000 {
		t.Fatalf("merge: total %d max %d p100 %d", h.total, h.max, h.percentile(100))
	}
	var empty histogram
	if empty.percentile(99) != 0 {
		t.Fatal("an empty histogram has no percentile")
	}
}

func TestScheduleIsExactAndOpenLoop(t *testing.T) {
	s := newSchedule(4000, 2*time.Second)
	if s.total != 8000 {
		t.Fatalf("total %d, want 8000", s.total)
	}
	if s.at(0) != 0 || s.at(4000) != time.Second || s.at(1) != 250*time.Microsecond {
		t.Fatalf("due times: %v %v %v", s.at(0), s.at(1), s.at(4000))
	}
	cases := map[time.Duration]int64{
		-time.Millisecond:      0,
		0:                      1, // request 0 is due at once
		249 * time.Microsecond: 1,
		250 * time.Microsecond: 2,
		time.Second:            4001,
		10 * time.Second:       8000, // never more than the run holds
	}
	for elapsed, want := range cases {
		if got := s.dueBy(elapsed); got != want {
			t.Errorf("dueBy(%v) = %d, want %d", elapsed, got, want)
		}
	}
	// Due counts only grow, one request per 1/rate, whatever the step of the clock.
	var last int64
	for e := time.Duration(0); e < 2*time.Second; e += 37 * time.Microsecond {
		n := s.dueBy(e)
		if n < last {
			t.Fatalf("dueBy went back at %v", e)
		}
		last = n
	}
}

func TestReadResponseContentLengthAndChunked(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 17\r\n\r\n{\"decision\":\"AP\"}" +
		"HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4\r\nabcd\r\n3;x=1\r\nefg\r\n0\r\n\r\n"
	r := bufio.NewReader(strings.NewReader(raw))
	status, body, closing, err := readResponse(r, nil)
	if err != nil || status != 200 || string(body) != `{"decision":"AP"}` || closing {
		t.Fatalf("first: %d %q %v %v", status, body, closing, err)
	}
	status, body, closing, err = readResponse(r, make([]byte, 0, 2))
	if err != nil || status != 503 || string(body) != "abcdefg" || !closing {
		t.Fatalf("second: %d %q %v %v", status, body, closing, err)
	}
	if _, _, _, err := readResponse(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n\r\n")), nil); err == nil {
		t.Fatal("a response without a length must be an error")
	}
	if _, _, _, err := readResponse(bufio.NewReader(strings.NewReader("SSH-2.0\r\n")), nil); err == nil {
		t.Fatal("a non-HTTP status line must be an error")
	}
}

func TestClassifyAnswers(t *testing.T) {
	cases := []struct{ body, mode, code string }{
		{`{"transaction_id":"t","decision":"APPROVE","engine_mode":"NORMAL","engine_error_code":null}`, "NORMAL", ""},
		{`{"decision":"APPROVE","engine_mode":"DEGRADED","engine_error_code":"VELOCITY_UNAVAILABLE"}`, "DEGRADED", "VELOCITY_UNAVAILABLE"},
		{`{"error":"bad_request"}`, "", ""},
	}
	for _, c := range cases {
		mode, code := classify([]byte(c.body))
		if string(mode) != c.mode || string(code) != c.code {
			t.Errorf("%s: %q/%q, want %q/%q", c.body, mode, code, c.mode, c.code)
		}
	}
}

func TestTemplateFillsIdAndTimestamp(t *testing.T) {
	line := []byte(`{"transaction_id":"@ID@","card_hash":"c1","amount":12.5,"timestamp":"2020-01-01T00:00:00.000Z","device_id":"d"}`)
	tpl, err := parseTemplate(line)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 11, 24, 21, 5, 7, 123_000_000, time.UTC)
	req := string(appendRequest(nil, requestHead("/v1/evaluate/auth", "127.0.0.1:8081"), &tpl, []byte("txn-x-0-1"), ts))
	body := `{"transaction_id":"txn-x-0-1","card_hash":"c1","amount":12.5,"timestamp":"2026-11-24T21:05:07.123Z","device_id":"d"}`
	want := "POST /v1/evaluate/auth HTTP/1.1\r\nHost: 127.0.0.1:8081\r\nContent-Type: application/json\r\nContent-Length: " +
		itoa(len(body)) + "\r\n\r\n" + body
	if req != want {
		t.Fatalf("request:\n%q\nwant\n%q", req, want)
	}
	for _, bad := range []string{`{"transaction_id":"x","timestamp":"t"}`, `{"transaction_id":"@ID@"}`} {
		if _, err := parseTemplate([]byte(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func TestParseStatCPUAndWatch(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := []byte("4242 (java (x) y) S 1 4242 4242 0 -1 4194560 1 0 0 0 1500 250 0 0 20 0 40 0 1 2 3")
	got, err := parseStatCPU(stat)
	if err != nil || got != 1750 {
		t.Fatalf("utime+stime = %d, %v; want 1750", got, err)
	}
	w, err := parseWatch("engine:12, redis:34")
	if err != nil || w["engine"] != 12 || w["redis"] != 34 {
		t.Fatalf("watch %v %v", w, err)
	}
	for _, bad := range []string{"engine", "engine:x", ":3", "engine:-1"} {
		if _, err := parseWatch(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestTokenHeadsCarryOneBearerTokenEach(t *testing.T) {
	f := t.TempDir() + "/tokens"
	if err := os.WriteFile(f, []byte("aaa.bbb.ccc\n\n  ddd.eee.fff  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	heads, err := tokenHeads(f, "/v1/evaluate/auth", "127.0.0.1:8081")
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 2 {
		t.Fatalf("heads: %d, want 2", len(heads))
	}
	want := "POST /v1/evaluate/auth HTTP/1.1\r\nHost: 127.0.0.1:8081\r\nAuthorization: Bearer ddd.eee.fff\r\nContent-Type: application/json\r\nContent-Length: "
	if heads[1] != want {
		t.Fatalf("head:\n%q\nwant\n%q", heads[1], want)
	}
	if err := os.WriteFile(f, []byte("\n \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tokenHeads(f, "/", "h"); err == nil {
		t.Fatal("a file without tokens: want an error")
	}
}
