#!/usr/bin/env bash
# Puts Stoplight Prism's validating proxy (`prism proxy --errors`) in front of
# a real `aistatus serve` and requests every endpoint through it: Prism
# answers 500 with a VIOLATIONS problem whenever a request or a response
# (status, headers, body) does not match openapi.json, and this script fails.
#
# Everything stays on loopback: `aistatus build` runs twice against a fake of
# the status pages and API hosts (.ci/prism/fake.go, which also rewrites the
# catalog), then `aistatus serve` serves the snapshot with that catalog, so
# that /check's live probes reach the fake too.
#
# Not part of .ci/run: Prism is a ~90 MB npm install, pinned by
# .ci/prism/package-lock.json and cached like the linters (.ci/npm-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=.ci/npm-tools.sh
. .ci/npm-tools.sh
npm_tools prism

# shellcheck source=.ci/servers.sh
. .ci/servers.sh

echo "-- building aistatus and the fake"
go build -o "$work/aistatus" ./cmd/aistatus
go vet .ci/prism/fake.go
go build -o "$work/fake" .ci/prism/fake.go
"$work/aistatus" catalog >"$work/catalog-all.json"
"$work/fake" -catalog-in "$work/catalog-all.json" -catalog-out "$work/catalog.json" -addr-file "$work/fake.addr" \
  >"$work/fake.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/fake.addr" ] && break; sleep 0.1; done
[ -s "$work/fake.addr" ] || { echo "the fake did not start"; cat "$work/fake.log"; exit 1; }

api_port=$(free_port)
prism_port=$(free_port)
api="http://127.0.0.1:$api_port"

echo "-- aistatus build (twice) against the fake at $(cat "$work/fake.addr")"
for _ in 1 2; do
  "$work/aistatus" build --out "$work/public" --base-url "$api" --catalog "$work/catalog.json" \
    --timeout 5s --log-format json >>"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
done
grep '"snapshot published"' "$work/build.log" | tail -n1

echo "-- aistatus serve on $api"
"$work/aistatus" serve --dir "$work/public" --addr "127.0.0.1:$api_port" --catalog "$work/catalog.json" \
  --rate-limit 0 --access-log=false >"$work/serve.log" 2>&1 &
pids+=($!)
wait_for "$api/api/v1/status" serve

echo "-- prism proxy --errors on 127.0.0.1:$prism_port"
"$npm_bin/prism" proxy --errors --host 127.0.0.1 --port "$prism_port" \
  "$work/public/openapi.json" "$api/api/v1" >"$work/prism.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$prism_port/status" prism

failed=0
# check WANT_STATUS PATH [CURL ARGS...]: requests PATH through Prism.
check() {
  local want=$1 path=$2 code
  shift 2
  code=$(curl -s -o "$work/body" -w '%{http_code}' --max-time 30 "$@" "http://127.0.0.1:$prism_port$path") || code=000
  if [ "$code" = "$want" ] && ! grep -q 'stoplight.io/prism/errors' "$work/body"; then
    echo "ok    $code $path"
  else
    failed=1
    echo "FAIL  $code $path (want $want)"
    head -c 2000 "$work/body"; echo
  fi
}

# The ETag is taken through Prism too: it is per representation (identity
# or gzip), and Prism's own Accept-Encoding picks the representation.
etag=$(curl -s -D - -o /dev/null "http://127.0.0.1:$prism_port/status" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
check 200 /
check 200 /status
check 304 /status -H "If-None-Match: $etag"
check 200 /status -H 'Accept-Encoding: gzip' --compressed
check 200 /services/openai
check 200 /services/anthropic
check 200 /services/cohere
check 200 /services/mistral
check 200 /services/azure-openai
check 404 /services/not-a-service
check 200 /services/openai/history
check 200 '/services/anthropic/history?from=2026-01-01&to=2026-12-31'
check 400 '/services/openai/history?from=2026-03-01&to=2026-02-01'
check 400 '/services/openai/history?from=2020-01-01&to=2026-01-01'
check 404 /services/not-a-service/history
check 200 /incidents
check 200 '/incidents?since=2020-01-01&severity=major&service=openai&limit=5'
check 200 '/incidents?since=2020-01-01T00:00:00Z&limit=1'
check 200 '/check?q=chatgpt'
check 200 '/check?q=https://api.openai.com/v1/chat/completions'
check 200 '/check?q=mistral'
check 200 '/check?q=example.org'
check 200 '/fallbacks?model=anthropic/claude-sonnet-4.5'
check 200 '/fallbacks?model=anthropic/claude-sonnet-4.5&format=openrouter'
check 200 '/fallbacks?model=anthropic/claude-sonnet-4.5&format=vercel'
check 200 '/fallbacks?model=anthropic/claude-sonnet-4.5&format=portkey'
check 200 '/fallbacks?q=anthropic'
check 400 '/fallbacks?model=anthropic/claude-sonnet-9'
check 400 '/fallbacks?q=anthropic&format=litellm'
check 200 '/check?q=openai&error=529'
check 200 '/check?q=anthropic&error=401'
check 200 '/check?q=openai&error=429&code=insufficient_quota'
check 200 '/check?q=anthropic&error=429&code=rate_limit_error&retryAfter=20'
check 200 /models
check 200 /models/retirements
check 200 /models/anthropic/claude-sonnet-4.5
check 404 /models/anthropic/not-a-model
check 200 '/check?q=claude-sonnet-4.5&error=529'
check 200 '/check?q=bedrock&model=claude-sonnet-4.5'
check 400 '/check?q=anthropic&model=not-a-model'
check 200 '/check?q=openai,cohere,mistral'
check 400 '/check?q=openai,,cohere'
check 400 '/check?q=openai,cohere&error=529'
check 200 '/statusline'
check 200 '/statusline?q=openai,anthropic'
check 200 '/statusline?q=claude.ai,claude-sonnet-4.5'
check 400 '/statusline?q=example.org'
check 200 /openapi.json
check 200 /export
check 200 /sources
check 200 /reliability
check 200 '/export?format=csv'
check 200 /changes
check 200 '/changes?since=0&limit=5'
check 400 '/changes?since=yesterday'
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# The point-in-time reads, at their own paths (the older ?at= answers the
# same documents but is left out of openapi.json: serve's tests cover it).
check 200 "/status/at/$now"
check 200 "/services/openai/at/$now"
check 404 '/status/at/2000-01-01T00:00:00Z'

if grep -q 'VIOLATIONS' "$work/prism.log"; then
  failed=1
  grep -B2 -A5 'VIOLATIONS' "$work/prism.log" | head -n 60
fi
if [ "$failed" != 0 ]; then
  echo "prism: some responses do not match openapi.json"
  exit 1
fi
echo "prism: every response matches openapi.json"
