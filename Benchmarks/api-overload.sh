#!/usr/bin/env bash
# Drives `herald serve` far past what it can serve with wrk and checks that it degrades the way it promises: no
# answer but 200 or 503 (with Retry-After), no request held past its 5 s database budget, and full service within
# seconds once the load stops.
#
#   Benchmarks/api-overload.sh                     # 4 connections, then 2000, then 4 again, on a pool of 2 sessions
#   CONNECTIONS=3000 SECONDS_EACH=30 POOL=4 Benchmarks/api-overload.sh
#
# The route is GET /api/v1/logs?limit=100: one API-key check and one log query per request (statistics would share
# their answers between requests), so the database sessions are what runs out. `herald dev` provides PostgreSQL and the key; a second process, `herald
# serve --no-deliver`, is the one measured. Environment: HERALD (the binary; default the release build if there
# is one, else the debug build), CONNECTIONS (2000), SECONDS_EACH (20), POOL (2). Prints the figures and exits 1
# if a promise is broken.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-2000}
SECONDS_EACH=${SECONDS_EACH:-20}
POOL=${POOL:-2}
herald=${HERALD:-}
if [[ -z "$herald" ]]; then
    herald=.build/debug/herald
    [[ -x .build-release/release/herald ]] && herald=.build-release/release/herald
fi
command -v wrk >/dev/null || { echo "wrk not found: apt-get install wrk" >&2; exit 1; }

work="$(mktemp -d /tmp/herald-overload-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

source Benchmarks/lib/wait-for.sh

"$herald" dev --data-dir "$work/dev" --port 0 > "$work/dev.log" 2>&1 &
pids+=($!)
wait_for "$work/dev.log" "API key"
database="$(grep -o 'postgres://[^ ]*' "$work/dev.log" | head -1)"
key="$(grep -o 'hk_[A-Za-z0-9_-]*' "$work/dev.log" | head -1)"

# One key makes every request, so its rate limit is lifted: what is measured is shedding load, not the limit.
DATABASE_URL="$database" HERALD_RATE_LIMIT_PER_SECOND=1000000 "$herald" serve --no-deliver --port 0 --database-pool-size "$POOL" > "$work/serve.log" 2>&1 &
pids+=($!)
wait_for "$work/serve.log" 'serving on 127\.0\.0\.1:[0-9]+'
port="$(grep -oE 'serving on 127\.0\.0\.1:[0-9]+' "$work/serve.log" | head -1 | cut -d: -f2)"
url="http://127.0.0.1:$port/api/v1/logs?limit=100"

load() { # CONNECTIONS SECONDS
    wrk -t2 -c"$1" -d"$2"s --timeout 30s -s Benchmarks/lib/count.lua -H "Authorization: Bearer $key" "$url" |
        sed -n '/^status\|^requests\/s\|^latency ms\|^socket errors/p'
}
rate() { grep '^requests/s' | awk '{print $2}'; }

echo "== sustainable: 4 connections, $((SECONDS_EACH / 2)) s (herald: $herald, pool: $POOL sessions)"
before="$(load 4 $((SECONDS_EACH / 2)))"
echo "$before"

echo "== overload: $CONNECTIONS connections, $SECONDS_EACH s"
mark=$(wc -l < "$work/serve.log")
during="$(load "$CONNECTIONS" "$SECONDS_EACH")"
echo "$during"
longest=$(tail -n +"$mark" "$work/serve.log" | grep -o 'http.duration_ms=[0-9]*' | cut -d= -f2 | sort -n | tail -1)
echo "longest request inside Herald: ${longest:-0} ms"

echo "== after the load"
started=$(date +%s%N)
until [[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "$url")" == 200 ]]; do
    sleep 0.1
done
recovered_ms=$(( ($(date +%s%N) - started) / 1000000 ))
echo "first 200 after ${recovered_ms} ms"
after="$(load 4 $((SECONDS_EACH / 2)))"
echo "$after"
awk -v b="$(rate <<< "$before")" -v a="$(rate <<< "$after")" 'BEGIN { printf "rate after / before: %.2f\n", a / b }'

broken=0
if grep -E '^status [0-9]+' <<< "$during$before$after" | grep -vqE '^status (200|503):'; then
    echo "BROKEN: an answer other than 200 or 503" >&2
    broken=1
fi
if (( ${longest:-0} > 6000 )); then
    echo "BROKEN: a request stayed in Herald past its 5 s budget" >&2
    broken=1
fi
if (( recovered_ms > 5000 )); then
    echo "BROKEN: no full service within 5 s of the load stopping" >&2
    broken=1
fi
exit $broken
