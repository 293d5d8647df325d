#!/usr/bin/env bash
# Load test: `aistatus serve` against nginx serving the same snapshot files
# with the same headers, both on loopback, measured with wrk. Prints, per
# endpoint and server, req/s, p50/p99 latency and the server's CPU time per
# request, and the ratio aistatus/nginx; then status.json from a minimal
# net/http handler (bench/minimal, with the contract's four headers and with
# all of aistatus's) beside aistatus (access log off and on) and nginx, in
# interleaved rounds, with the ratios between them; then one
# `serve --redis` against three (three wrk in parallel, one per replica).
# Results are in bench/README.md.
#
#   bash bench/load.sh                         # defaults below
#   DURATION=30s CONNECTIONS=64 INCIDENTS=1000 bash bench/load.sh
#
# Installs nginx, wrk, curl and redis-server from Debian when missing (needs
# root or sudo).
# Only 127.0.0.1 is ever contacted: the snapshot is synthetic (bench/snapgen)
# and /check's live probes are pointed at the local nginx.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}       # per wrk run
CONNECTIONS=${CONNECTIONS:-32}  # wrk -c
THREADS=${THREADS:-2}           # wrk -t
INCIDENTS=${INCIDENTS:-100000}  # retained incidents in the snapshot (the cap)
ROUNDS=${ROUNDS:-5}             # interleaved rounds of the minimal-handler comparison
CORES=$(nproc)

# --- tools -------------------------------------------------------------------
nginx_bin() { command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; }; }
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
nginx_bin >/dev/null || missing+=(nginx)
command -v redis-server >/dev/null || missing+=(redis-server)
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update
  pkgs=()
  for p in "${missing[@]}"; do
    # nginx-light is the small build (Debian 12); later releases have only nginx.
    if [ "$p" = nginx ]; then
      light=$(apt-cache policy nginx-light | awk '/Candidate:/ { print $2 }')
      if [ -n "$light" ] && [ "$light" != "(none)" ]; then
        p=nginx-light
      fi
    fi
    pkgs+=("$p")
  done
  $sudo apt-get install -y --no-install-recommends "${pkgs[@]}"
fi
NGINX=$(nginx_bin)

# --- workspace, cleanup --------------------------------------------------------
work=$(mktemp -d /tmp/aistatus-load.XXXXXX)
chmod 755 "$work" # nginx workers may run as another user
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=.ci/free-port.sh
source .ci/free-port.sh

# wait_ok waits until GET $1 answers 200 (aistatus answers 503 until it has
# loaded the snapshot).
wait_ok() {
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return
    sleep 0.1
  done
  echo "GET $1 did not answer 200 within a minute" >&2
  return 1
}

