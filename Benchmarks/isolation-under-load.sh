#!/usr/bin/env bash
# Isolation under load: delivery keeps its pace and valid requests their latency while anonymous callers hammer the
# API with a garbage key and a read key asks for the costliest statistics in a loop.
#
#   Benchmarks/isolation-under-load.sh                               # builds the release herald and apns-mock first
#   BIN=.build-release/release Benchmarks/isolation-under-load.sh
#   ROWS=1000000 FANOUT=5000 Benchmarks/isolation-under-load.sh      # a quick, smaller run
#
# It loads a month of delivery log (ROWS rows, as Benchmarks/logs-at-scale.sh does), starts apns-mock and `herald
# serve` delivering to it, and sends one notification to FANOUT devices (FANOUT / 50 users of 50 devices) twice:
#
#   idle     nothing else runs;
#   loaded   wrk keeps GARBAGE (500) connections asking GET /api/v1/logs with `Bearer hk_` and 20 garbage characters,
#            and a read key polls GET /api/v1/stats?window=90d&buckets=500 in a loop on one kept-alive connection,
#            for the whole send.
#
# Each send's rate is its devices over the time from the POST until every delivery has its final log row. During
# the loaded send, a valid read key also times REQUESTS requests of GET /api/v1/logs?userId=U on one kept-alive
# connection. Prints both rates, their ratio (goal ≥ 0.8), the valid requests' p50 and p99 (goal p99 < 250 ms), and
# what the garbage and statistics callers were answered.
#
# Environment: BIN (folder of already built `herald` and `apns-mock`), ROWS (10000000), FANOUT (20000), GARBAGE (500;
# 0 for no garbage flood), STATS (1; 0 for no statistics poller), REQUESTS (200), and logs-at-scale's DAYS, USERS,
# DEVICES, NOTIFICATIONS, PROJECTS; KEEP=1 keeps the folder.
set -euo pipefail
cd "$(dirname "$0")/.."

FANOUT=${FANOUT:-20000}
GARBAGE=${GARBAGE:-500}
STATS=${STATS:-1}
REQUESTS=${REQUESTS:-200}
PER_USER=50

for tool in curl psql wrk openssl; do
    command -v "$tool" >/dev/null || { echo "$tool not found (apt-get install curl postgresql-client wrk openssl)" >&2; exit 1; }
done
if [[ -z "${BIN:-}" ]]; then
    echo "== building the release herald and apns-mock"
    for product in herald apns-mock; do
        HERALD_BENCHMARKS=1 swift build -c release --scratch-path .build-release --product "$product"
    done
    BIN=.build-release/release
fi
herald="$(cd "$BIN" && pwd)/herald"
mock="$(cd "$BIN" && pwd)/apns-mock"
[[ -x "$herald" && -x "$mock" ]] || { echo "no herald or apns-mock in $BIN" >&2; exit 1; }

started=$(date +%s)
clock() { echo "[$(($(date +%s) - started)) s] $*"; }

work="$(mktemp -d /tmp/herald-isolation-XXXXXX)"
source Benchmarks/lib/log-cluster.sh
trap cleanup EXIT

source Benchmarks/lib/wait-for.sh

start_log_cluster
load_log_rows

# The audience: FANOUT / 50 users of 50 devices each, in the default app.
fan_users=$((FANOUT / PER_USER))
psql -q -X -v fan_users="$fan_users" -v per_user="$PER_USER" <<'SQL'
INSERT INTO users (external_id, email, name)
SELECT 'fan-' || u, 'fan' || u || '@example.com', 'Fan ' || u FROM generate_series(1, :fan_users) AS u;
INSERT INTO device_tokens (user_id, token, platform, environment, topic, registered_at)
SELECT users.id, md5('fan-token-a-' || users.external_id || '-' || d) || md5('fan-token-b-' || users.external_id || '-' || d),
    'iOS', 'sandbox', 'bench.isolation', now()
FROM users CROSS JOIN generate_series(1, :per_user) AS d WHERE users.external_id LIKE 'fan-%';
SQL
clock "audience: $fan_users users, $((fan_users * PER_USER)) devices"

openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
"$mock" --port 0 --team-id TEAM123456 --key-id KEY1234567 --key-file "$work/key.p8" --cert-out "$work/ca.pem" \
    >"$work/mock.log" 2>&1 &
pids+=($!)
wait_for "$work/mock.log" 'listening on 127\.0\.0\.1:[0-9]+'
mock_port="$(grep -m1 -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/mock.log" | cut -d: -f2)"

DATABASE_URL="$url" APNS_KEY_ID=KEY1234567 APNS_TEAM_ID=TEAM123456 APNS_KEY_PATH="$work/key.p8" \
    APNS_BUNDLE_ID=bench.isolation HERALD_APNS_HOST=127.0.0.1 HERALD_APNS_PORT="$mock_port" \
    HERALD_APNS_CA_FILE="$work/ca.pem" \
    "$herald" serve --port 0 >"$work/serve.log" 2>&1 &
