#!/usr/bin/env bash
# Everything `npm test` needs on a fresh Debian or Ubuntu machine: the servers the tests start for real
# (each on a free loopback port, never the system service), then the npm dependencies (`npm ci`).
# Run it once from the repository (`npm run setup:test` runs it); .ci/run calls it before `npm test`.
# apt-get runs only for what is missing, through sudo when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

# command:Debian package — the same list as test/support/required-tools.ts (a unit test compares them).
NEEDED=(
  redis-server:redis-server   # state-store contract, outage, multi-instance and cluster tests
  redis-cli:redis-tools       # the Redis Cluster tests create their cluster with it
  prometheus:prometheus       # the dashboards and alert rules against a real Prometheus
  promtool:prometheus
  haproxy:haproxy             # the rolling restart behind a real load balancer
  chromium:chromium           # the status page in a real browser (driven by playwright-core)
  kubectl:kubectl             # `kubectl kustomize` renders deploy/kubernetes
)

have() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

missing=()
for entry in "${NEEDED[@]}"; do
  have "${entry%%:*}" || missing+=("${entry#*:}")
done
if ((${#missing[@]})); then
  packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-test-deps: need root (or sudo) to apt-get install $packages" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "install-test-deps: apt-get install $packages"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  # shellcheck disable=SC2086
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends $packages >/dev/null
fi

still=()
for entry in "${NEEDED[@]}"; do
  have "${entry%%:*}" || still+=("${entry%%:*}")
done
if ((${#still[@]})); then
  echo "install-test-deps: still missing after apt-get: ${still[*]}" >&2
  exit 1
fi

npm ci --no-audit --no-fund
echo "install-test-deps: ready; run npm test"