# distinct_ports N: N different free ports, one a line.
distinct_ports() {
  local -A seen=()
  local p
  while ((${#seen[@]} < $1)); do
    p=$(free_port)
    [ -n "${seen[$p]:-}" ] || { seen[$p]=1; echo "$p"; }
  done
}
read -r ais_port nginx_port min_port minall_port log_port redis_port r1_port r2_port r3_port < <(distinct_ports 9 | xargs)

# --- build, snapshot -----------------------------------------------------------
echo "== building aistatus and snapgen"
go build -o "$work/aistatus" ./cmd/aistatus
go build -o "$work/snapgen" ./bench/snapgen
go build -o "$work/minimal" ./bench/minimal
echo "== generating a snapshot with $INCIDENTS incidents"
"$work/snapgen" -out "$work/public" -incidents "$INCIDENTS" \
  -base-url "http://127.0.0.1:$ais_port" \
  -probe-base "http://127.0.0.1:$nginx_port/probe" -catalog-out "$work/catalog.json" \
  -major-outage anthropic

# --- nginx ---------------------------------------------------------------------
# The common headers come from the "/*" block of the snapshot's _headers (the
# thin server's header table); the API paths are rewritten like _redirects.
add_headers=$(awk '
  /^\/\*$/ { inblock = 1; next }
  /^[^ ]/  { inblock = 0 }
  inblock && /^  [A-Za-z-]+: / {
    sub(/^  /, ""); name = $0; sub(/: .*/, "", name); value = $0; sub(/^[^:]*: /, "", value)
    printf "    add_header %s '\''%s'\'' always;\n", name, value
  }' "$work/public/_headers")
rewrites=$(awk '
  /^#/ || NF != 3 || $3 != "200" || $2 !~ /^\// { next }
  { from = $1; to = $2; sub(/:slug/, "([a-z0-9-]+)", from); sub(/:slug/, "$1", to)
    printf "        rewrite ^%s$ %s last;\n", from, to }' "$work/public/_redirects")
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes $CORES;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
    open_file_cache_errors on;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    types {
        application/json json;
        text/csv csv;
        text/html html;
    }
    default_type application/octet-stream;
    charset_types text/csv; # text/html is in by default
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/public;
        charset utf-8;
$add_headers
$rewrites
        # A stand-in API host for aistatus's live /check probe: a 401, as
        # real APIs answer a request without credentials; Anthropic's, in
        # its outage, a 500 with the error body its API documents.
        location /probe/ { return 401; }
        location = /probe/anthropic {
            default_type application/json;
            return 500 '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}';
        }
    }
}
EOF
"$NGINX" -t -q -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf"
"$NGINX" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
pids+=("$nginx_pid")

# --- aistatus ------------------------------------------------------------------
"$work/aistatus" serve --dir "$work/public" --addr "127.0.0.1:$ais_port" \
  --rate-limit 0 --access-log=false --catalog "$work/catalog.json" --log-level warn &
ais_pid=$!
pids+=("$ais_pid")
# Redis and the three replicas of the last part start now, while the ports
# picked above are still free (wrk's connections take ephemeral ports).
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --loglevel warning >"$work/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
rports=("$r1_port" "$r2_port" "$r3_port")
rpids=()
for p in "${rports[@]}"; do
  "$work/aistatus" serve --dir "$work/public" --addr "127.0.0.1:$p" --rate-limit 1000000000 \
    --redis "redis://127.0.0.1:$redis_port/0" --access-log=false --catalog "$work/catalog.json" --log-level warn &
  rpids+=($!)
  pids+=($!)
done
ais="http://127.0.0.1:$ais_port"
ngx="http://127.0.0.1:$nginx_port"
wait_ok "$ngx/api/v1/status"
wait_ok "$ais/api/v1/status"
# The CPU each server uses is counted over its processes: nginx's master and workers.
mapfile -t nginx_pids < <(echo "$nginx_pid"; pgrep -P "$nginx_pid")
since=$(date -u -d '30 days ago' +%F)

# Anthropic in a major outage, its API and apps down under one open critical
# incident, as on 2026-07-29 (snapgen -major-outage): /check is asked most
# when a service is down, and "claude" names Anthropic, its apps and its
# models at once. status.json lists each service's slug, name, category and
# domain before its status.
grep -qE '"slug":"anthropic","name":"[^"]*","category":"[^"]*","domain":"[^"]*","status":"major_outage"' "$work/public/status.json" ||
  { echo "Anthropic is not in a major outage in the snapshot"; exit 1; }

# Same path on both servers, except where nginx can only serve a file:
#   name | aistatus path | nginx path
cases=(
  "status|/api/v1/status|/api/v1/status"
  "service (openai)|/api/v1/services/openai|/api/v1/services/openai"
  "incidents filtered¹|/api/v1/incidents?service=openai&severity=major&since=$since|/api/v1/incidents"
  "check?q=openai²|/api/v1/check?q=openai|/api/v1/status"
  "check?q=claude (Anthropic down)²|/api/v1/check?q=claude|/api/v1/status"
  "check?q=anthropic (Anthropic down)²|/api/v1/check?q=anthropic|/api/v1/status"
  # A caller reporting its own error is answered afresh every time (never
  # from the answers held a second): the engine's whole cost.
  "check?q=claude&error=529 (Anthropic down, afresh)²³|/api/v1/check?q=claude&error=529|/api/v1/status"
  # A static file of about the filtered page's size, to tell the cost of
  # computing a response from the cost of its size.
  "openapi.json (static)|/api/v1/openapi.json|/api/v1/openapi.json"
)

echo "== checking that both servers answer"
for c in "${cases[@]}"; do
  IFS='|' read -r name apath npath <<<"$c"
  for url in "$ais$apath" "$ngx$npath"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
    [ "$code" = 200 ] || { echo "GET $url: $code" >&2; exit 1; }
  done
done
echo "   headers (aistatus, then nginx) for /api/v1/status:"
curl -s -o /dev/null -D - "$ais/api/v1/status" | grep -iE '^(content-type|license|cache-control|access-control-allow-origin|etag):' | sed 's/^/     /'
curl -s -o /dev/null -D - "$ngx/api/v1/status" | grep -iE '^(content-type|license|cache-control|access-control-allow-origin|etag):' | sed 's/^/     /'

echo "== warming up (3 s each)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "$ais/api/v1/status" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "$ngx/api/v1/status" >/dev/null

# to_ms converts a wrk latency (850.00us, 1.20ms, 1.05s) to milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0
    if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /m$/) n *= 60000; else if (v ~ /s$/) n *= 1000
    printf "%.3f", n }'
}