pids+=($!)
wait_for "$work/serve.log" 'serving on 127\.0\.0\.1:[0-9]+'
api_port="$(grep -m1 -oE 'serving on 127\.0\.0\.1:[0-9]+' "$work/serve.log" | cut -d: -f2)"
base="http://127.0.0.1:$api_port/api/v1"
send_key="$("$herald" keys create --name isolation-send --scope send --database-url "$url" | sed -n 1p)"
read_key="$("$herald" keys create --name isolation-read --scope read --rate-limit 1000 --database-url "$url" | sed -n 1p)"
poll_key="$("$herald" keys create --name isolation-stats --scope read --database-url "$url" | sed -n 1p)"
clock "apns-mock on port $mock_port, herald serve on port $api_port"

audience="$(seq 1 "$fan_users" | sed 's/^/"fan-/; s/$/"/' | paste -sd,)"
# Sends one notification to the audience; prints deliveries per second until every one has its final log row.
fan_out() { # LABEL
    local t id done_count
    t=$(date +%s%N)
    id="$(curl -sS --fail-with-body "$base/notifications" -H "Authorization: Bearer $send_key" \
        -H 'Content-Type: application/json' -d "{\"userIds\":[$audience],\"alert\":{\"body\":\"$1\"}}" |
        sed -E 's/.*"id" *: *"([^"]+)".*/\1/')"
    while :; do
        done_count="$(psql -X -At -c "SELECT count(*) FROM push_notification_logs
            WHERE notification_id = '$id' AND status <> 'retrying'")"
        ((done_count >= fan_users * PER_USER)) && break
        (($(ms_since "$t") > 600000)) && { echo "$1: only $done_count deliveries finished in 10 minutes" >&2; exit 1; }
        sleep 0.2
    done
    awk -v n="$done_count" -v ms="$(ms_since "$t")" 'BEGIN { printf "%.0f\n", n / (ms / 1000) }'
}

idle_rate="$(fan_out idle)"
clock "idle: $idle_rate deliveries/s"

# The load runs for a fixed time (wrk stops only so and prints its counts then) long enough to cover the loaded
# send even at a fifth of the idle rate.
load_seconds=$((5 * fan_users * PER_USER / idle_rate + 20))

garbage="hk_$(head -c 15 /dev/urandom | base64 | tr '+/' '-_')"
if ((GARBAGE > 0)); then
    wrk -t2 -c"$GARBAGE" -d"$load_seconds"s --timeout 30s -s Benchmarks/lib/count.lua \
        -H "Authorization: Bearer $garbage" "$base/logs" >"$work/wrk.log" 2>&1 &
else
    sleep "$load_seconds" &
fi
load_pid=$!
# The poller asks again as soon as it is answered, on one kept-alive connection (a curl process per 100 requests),
# so what it costs is Herald's answers rather than a process started per request.
polls="$work/polls.conf"
for _ in $(seq 100); do printf 'url = "%s"\noutput = "/dev/null"\n' "$base/stats?window=90d&buckets=500" >>"$polls"; done
(
    while ((STATS > 0)) && kill -0 "$load_pid" 2>/dev/null; do
        curl -s -K "$polls" -H "Authorization: Bearer $poll_key" -w '%{http_code}\n' || echo 000
    done
) >"$work/stats.log" &
poller_pid=$!
sleep 2

mapfile -t users < <(psql -X -At -c "SELECT external_id FROM users ORDER BY random() LIMIT $REQUESTS")
config="$work/curl.conf"
: >"$config"
for user in "${users[@]}"; do printf 'url = "%s"\noutput = "/dev/null"\n' "$base/logs?userId=$user" >>"$config"; done
curl -sS -K "$config" -H "Authorization: Bearer $read_key" -w '%{http_code} %{time_total}\n' >"$work/times" &
valid_pid=$!
loaded_rate="$(fan_out loaded)"
wait "$valid_pid"
clock "loaded: $loaded_rate deliveries/s"
wait "$load_pid" "$poller_pid"
clock "load stopped"

echo "valid requests: $(cut -d' ' -f1 "$work/times" | sort | uniq -c | awk '{ printf "%s%s × %s", sep, $1, $2; sep = ", " }')"
awk '{ print $2 * 1000 }' "$work/times" | sort -n | awk '
    { t[NR] = $1 }
    END { printf "valid requests under load: p50 %.1f ms, p99 %.1f ms (goal p99 < 250 ms, %d requests)\n",
        t[int((NR * 50 + 99) / 100)], t[int((NR * 99 + 99) / 100)], NR }'
[[ -f "$work/wrk.log" ]] && sed -n 's/^\(status\|requests\/s\|latency ms\|socket errors\)/garbage key: &/p' "$work/wrk.log"
echo "stats 90d × 500 buckets: $(sort "$work/stats.log" | uniq -c | awk '{ printf "%s%s × %s", sep, $1, $2; sep = ", " }')"
awk -v idle="$idle_rate" -v loaded="$loaded_rate" -v n="$((fan_users * PER_USER))" 'BEGIN {
    printf "delivery under load: %d deliveries, idle %d/s, loaded %d/s, ratio %.2f (goal ≥ 0.8)\n", n, idle, loaded,
        loaded / idle }'
clock "done"
