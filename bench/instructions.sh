#!/usr/bin/env bash
# Instructions per request: each server of the static-path comparison runs
# under valgrind's callgrind, answers a fixed number of GET requests
# (bench/fixedload), and the user-space instructions it executed for them
# are divided by their number. Unlike req/s, the count does not depend on
# what else the machine is doing: the same binaries and inputs give the
# same figures to within a fraction of a percent, so a change of a few
# percent on the static path can be seen at all (bench/README.md).
#
#   bash bench/instructions.sh                # N=20000 requests per server
#   AISTATUS=/tmp/old/aistatus bash bench/instructions.sh   # another build of aistatus
#
# Run it on an otherwise idle machine: the counts repeat to 0.1 % there, and
# move by up to 4 % when other jobs keep both cores busy (the Go scheduler
# spins and polls more or less with the timing).
#
# What it leaves out: the kernel's work (the system calls are the same for
# every server here), and the garbage collector (GOGC=off: how often it runs
# depends on the heap, not the path; see bench/README.md for its share).
# Installs valgrind and curl from Debian when missing (needs root or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-20000}             # counted requests per server
CONNECTIONS=${CONNECTIONS:-4}
INCIDENTS=${INCIDENTS:-100000}

missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

work=$(mktemp -d /tmp/aistatus-instructions.XXXXXX)
pid=""
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== building"
if [ -n "${AISTATUS:-}" ]; then
  cp "$AISTATUS" "$work/aistatus"
else
  go build -o "$work/aistatus" ./cmd/aistatus
fi
go build -o "$work/snapgen" ./bench/snapgen
go build -o "$work/minimal" ./bench/minimal
go build -o "$work/fixedload" ./bench/fixedload
"$work/snapgen" -out "$work/public" -incidents "$INCIDENTS" -base-url http://127.0.0.1 \
  -probe-base http://127.0.0.1:9/probe -catalog-out "$work/catalog.json" >/dev/null

# shellcheck source=.ci/free-port.sh
source .ci/free-port.sh

# count NAME PATH COMMAND...: prints "NAME IR_PER_REQUEST". The server is
# started under callgrind, warmed up, its counters zeroed, loaded with N
# requests (with fixedload's flags in LOAD_FLAGS), and its counters dumped.
LOAD_FLAGS=()
count() {
  local name=$1 path=$2 out port
  shift 2
  port=$(free_port)
  out="$work/callgrind.$name"
  # --reload 1h (aistatus): under valgrind a run takes minutes, and the
  # snapshot folder would be looked at every 2 s of it.
  GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --log-file="$out.log" \
    --callgrind-out-file="$out.%p" "${@//PORT/$port}" >/dev/null 2>"$work/$name.stderr" &
  pid=$!
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")" = 200 ] && break
    sleep 0.2
  done
  "$work/fixedload" -addr "127.0.0.1:$port" -path "$path" -n 2000 -c "$CONNECTIONS" "${LOAD_FLAGS[@]}"
  callgrind_control -z "$pid" >/dev/null 2>&1
  "$work/fixedload" -addr "127.0.0.1:$port" -path "$path" -n "$N" -c "$CONNECTIONS" "${LOAD_FLAGS[@]}"
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  # The dump made by callgrind_control is part 1; the exit writes part 2.
  awk -v name="$name" -v n="$N" '/^summary:/ { printf "%s %d\n", name, $2 / n }' "$out".*.1
}

echo "== counting: $N requests per server over $CONNECTIONS connections"
results=()
results+=("$(count minimal /status.json "$work/minimal" -file "$work/public/status.json" -addr 127.0.0.1:PORT)")
results+=("$(count minimal-all /status.json "$work/minimal" -file "$work/public/status.json" -addr 127.0.0.1:PORT -all-headers)")
results+=("$(count aistatus /status.json "$work/aistatus" serve --dir "$work/public" --addr 127.0.0.1:PORT \
  --catalog "$work/catalog.json" --reload 1h)")
results+=("$(count aistatus-nolog /status.json "$work/aistatus" serve --dir "$work/public" --addr 127.0.0.1:PORT \
  --catalog "$work/catalog.json" --reload 1h --access-log=false)")
results+=("$(count aistatus-api /api/v1/status "$work/aistatus" serve --dir "$work/public" --addr 127.0.0.1:PORT \
  --catalog "$work/catalog.json" --reload 1h --rate-limit 0)")
# What browsers and most HTTP libraries get: the gzip variant, whose
# Content-Encoding is the eighth header line.
LOAD_FLAGS=(-gzip)
results+=("$(count aistatus-gzip /status.json "$work/aistatus" serve --dir "$work/public" --addr 127.0.0.1:PORT \
  --catalog "$work/catalog.json" --reload 1h)")
LOAD_FLAGS=()

read -r _ base < <(printf '%s\n' "${results[0]}")
read -r _ all < <(printf '%s\n' "${results[1]}")
echo
echo "| server | path | instructions/request | × minimal | × minimal with all headers |"
echo "|---|---|--:|--:|--:|"
labels=("minimal net/http handler, the contract's four headers|/status.json"
  "the same, with all of aistatus's headers|/status.json"
  "aistatus serve (defaults: access log on)|/status.json"
  "aistatus serve --access-log=false|/status.json"
  "aistatus serve --rate-limit 0 (the API path)|/api/v1/status"
  "aistatus serve (defaults), Accept-Encoding: gzip|/status.json")
for i in "${!results[@]}"; do
  read -r _ ir <<<"${results[$i]}"
  IFS='|' read -r label path <<<"${labels[$i]}"
  printf '| %s | %s | %d | %.2f | %.2f |\n' "$label" "$path" "$ir" \
    "$(awk -v a="$ir" -v b="$base" 'BEGIN { print a / b }')" "$(awk -v a="$ir" -v b="$all" 'BEGIN { print a / b }')"
done

# What each header costs net/http: the minimal handler with 0 to 6 more
# lines (bench/minimal -extra): the two aistatus sends besides the four, then
# four it no longer sends. Past 8 lines the header map outgrows Go's small map.
echo
echo "| minimal handler, header lines in its map (Content-Length, Content-Type, the contract's three, then -extra N) | instructions/request | × minimal |"
echo "|---|--:|--:|"
for extra in 0 1 2 3 4 5 6; do
  read -r _ ir < <(count "extra-$extra" /status.json "$work/minimal" -file "$work/public/status.json" -addr 127.0.0.1:PORT -extra "$extra")
  printf '| %d (-extra %d) | %d | %.2f |\n' $((5 + extra)) "$extra" "$ir" "$(awk -v a="$ir" -v b="$base" 'BEGIN { print a / b }')"
done