# cpu_ticks PID...: the CPU time (user + system, clock ticks) the processes used.
cpu_ticks() {
  local p t=0
  for p in "$@"; do
    t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
  done
  echo "$t"
}

# measure URL PID... → "req/s p50ms p99ms cpu": cpu is the servers' (PIDs)
# CPU time per request in µs — steadier than req/s on a shared machine.
# Fails on non-2xx/3xx answers; reports socket errors (timeouts on huge
# responses) without failing.
measure() {
  local url=$1 out rps p50 p99 n t0 t1
  shift
  t0=$(cpu_ticks "$@")
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency ${HEADER:+-H "$HEADER"} "$url")
  t1=$(cpu_ticks "$@")
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "wrk got error responses from $url:" >&2
    echo "$out" >&2
    return 1
  fi
  if grep -q 'Socket errors' <<<"$out"; then
    echo "   note: $url: $(grep 'Socket errors' <<<"$out" | xargs)" >&2
  fi
  rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
  p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
  p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
  n=$(awk '/ requests in / { print $1 }' <<<"$out")
  echo "$rps $p50 $p99 $(awk -v d=$((t1 - t0)) -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", d / hz * 1e6 / n }')"
}

echo "== measuring: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, each endpoint, each server"
rows=()
static_rps=""
for c in "${cases[@]}"; do
  IFS='|' read -r name apath npath <<<"$c"
  size=$(curl -s -o /dev/null -w '%{size_download}' "$ais$apath")
  a=$(measure "$ais$apath" "$ais_pid")
  n=$(measure "$ngx$npath" "${nginx_pids[@]}")
  [ -n "$static_rps" ] || static_rps=${a%% *}
  rows+=("$name|$size $a $n")
done

# The latency of filtering 100 000 incidents without queueing behind other
# connections: one connection, one request at a time, identity and gzip.
incidents="$ais/api/v1/incidents?service=openai&severity=major&since=$since"
one=$(THREADS=1 CONNECTIONS=1 measure "$incidents" "$ais_pid")
gz=$(THREADS=1 CONNECTIONS=1 HEADER='Accept-Encoding: gzip' measure "$incidents" "$ais_pid")
read -r _ one_p50 one_p99 _ <<<"$one"
read -r _ gz_p50 gz_p99 _ <<<"$gz"

echo
echo "$CORES cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)), shared by wrk, nginx and aistatus;" \
  "$(awk '{ print $1 }' /proc/loadavg) load average (1 min) at the end."
echo
echo "| endpoint | body (aistatus) | aistatus req/s | p50 ms | p99 ms | CPU µs/req | nginx req/s | p50 ms | p99 ms | CPU µs/req | aistatus/nginx req/s | vs our /status |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for r in "${rows[@]}"; do
  IFS='|' read -r name numbers <<<"$r"
  read -r size a_rps a_p50 a_p99 a_cpu n_rps n_p50 n_p99 n_cpu <<<"$numbers"
  printf '| %s | %s B | %.0f | %.2f | %.2f | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f | %.2f |\n' \
    "$name" "$size" "$a_rps" "$a_p50" "$a_p99" "$a_cpu" "$n_rps" "$n_p50" "$n_p99" "$n_cpu" \
    "$(awk -v a="$a_rps" -v n="$n_rps" 'BEGIN { print a / n }')" \
    "$(awk -v a="$a_rps" -v s="$static_rps" 'BEGIN { print a / s }')"
done
echo
echo "¹ nginx cannot filter: it serves the whole incidents.json ($(du -h "$work/public/incidents.json" | cut -f1)), the closest static equivalent."
echo "² nginx has no /check: its column is static status.json, the baseline a static host offers."
echo "³ with error=, /check is never answered from the answers held a second: each request runs the engine."
echo "  \"vs our /status\" is aistatus's req/s on that row over its own static /api/v1/status."
echo
echo "/incidents filtered, one connection (wrk -t1 -c1): p50 $one_p50 ms, p99 $one_p99 ms;" \
  "with Accept-Encoding: gzip: p50 $gz_p50 ms, p99 $gz_p99 ms."

