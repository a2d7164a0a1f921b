#!/usr/bin/env bash
# Installs the machine-level tools the tests and `make run` use, only when missing.
set -euo pipefail
need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)  # local cluster certificates
# The local cluster's real node (node-lib.sh, ADR 0008): Debian's containerd, runc and CNI plugins;
# iptables/ipset/conntrack for the kubelet and kube-proxy.
command -v containerd >/dev/null 2>&1 || need_apt+=(containerd)
[ -x /usr/sbin/runc ] || need_apt+=(runc)
[ -x /usr/lib/cni/bridge ] || need_apt+=(containernetworking-plugins)
command -v iptables >/dev/null 2>&1 || need_apt+=(iptables)
command -v ipset >/dev/null 2>&1 || need_apt+=(ipset)
command -v conntrack >/dev/null 2>&1 || need_apt+=(conntrack)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "==> installing ${need_apt[*]} from Debian packages"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
echo "==> deps ok: redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')"
