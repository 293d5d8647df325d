#!/usr/bin/env bash
# Drives aistatus's MCP server with the MCP Inspector's CLI
# (@modelcontextprotocol/inspector-cli, pinned by .ci/mcp-inspector/
# package-lock.json, cached like the linters: .ci/npm-tools.sh):
#   - over streamable HTTP (aistatus serve's /mcp): a tool call with error
#     given as a number, counting the HTTP requests the Inspector sends and
#     what they cost of the rate limit (at most two: serve/mcp.go, mcpGuard);
#     the resources listed and read;
#   - over stdio (aistatus mcp --dir): the resources listed and read, and the
#     subscription capability offered.
# The Inspector's CLI is one-shot: it cannot wait for a notification, so the
# update after a swap is proved by an SDK client in
# serve/mcpserver/resources_test.go (TestSubscriptionNotifiedOnSwap).
#
# Offline by design: the snapshot is built with no status page or API host
# reachable, so every service is honestly unknown — the MCP surface is what
# is under test, not the data.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=.ci/npm-tools.sh
. .ci/npm-tools.sh
npm_tools mcp-inspector
# The CLI finds its own package.json relative to the working directory
# (inspector-cli 1.0.3), so it runs from its build folder.
inspector_dir="$npm_bin/../@modelcontextprotocol/inspector-cli/build"

# shellcheck source=.ci/servers.sh
. .ci/servers.sh

# inspector ARGS...: runs the Inspector's CLI, its JSON answer on stdout.
inspector() {
  (cd "$inspector_dir" && node index.js "$@")
}

# expect NAME TEXT FILE: fails unless FILE contains TEXT.
failed=0
expect() {
  if grep -qF -- "$2" "$3"; then
    echo "ok   $1"
  else
    echo "FAIL $1: no '$2' in:"; head -c 600 "$3"; echo
    failed=1
  fi
}

echo "-- building aistatus and an offline snapshot"
go build -o "$work/aistatus" ./cmd/aistatus
"$work/aistatus" build --out "$work/public" --timeout 1s --log-level error >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; exit 1; }

port=$(free_port)
api="http://127.0.0.1:$port"
"$work/aistatus" serve --dir "$work/public" --addr "127.0.0.1:$port" --rate-limit 30 --log-format json \
  >"$work/serve.log" 2>&1 &
pids+=($!)
wait_for "$api/healthz" serve

echo "-- HTTP: one tool call (error=529, a number on the wire)"
before=$(grep -c '"path":"/mcp"' "$work/serve.log" || true)
inspector "$api/mcp" --transport http --method tools/call --tool-name check_service \
  --tool-arg query=groq --tool-arg error=529 >"$work/call.json"
expect "check_service error=529 answered" '"error": "529"' "$work/call.json"
# The budget left, read at once (it refills one request every 2 s) with a
# request that costs one itself. The access log is written in batches
# (logbatch): wait one out before counting the Inspector's requests in it.
remaining=$(curl -s -D - -o /dev/null "$api/api/v1/status" | sed -n 's/^[Rr]ate[Ll]imit: "free";r=\([0-9]*\);.*/\1/p' | tr -d '\r')
sleep 1
requests=$(( $(grep -c '"path":"/mcp"' "$work/serve.log") - before ))
charged=$((30 - 1 - remaining))
echo "     the Inspector sent $requests HTTP requests to /mcp; $charged charged to the rate limit"
grep '"path":"/mcp"' "$work/serve.log" | sed -n 's/.*"method":"\([A-Z]*\)".*"status":\([0-9]*\).*/     \1 \2/p'
if [ "$charged" -gt 2 ]; then
  echo "FAIL one tool call cost $charged requests of the budget, want at most 2"; failed=1
fi

echo "-- HTTP: resources"
inspector "$api/mcp" --transport http --method resources/list >"$work/list.json"
expect "resources/list names aistatus://status" '"uri": "aistatus://status"' "$work/list.json"
inspector "$api/mcp" --transport http --method resources/templates/list >"$work/templates.json"
expect "resources/templates/list names the service template" '"uriTemplate": "aistatus://services/{slug}"' "$work/templates.json"
inspector "$api/mcp" --transport http --method resources/read --uri aistatus://services/groq >"$work/read.json"
expect "resources/read aistatus://services/groq" '\"slug\": \"groq\"' "$work/read.json"
expect "resources/read carries the cache hint" '"ttlMs": 30000' "$work/read.json"

echo "-- stdio (aistatus mcp --dir): resources"
inspector "$work/aistatus" --method resources/read --uri aistatus://status -- mcp --dir "$work/public" --log-level error >"$work/stdio-read.json"
expect "stdio resources/read aistatus://status" '\"license\": \"CC-BY-4.0\"' "$work/stdio-read.json"
inspector "$work/aistatus" --method resources/templates/list -- mcp --dir "$work/public" --log-level error >"$work/stdio-templates.json"
expect "stdio resources/templates/list" 'aistatus://services/{slug}' "$work/stdio-templates.json"

if [ "$failed" != 0 ]; then
  echo "mcp-inspector: some checks failed"
  exit 1
fi
echo "mcp-inspector: every check passed"
