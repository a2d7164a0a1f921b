//go:build tools

// Package tools pins the Prometheus module in go.mod/go.sum; the binaries are built with
// `go build github.com/prometheus/prometheus/cmd/{prometheus,promtool}` from this module.
package tools

import (
	_ "github.com/prometheus/prometheus/config"
)
