#!/usr/bin/env bash
# Imports images into this cluster's real node (node-lib.sh), where pods run them with imagePullPolicy
# IfNotPresent or Never; no registry is involved.
#   node-import.sh ARCHIVE|IMAGE...   a docker-archive file, or an image of podman's local store by
#                                     name (saved to a docker-archive first), e.g. localhost/vigil/engine:0.1.0
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
[ $# -gt 0 ] || die "usage: node-import.sh ARCHIVE|IMAGE..."
running_pid containerd >/dev/null || die "the real node of $CLUSTER_DIR is not running (node-up.sh, or VIGIL_REAL_NODE=1 cluster-up.sh)"
for what in "$@"; do
  if [ -f "$what" ]; then
    node_import "$what"
  else
    command -v podman >/dev/null || die "$what is not a file and podman is missing to save it (make images installs it)"
    podman image exists "$what" || die "image $what is not in podman's local store (make images builds the Vigil images)"
    tmp=$(mktemp -d)
    # podman save does nothing when the file exists: a fresh directory each time.
    podman save --format docker-archive -o "$tmp/image.tar" "$what" >/dev/null
    node_import "$tmp/image.tar"
    rm -rf "$tmp"
  fi
  log "imported $what into the real node"
done