# --- yardstick: a minimal net/http handler ---------------------------------------
# The same status.json bytes with the same four headers from the least Go
# code that can serve them, beside aistatus with its access log off (as
# above) and with every setting at its default (the access log on, to a
# file; the rate limit on, which /status.json, a file of the snapshot, is
# not under), and nginx, all asked for GET /status.json one after the other
# in this run.
"$work/minimal" -file "$work/public/status.json" -addr "127.0.0.1:$min_port" &
min_pid=$!
pids+=("$min_pid")
# The same handler sending every header aistatus sends: what the API's
# headers cost net/http, told apart from what our code costs.
"$work/minimal" -file "$work/public/status.json" -addr "127.0.0.1:$minall_port" -all-headers &
minall_pid=$!
pids+=("$minall_pid")
"$work/aistatus" serve --dir "$work/public" --addr "127.0.0.1:$log_port" \
  --catalog "$work/catalog.json" 2>"$work/access.log" &
log_pid=$!
pids+=("$log_pid")
mini="http://127.0.0.1:$min_port"
minall="http://127.0.0.1:$minall_port"
logged="http://127.0.0.1:$log_port"
wait_ok "$mini/status.json"
wait_ok "$minall/status.json"
wait_ok "$logged/status.json"
echo
echo "== status.json: minimal net/http handler, aistatus (access log off, on), nginx"
echo "   headers (minimal):"
curl -s -o /dev/null -D - "$mini/status.json" | grep -iE '^(content-type|license|cache-control|access-control-allow-origin):' | sed 's/^/     /'
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "$mini/status.json" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "$logged/status.json" >/dev/null
# Interleaved rounds, medians: on a shared machine one run of each swings by
# a third with what else runs.
declare -A runs=()
for ((round = 1; round <= ROUNDS; round++)); do
  runs[min]+="$(measure "$mini/status.json" "$min_pid")|"
  runs[minall]+="$(measure "$minall/status.json" "$minall_pid")|"
  runs[off]+="$(measure "$ais/status.json" "$ais_pid")|"
  runs[on]+="$(measure "$logged/status.json" "$log_pid")|"
  runs[ngx]+="$(measure "$ngx/status.json" "${nginx_pids[@]}")|"
done
# median FIELD RUNS: the median of field FIELD (1 req/s, 2 p50, 3 p99, 4 CPU)
# over the |-separated runs.
median() {
  tr '|' '\n' <<<"$2" | awk -v f="$1" 'NF { print $f }' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
echo
echo "| server (status.json, $(curl -s -o /dev/null -w '%{size_download}' "$mini/status.json") B), median of $ROUNDS | req/s | p50 ms | p99 ms | CPU µs/req | ÷ minimal req/s | minimal CPU ÷ this CPU |"
echo "|---|--:|--:|--:|--:|--:|--:|"
m_rps=$(median 1 "${runs[min]}")
m_cpu=$(median 4 "${runs[min]}")
for r in "minimal net/http|min" "minimal, all of aistatus's headers|minall" "aistatus, --access-log=false|off" "aistatus, default settings (access log on)|on" "nginx|ngx"; do
  IFS='|' read -r name key <<<"$r"
  rps=$(median 1 "${runs[$key]}")
  cpu=$(median 4 "${runs[$key]}")
  printf '| %s | %.0f | %.2f | %.2f | %.0f | %.2f | %.2f |\n' "$name" "$rps" "$(median 2 "${runs[$key]}")" \
    "$(median 3 "${runs[$key]}")" "$cpu" \
    "$(awk -v a="$rps" -v m="$m_rps" 'BEGIN { print a / m }')" "$(awk -v a="$cpu" -v m="$m_cpu" 'BEGIN { print m / a }')"
done
echo
# ratio A B: the median over the rounds of A's req/s over B's in the same
# round (steadier than a ratio of medians when the machine drifts).
# In brackets, the range of the middle half of the rounds' ratios: how far
# one run's figure can be trusted on this machine.
ratio() {
  paste -d' ' <(tr '|' '\n' <<<"${runs[$1]}" | awk 'NF { print $1 }') <(tr '|' '\n' <<<"${runs[$2]}" | awk 'NF { print $1 }') |
    awk '{ print $1 / $2 }' | sort -g |
    awk '{ v[NR] = $1 } END {
      q = int((NR + 3) / 4)
      printf "%.2f [%.2f–%.2f]", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[q], v[NR + 1 - q]
    }'
}
echo "req/s ratios, median of the per-round ratios [the middle half of them]:"
echo "  aistatus / minimal: $(ratio off min) (access log off), $(ratio on min) (on, the default)"
echo "  aistatus / minimal with all of aistatus's headers: $(ratio off minall) (off), $(ratio on minall) (on)"
echo "  minimal with all headers / minimal: $(ratio minall min); minimal / nginx: $(ratio min ngx)"
kill "$min_pid" "$minall_pid" "$log_pid"

