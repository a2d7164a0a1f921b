#!/usr/bin/env bash
# The functions of every part `make run` starts (start_*/stop_*/*_status), one *-lib.sh per part.
# Sourced by run.sh, stop.sh and logs.sh so the three always know the same parts.
PLATFORM_LIB_BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for lib in engine redis kafka relay prometheus kube; do
  . "$PLATFORM_LIB_BIN/$lib-lib.sh"
done
unset lib
