package main

import "math/bits"

// Latency histogram in microseconds, log-linear like HdrHistogram with 2 significant digits: exact
// below 128 µs, then 64 sub-buckets per power of two (relative error < 1.6 %). Fixed size, no
// allocation per record; one per worker, merged at the end.
const (
	histLinear = 128 // values below are exact
	histSub    = 64  // sub-buckets per power of two above
	histMaxExp = 40  // up to ~2^46 µs, far beyond any run
	histSize   = histLinear + histMaxExp*histSub
)

type histogram struct {
	counts [histSize]uint64
	total  uint64
	max    uint64
}

func histIndex(v uint64) int {
	if v < histLinear {
		return int(v)
	}
	e := bits.Len64(v) - 7 // shift that brings v into [64, 128)
	idx := histLinear + (e-1)*histSub + int(v>>uint(e)) - histSub
	if idx >= histSize {
		return histSize - 1
	}
	return idx
}

// histHighest is the highest value that falls into bucket idx (what a percentile reports, as
// HdrHistogram does: never below the true value).
func histHighest(idx int) uint64 {
	if idx < histLinear {
		return uint64(idx)
	}
	e := (idx-histLinear)/histSub + 1
	m := uint64((idx-histLinear)%histSub + histSub)
	return ((m + 1) << uint(e)) - 1
}

func (h *histogram) record(us uint64) {
	h.counts[histIndex(us)]++
	h.total++
	if us > h.max {
		h.max = us
	}
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	if o.max > h.max {
		h.max = o.max
	}
}

// percentile returns the value at or below which p percent of the recorded values fall (µs).
func (h *histogram) percentile(p float64) uint64 {
	if h.total == 0 {
		return 0
	}
	target := uint64(p / 100 * float64(h.total))
	if float64(target) < p/100*float64(h.total) {
		target++ // ceil
	}
	if target == 0 {
		target = 1
	}
	var acc uint64
	for i, c := range h.counts {
		acc += c
		if acc >= target {
			v := histHighest(i)
			if v > h.max {
				return h.max
			}
			return v
		}
	}
	return h.max
}
