# shellcheck shell=bash
# Sourced by the scripts that start servers on loopback for a third-party
# client to talk to (.ci/prism.sh, .ci/mcp-inspector.sh; run from the
# repository root). Makes a scratch folder $work, removed on exit with every
# process whose id the script adds to pids, and defines wait_for and
# free_port.
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for URL NAME: waits up to 60 s for URL to answer at all.
wait_for() {
  for _ in $(seq 120); do
    if curl -s -o /dev/null --max-time 2 "$1"; then return 0; fi
    sleep 0.5
  done
  echo "$2 did not start"; cat "$work/$2.log" 2>/dev/null || true; exit 1
}

# free_port, from its own file (bench/load.sh uses it too).
# shellcheck source=.ci/free-port.sh
source .ci/free-port.sh
