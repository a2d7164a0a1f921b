package main

import "time"

// The open-loop schedule: request i (0-based) is due at start + i/rate, computed from i so no error
// accumulates. Latency is measured from that due time, not from when the request was written, so
// a slow server (or a busy generator) cannot hide its queueing (coordinated omission).
type schedule struct {
	rate  float64 // requests per second
	total int64   // requests in the run
}

func newSchedule(rate float64, d time.Duration) schedule {
	n := int64(rate * d.Seconds())
	if n < 0 {
		n = 0
	}
	return schedule{rate: rate, total: n}
}

// at is request i's due time as an offset from the start.
func (s schedule) at(i int64) time.Duration {
	return time.Duration(float64(i) / s.rate * float64(time.Second))
}

// dueBy is how many requests are due at or before elapsed (capped at total).
func (s schedule) dueBy(elapsed time.Duration) int64 {
	if elapsed < 0 {
		return 0
	}
	n := int64(elapsed.Seconds()*s.rate) + 1
	if n > s.total {
		return s.total
	}
	// Floating point may put the boundary a nanosecond off: trust at().
	for n > 0 && s.at(n-1) > elapsed {
		n--
	}
	for n < s.total && s.at(n) <= elapsed {
		n++
	}
	return n
}
