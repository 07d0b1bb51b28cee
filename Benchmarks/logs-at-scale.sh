#!/usr/bin/env bash
# The delivery log at scale: a month of traffic (10 million log rows over 30 days; a finished delivery's record is
# its final log row), then the latency of the log and stats reads the dashboard and backends make, and a prune.
#
#   Benchmarks/logs-at-scale.sh                           # builds the release `herald` first
#   BIN=.build-logs-release/release Benchmarks/logs-at-scale.sh
#   ROWS=1000000 REQUESTS=50 Benchmarks/logs-at-scale.sh  # a quick, smaller run
#
# It starts a throwaway PostgreSQL 15 cluster (as the `postgres` account when run as root, since PostgreSQL refuses
# root) with its durable defaults (fsync and synchronous_commit on, shared_buffers as initdb sizes it) except
# max_wal_size=8GB, so loading is not one checkpoint after another; migrates it with `herald migrate up`; makes the
# past days' partitions and loads the rows with SQL (Benchmarks/logs-at-scale/setup.sql says how); runs VACUUM
# ANALYZE on every table (what autovacuum does for a month-old database); starts `herald serve --no-deliver`
# against it; creates a read API key; then times REQUESTS requests of each kind with curl on one kept-alive
# connection, after 20 of each to warm up:
#
#   logs by user          GET /api/v1/logs?userId=U                          a different user each time
#   logs by notification  GET /api/v1/logs?notificationId=N                  a different notification each time
#   logs by status since  GET /api/v1/logs?status=S&since=T                  failed, token_expired, retrying, expired;
#                                                                            since 1 hour, 1 day, 7 days ago
#   stats 24h             GET /api/v1/stats?window=24h
#   stats 24h, 24 buckets GET /api/v1/stats?window=24h&buckets=24           what the dashboard asks for
#
# and prints p50 and p99 (nearest rank) of each, then runs `herald prune --older-than 20d` and prints its time and its
# line.
#
# Environment: BIN (folder of an already built `herald`), ROWS (10000000), DAYS (30), USERS (100000), DEVICES (2 per
# user), NOTIFICATIONS (ROWS / 20), PROJECTS (2000), REQUESTS (200), KEEP=1 keeps the cluster's folder.
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-200}
WARMUP=20

for tool in curl psql; do
    command -v "$tool" >/dev/null || { echo "$tool not found (apt-get install curl postgresql-client)" >&2; exit 1; }
done

if [[ -z "${BIN:-}" ]]; then
    echo "== building the release herald"
    HERALD_BENCHMARKS=1 swift build -c release --scratch-path .build-logs-release --product herald
    BIN=.build-logs-release/release
fi
herald="$(cd "$BIN" && pwd)/herald"
[[ -x "$herald" ]] || { echo "no herald in $BIN" >&2; exit 1; }

started=$(date +%s)
clock() { echo "[$(($(date +%s) - started)) s] $*"; }

work="$(mktemp -d /tmp/herald-logs-at-scale-XXXXXX)"
source Benchmarks/lib/log-cluster.sh
trap cleanup EXIT

start_log_cluster
load_log_rows
psql -X -At -F ' ' -c "
    SELECT 'log rows: ' || (SELECT count(*) FROM push_notification_logs)
        || ', in the default partition: ' || (SELECT count(*) FROM push_notification_logs_default)
        || ', day partitions: ' || (SELECT count(*) - 1 FROM pg_inherits
            WHERE inhparent = 'push_notification_logs'::regclass)
        || ', log size: ' || pg_size_pretty((SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
            WHERE inhparent = 'push_notification_logs'::regclass))
"

# One key makes every request, back to back: the rate limit is lifted and statistics answers are not shared between
# requests, so it times the queries, not the limit or a shared answer.
DATABASE_URL="$url" HERALD_RATE_LIMIT_PER_SECOND=1000000 HERALD_STATS_SHARE_SECONDS=0 "$herald" serve --no-deliver \
    --port 0 >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do
    grep -qsE 'serving on 127\.0\.0\.1:[0-9]+' "$work/serve.log" && break
    sleep 0.5
done
api_port="$(grep -m1 -oE 'serving on 127\.0\.0\.1:[0-9]+' "$work/serve.log" | cut -d: -f2 || true)"
[[ -n "$api_port" ]] || { cat "$work/serve.log" >&2; exit 1; }
key="$("$herald" keys create --name logs-at-scale --scope read --database-url "$url" | sed -n 1p)"
base="http://127.0.0.1:$api_port/api/v1"
clock "herald serve on port $api_port"

rfc3339() { date -u -d "$1" +%Y-%m-%dT%H:%M:%SZ; }
total=$((WARMUP + REQUESTS))
mapfile -t users < <(psql -X -At -c "SELECT external_id FROM users ORDER BY random() LIMIT $total")
mapfile -t notifications < <(psql -X -At -c "SELECT id FROM notifications ORDER BY random() LIMIT $total")
statuses=(failed token_expired retrying expired)
windows=("$(rfc3339 '1 hour ago')" "$(rfc3339 '1 day ago')" "$(rfc3339 '7 days ago')")

# One curl for all requests of a kind (one kept-alive connection); each line: HTTP status and seconds.
measure() { # LABEL GOAL_MS URL...
    local label=$1 goal=$2
    shift 2
    local config="$work/curl.conf" url
    : >"$config"
    for url in "$@"; do printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >>"$config"; done
    curl -sS -K "$config" -H "Authorization: Bearer $key" -w '%{http_code} %{time_total}\n' >"$work/times"
    if grep -vq '^200 ' "$work/times"; then
        echo "$label: an answer other than 200:" >&2
        sort "$work/times" | uniq -c -w 3 >&2
        exit 1
    fi
    tail -n +$((WARMUP + 1)) "$work/times" | awk '{ print $2 * 1000 }' | sort -n | awk -v label="$label" -v goal="$goal" '
        { t[NR] = $1 }
        END {
            p50 = t[int((NR * 50 + 99) / 100)]; p99 = t[int((NR * 99 + 99) / 100)]
            printf "%s: p50 %.1f ms, p99 %.1f ms (goal < %d ms, %d requests)\n", label, p50, p99, goal, NR
        }'
}

urls=()
for i in $(seq 0 $((total - 1))); do urls+=("$base/logs?userId=${users[$i]}"); done
measure "logs by user" 50 "${urls[@]}"
urls=()
for i in $(seq 0 $((total - 1))); do urls+=("$base/logs?notificationId=${notifications[$i]}"); done
measure "logs by notification" 50 "${urls[@]}"
urls=()
for i in $(seq 0 $((total - 1))); do
    urls+=("$base/logs?status=${statuses[$((i % 4))]}&since=${windows[$((i % 3))]}")
done
measure "logs by status since" 50 "${urls[@]}"
urls=()
for _ in $(seq 1 "$total"); do urls+=("$base/stats?window=24h"); done
measure "stats 24h" 50 "${urls[@]}"
urls=()
for _ in $(seq 1 "$total"); do urls+=("$base/stats?window=24h&buckets=24"); done
measure "stats 24h, 24 buckets (the dashboard's)" 50 "${urls[@]}"

t=$(date +%s%N)
pruned="$("$herald" prune --older-than 20d --database-url "$url")"
echo "prune --older-than 20d: $(awk -v ms="$(ms_since "$t")" 'BEGIN { printf "%.1f", ms / 1000 }') s, $pruned"
clock "done"
