#!/usr/bin/env bash
# Failover through Portkey's open-source gateway: starts @portkey-ai/gateway
# (pinned by .ci/portkey-gateway) on loopback and runs bench/failover, which
# sends requests through it with the fallback plan's Portkey configuration
# as emitted (fallback/testdata/golden/sonnet.portkey.json) against fake
# providers that fail as outages do, and prints, per fault, whether and how
# fast each request landed on the next provider (bench/README.md holds the
# table).
#
#   bash bench/failover.sh                    # every fault, ROUNDS=3 requests each
#   FAULTS=529,silent bash bench/failover.sh  # the faults whose names start so
#
# Touches only loopback. Its time is bounded: ROUNDS requests per fault,
# each given up after GIVE_UP (45 s); the slowest faults (a silent
# provider, a late first token) cost at most that each. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
GIVE_UP=${GIVE_UP:-45s}
FAULTS=${FAULTS:-}

# shellcheck source=.ci/npm-tools.sh
. .ci/npm-tools.sh
# shellcheck source=.ci/free-port.sh
. .ci/free-port.sh
npm_tools portkey-gateway
gateway_js="$(dirname "$npm_bin")/@portkey-ai/gateway/build/start-server.js"

log=$(mktemp /tmp/aistatus-failover.XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap cleanup EXIT

port=$(free_port)
node "$gateway_js" --port="$port" --headless >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "the gateway did not start:"; cat "$log"; exit 1
  fi
  sleep 0.1
done

echo "@portkey-ai/gateway $(node -p "require('$(dirname "$gateway_js")/../package.json').version"), node $(node --version), $(date -u +%Y-%m-%d)"
go run ./bench/failover -gateway "http://127.0.0.1:$port" -rounds "$ROUNDS" -give-up "$GIVE_UP" -faults "$FAULTS"
