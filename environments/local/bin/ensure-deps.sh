#!/usr/bin/env bash
# Installs the machine-level tools the tests and `make run` use, only when missing.
set -euo pipefail
need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)  # local cluster certificates
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "==> installing ${need_apt[*]} from Debian packages"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
echo "==> deps ok: redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')"
