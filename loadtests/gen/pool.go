package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// A request body of the pool (loadtests/wrk/pool.js: the k6 traffic generator's transactions, Zipf
// cards over 100,000 by default), split around the two values set per request: the
// transaction_id (the pool has "@ID@") and the timestamp (now, so velocity windows see live traffic).
type template struct {
	pre, mid, post []byte // pre + id + mid + timestamp + post
}

const tsLayout = "2006-01-02T15:04:05.000Z"

var (
	idMarker = []byte("@ID@")
	tsKey    = []byte(`"timestamp":"`)
)

func parseTemplate(line []byte) (template, error) {
	i := bytes.Index(line, idMarker)
	if i < 0 {
		return template{}, fmt.Errorf("no @ID@ in %.60q", line)
	}
	rest := line[i+len(idMarker):]
	j := bytes.Index(rest, tsKey)
	if j < 0 {
		return template{}, fmt.Errorf("no timestamp after the transaction_id in %.60q", line)
	}
	j += len(tsKey)
	k := bytes.IndexByte(rest[j:], '"')
	if k < 0 {
		return template{}, fmt.Errorf("unterminated timestamp in %.60q", line)
	}
	return template{
		pre:  append([]byte(nil), line[:i]...),
		mid:  append([]byte(nil), rest[:j]...),
		post: append([]byte(nil), rest[j+k:]...),
	}, nil
}

func loadPool(path string) ([]template, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pool []template
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		t, err := parseTemplate(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		pool = append(pool, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("%s: no request bodies", path)
	}
	return pool, nil
}

// appendRequest appends a complete HTTP/1.1 POST of t, with id and ts filled in, to dst.
func appendRequest(dst []byte, head string, t *template, id []byte, ts time.Time) []byte {
	n := len(t.pre) + len(id) + len(t.mid) + len(tsLayout) + len(t.post)
	dst = append(dst, head...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, "\r\n\r\n"...)
	dst = append(dst, t.pre...)
	dst = append(dst, id...)
	dst = append(dst, t.mid...)
	dst = ts.UTC().AppendFormat(dst, tsLayout)
	dst = append(dst, t.post...)
	return dst
}

// requestHead is everything before the Content-Length value.
func requestHead(path, host string) string {
	return "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nContent-Length: "
}

// tokenHeads reads bearer tokens (one a line, blank lines skipped) and returns one request head per
// token, built once; nil without a file.
func tokenHeads(path, uri, host string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var heads []string
	for _, line := range strings.Split(string(b), "\n") {
		if t := strings.TrimSpace(line); t != "" {
			heads = append(heads, "POST "+uri+" HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+t+
				"\r\nContent-Type: application/json\r\nContent-Length: ")
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("%s: no tokens", path)
	}
	return heads, nil
}