# --- replicas: one `serve --redis` against three ------------------------------------
# Three replicas sharing one Redis, with a limit no client reaches (so every
# request pays the shared limiter's Redis round trip and none is refused),
# each loaded by its own wrk with a third of the connections, all at once;
# then one replica alone with all the connections. Same machine: this shows
# what replication costs and what Redis costs, not how it scales on more cores.
for p in "${rports[@]}"; do wait_ok "http://127.0.0.1:$p/api/v1/status"; done
curl -s -D - -o /dev/null "http://127.0.0.1:$r1_port/api/v1/status" | grep -i '^ratelimit:' | sed 's/^/   shared limiter: /'

# parallel_wrk URL...: one wrk per URL at once, CONNECTIONS and THREADS split
# between them; prints "total-req/s worst-p99-ms replicas-CPU-µs/req
# Redis-CPU-µs/req".
parallel_wrk() {
  local n=$# c t t0 t1 r0 r1 i total=0 p99=0 reqs=0 out wrks=()
  c=$((CONNECTIONS / n))
  t=$((THREADS / n))
  ((t > 0)) || t=1
  t0=$(cpu_ticks "${rpids[@]}")
  r0=$(cpu_ticks "$redis_pid")
  i=0
  for url in "$@"; do
    wrk -t"$t" -c"$c" -d"$DURATION" --timeout 10s --latency "$url" >"$work/wrk.$i" &
    wrks+=($!)
    i=$((i + 1))
  done
  wait "${wrks[@]}"
  t1=$(cpu_ticks "${rpids[@]}")
  r1=$(cpu_ticks "$redis_pid")
  for ((i = 0; i < n; i++)); do
    out=$(cat "$work/wrk.$i")
    if grep -q 'Non-2xx' <<<"$out"; then
      echo "wrk got error responses:" >&2
      echo "$out" >&2
      return 1
    fi
    total=$(awk -v t="$total" -v r="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")" 'BEGIN { print t + r }')
    p99=$(awk -v a="$p99" -v b="$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")" 'BEGIN { print (b > a ? b : a) }')
    reqs=$((reqs + $(awk '/ requests in / { print $1 }' <<<"$out")))
  done
  echo "$total $p99 $(awk -v d=$((t1 - t0)) -v n="$reqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", d / hz * 1e6 / n }')" \
    "$(awk -v d=$((r1 - r0)) -v n="$reqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", d / hz * 1e6 / n }')"
}
echo
echo "== replicas: three serve --redis, each with its own wrk (-c$((CONNECTIONS / 3))) at once; then one with -c$CONNECTIONS"
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "http://127.0.0.1:$r1_port/api/v1/status" >/dev/null
three=$(parallel_wrk "http://127.0.0.1:$r1_port/api/v1/status" "http://127.0.0.1:$r2_port/api/v1/status" "http://127.0.0.1:$r3_port/api/v1/status")
one=$(parallel_wrk "http://127.0.0.1:$r1_port/api/v1/status")
echo
echo "| /api/v1/status, limiter in Redis | req/s (total) | p99 ms (worst) | serve CPU µs/req | Redis CPU µs/req |"
echo "|---|--:|--:|--:|--:|"
read -r o_rps o_p99 o_cpu o_redis <<<"$one"
read -r t_rps t_p99 t_cpu t_redis <<<"$three"
printf '| one serve --redis | %.0f | %.2f | %.0f | %.0f |\n' "$o_rps" "$o_p99" "$o_cpu" "$o_redis"
printf '| three serve --redis | %.0f | %.2f | %.0f | %.0f |\n' "$t_rps" "$t_p99" "$t_cpu" "$t_redis"
printf '| (one serve, no Redis, limiter off: the status row above) | %.0f | | | |\n' "${static_rps}"
