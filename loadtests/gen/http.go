package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A minimal HTTP/1.1 client for one keep-alive connection with one request in flight: the request
// is a pre-built byte slice, the answer is read into a reused buffer. net/http's client costs
// several goroutine hand-offs and allocations per request; the generator's CPU is part of what the
// two cores share, so it stays this small.

var errChunkedTooLarge = errors.New("chunk too large")

// readResponse reads one response from r into buf (reused) and returns the status, the body and
// whether the server will close the connection.
func readResponse(r *bufio.Reader, buf []byte) (status int, body []byte, closing bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, nil, false, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		h, err := r.ReadSlice('\n')
		if err != nil {
			return 0, nil, false, err
		}
		if len(h) <= 2 { // the empty line
			break
		}
		colon := bytes.IndexByte(h, ':')
		if colon < 0 {
			continue
		}
		name, value := h[:colon], bytes.TrimSpace(h[colon+1:])
		switch {
		case asciiEqualFold(name, "content-length"):
			length, err = strconv.Atoi(string(value))
			if err != nil || length < 0 {
				return 0, nil, false, fmt.Errorf("bad content-length %q", value)
			}
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			closing = asciiEqualFold(value, "close")
		}
	}
	body = buf[:0]
	switch {
	case chunked:
		for {
			sz, err := r.ReadSlice('\n')
			if err != nil {
				return 0, nil, false, err
			}
			sz = bytes.TrimSpace(sz)
			if i := bytes.IndexByte(sz, ';'); i >= 0 {
				sz = sz[:i]
			}
			n, err := strconv.ParseInt(string(sz), 16, 32)
			if err != nil || n < 0 {
				return 0, nil, false, fmt.Errorf("bad chunk size %q", sz)
			}
			if n > 1<<24 {
				return 0, nil, false, errChunkedTooLarge
			}
			if n == 0 {
				// trailers until the empty line
				for {
					t, err := r.ReadSlice('\n')
					if err != nil {
						return 0, nil, false, err
					}
					if len(t) <= 2 {
						return status, body, closing, nil
					}
				}
			}
			start := len(body)
			body = grow(body, int(n))
			if _, err := io.ReadFull(r, body[start:]); err != nil {
				return 0, nil, false, err
			}
			if _, err := r.Discard(2); err != nil { // CRLF after the chunk
				return 0, nil, false, err
			}
		}
	case length >= 0:
		body = grow(body, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return 0, nil, false, err
		}
	default:
		return 0, nil, false, errors.New("response without content-length or chunked encoding")
	}
	return status, body, closing, nil
}

func grow(b []byte, n int) []byte {
	need := len(b) + n
	if cap(b) < need {
		nb := make([]byte, len(b), need*2)
		copy(nb, b)
		b = nb
	}
	return b[:need]
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

var (
	modeKey = []byte(`"engine_mode":"`)
	codeKey = []byte(`"engine_error_code":"`)
)

// classify returns the answer's engine_mode and engine_error_code ("" when null or absent), as
// sub-slices of body (no allocation).
func classify(body []byte) (mode, code []byte) {
	return stringField(body, modeKey), stringField(body, codeKey)
}

func stringField(body, key []byte) []byte {
	i := bytes.Index(body, key)
	if i < 0 {
		return nil
	}
	v := body[i+len(key):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return nil
	}
	return v[:j]
}
