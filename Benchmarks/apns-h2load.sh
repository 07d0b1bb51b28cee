#!/usr/bin/env bash
# Compares Herald's APNs client with h2load (nghttp2-client) against the same server, with the same
# provider token, payload, request count, connection count and stream limit, and prints both rates.
#
#   Benchmarks/apns-h2load.sh                      # 7 rounds of 100000 pushes over 2 connections, nghttpd
#   SERVER=mock Benchmarks/apns-h2load.sh          # against apns-mock (swift-nio) instead
#   REQUESTS=200000 CONNECTIONS=4 ROUNDS=5 Benchmarks/apns-h2load.sh
#
# SERVER=nghttpd (the default, Debian's nghttp2-server) is a C server that is not the bottleneck: it answers
# 404, which costs client and h2load the same, so the ratio measures the client. SERVER=mock checks the whole
# exchange Apple's way (token, topic, 200 answers), but the mock is then the ceiling for both.
# Each round starts a fresh server, runs the client, then h2load with the token the client used, and prints the
# server's CPU time per request under each: a server near a whole core is the limit of that run.
# h2load refills a stream the moment it is answered. The client is driven the way the delivery engine sends
# (apns-bench's default): senders of BATCH (500) pushes each hand them over through one send window, up to
# CONNECTIONS × STREAMS in flight, a push leaving as soon as an earlier one is answered, each sender taking its
# next batch once the last is all with the pool.
# The ratio is the median of the rounds' ratios: a client and its h2load run follow each other, so a machine that
# speeds up or slows down between rounds moves both.
# Environment: SERVER (nghttpd), REQUESTS (100000), CONNECTIONS (2), STREAMS per connection (1000), BATCH (500),
# ROUNDS (7), PORT (9444), SCRATCH (.build-apns-release), BIN (skip building and use the binaries there),
# CLIENT_ARGS (more apns-bench options, such as --window-headroom 2).
set -euo pipefail

REQUESTS=${REQUESTS:-100000}
CONNECTIONS=${CONNECTIONS:-2}
STREAMS=${STREAMS:-1000}
BATCH=${BATCH:-500}
ROUNDS=${ROUNDS:-7}
SERVER=${SERVER:-nghttpd}
PORT=${PORT:-9444}
# Pushes each client sends before it is measured; the server's CPU under the client includes them.
WARMUP=2000
SCRATCH=${SCRATCH:-.build-apns-release}
TEAM=TEAM123456
KEY_ID=BENCHKEY01
TOPIC=com.example.herald
DEVICE=$(printf 'ab%.0s' $(seq 32))

cd "$(dirname "$0")/.."
command -v h2load >/dev/null || { echo "h2load not found: apt-get install nghttp2-client" >&2; exit 1; }
case "$SERVER" in
mock) ;;
nghttpd) command -v nghttpd >/dev/null || { echo "nghttpd not found: apt-get install nghttp2-server" >&2; exit 1; } ;;
*) echo "SERVER must be nghttpd or mock" >&2; exit 1 ;;
esac

if [[ -z "${BIN:-}" ]]; then
    HERALD_BENCHMARKS=1 swift build -c release --scratch-path "$SCRATCH" --product apns-mock >&2
    HERALD_BENCHMARKS=1 swift build -c release --scratch-path "$SCRATCH" --product apns-bench >&2
    BIN=$(HERALD_BENCHMARKS=1 swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
fi

WORK=$(mktemp -d)
SERVER_PID=
stop_server() {
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# A throwaway signing key, made now and deleted on exit.
openssl ecparam -genkey -name prime256v1 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/key.p8"
# Seed 004 §9.3's example payload.
printf '%s' '{"actionUrl":"feedbackkit://feedback/550e8400-e29b-41d4-a716-446655440000","aps":{"alert":{"body":"Feature request: Dark mode support","title":"New Feedback"},"badge":1,"mutable-content":1,"sound":"default"},"feedbackId":"550e8400-e29b-41d4-a716-446655440000","projectId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","type":"new_feedback"}' >"$WORK/payload.json"

# nghttpd's certificate: self-signed for 127.0.0.1, trusted by the client as its CA file.
if [[ "$SERVER" == nghttpd ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/server-key.pem" -out "$WORK/ca.pem" 2>/dev/null
    mkdir "$WORK/htdocs"
fi

# The server's user and system CPU so far, in clock ticks.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
TICK=$(getconf CLK_TCK)
# Microseconds of server CPU per request between two tick counts.
per_request() { awk -v a="$1" -v b="$2" -v t="$TICK" -v n="$3" 'BEGIN { printf "%.2f", (b - a) * 1e6 / t / n }'; }

start_server() {
    if [[ "$SERVER" == nghttpd ]]; then
        nghttpd --address=127.0.0.1 --max-concurrent-streams="$STREAMS" --htdocs="$WORK/htdocs" \
            "$PORT" "$WORK/server-key.pem" "$WORK/ca.pem" >"$WORK/server.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 100); do
            (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return
            sleep 0.1
        done
    else
        "$BIN/apns-mock" --port "$PORT" --team-id "$TEAM" --key-id "$KEY_ID" --key-file "$WORK/key.p8" \
            --bundle-id "$TOPIC" --cert-out "$WORK/ca.pem" --max-concurrent-streams "$STREAMS" \
            >"$WORK/server.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 100); do
            grep -q listening "$WORK/server.log" 2>/dev/null && return
            sleep 0.1
        done
    fi
    cat "$WORK/server.log" >&2
    exit 1
}

# The same token the client used, the same payload and headers, the same connections. h2load cannot vary
# apns-id per request, so it sends a fixed one (the mock then echoes it, as for the client, instead of
# generating one).
h2load_run() {
    h2load -n "$1" -c "$CONNECTIONS" -m "$STREAMS" -t 1 -d "$WORK/payload.json" \
        -H "authorization: bearer $(cat "$WORK/jwt")" -H "apns-topic: $TOPIC" -H "apns-push-type: alert" \
        -H "apns-priority: 10" -H "apns-id: 0b7ad9d4-6f6e-4a55-9a31-2f0d2c1f0e11" \
        "https://127.0.0.1:$PORT/3/device/$DEVICE"
}

echo "$SERVER: $REQUESTS pushes per run, $CONNECTIONS connections, up to $STREAMS streams each, batches of $BATCH, $ROUNDS rounds"
# nghttpd answers every request 404, the mock 200: anything else means a request went wrong.
EXPECTED_STATUS=$([[ "$SERVER" == nghttpd ]] && echo 404 || echo 200)
[[ "$SERVER" == nghttpd ]] && H2LOAD_CLASS=4xx || H2LOAD_CLASS=2xx

# Runs apns-bench with batches of $1; prints its summary line.
client_run() {
    local out
    out=$("$BIN/apns-bench" --port "$PORT" --ca-file "$WORK/ca.pem" --key-file "$WORK/key.p8" \
        --key-id "$KEY_ID" --team-id "$TEAM" --bundle-id "$TOPIC" --payload "$WORK/payload.json" \
        --requests "$REQUESTS" --connections "$CONNECTIONS" --in-flight $((CONNECTIONS * STREAMS)) --batch "$1" \
        --warmup "$WARMUP" --token-out "$WORK/jwt" ${CLIENT_ARGS:-})
    grep -q "answers $REQUESTS × $EXPECTED_STATUS" <<<"$out" || echo "warning: the client saw other answers: $out" >&2
    echo "$out"
}
rate_of() { sed -n 's/.* = \([0-9.]*\) pushes\/s.*/\1/p' <<<"$1"; }
ratio() { awk -v c="$1" -v h="$2" 'BEGIN { printf "%.3f", c / h }'; }

CLIENT_RATES=()
H2LOAD_RATES=()
RATIOS=()
for round in $(seq "$ROUNDS"); do
    start_server
    TICKS_BEFORE_CLIENT=$(server_ticks)
    CLIENT=$(client_run "$BATCH")
    TICKS_AFTER_CLIENT=$(server_ticks)
    h2load_run "$WARMUP" >/dev/null # warm-up, as the client had
    TICKS_BEFORE_H2LOAD=$(server_ticks)
    # bash's time reports h2load's user and system CPU, to set beside the client's CPU per push.
    H2LOAD=$({ TIMEFORMAT='cpu %U %S'; time h2load_run "$REQUESTS"; } 2>&1)
    TICKS_AFTER_H2LOAD=$(server_ticks)
    stop_server
    CLIENT_RATE=$(rate_of "$CLIENT")
    H2LOAD_RATE=$(sed -n 's/^finished in [0-9.]*[a-z]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$H2LOAD")
    grep -Eq "status codes: .*$REQUESTS $H2LOAD_CLASS" <<<"$H2LOAD" || echo "warning: h2load saw other answers: $(grep 'status codes' <<<"$H2LOAD")" >&2
    echo "round $round: $CLIENT; server CPU $(per_request "$TICKS_BEFORE_CLIENT" "$TICKS_AFTER_CLIENT" $((REQUESTS + WARMUP))) µs per request"
    H2LOAD_CPU=$(awk -v n="$REQUESTS" '/^cpu / { printf "%.2f", ($2 + $3) * 1e6 / n }' <<<"$H2LOAD")
    echo "round $round: h2load $(grep '^finished' <<<"$H2LOAD"); CPU $H2LOAD_CPU µs per request; server CPU $(per_request "$TICKS_BEFORE_H2LOAD" "$TICKS_AFTER_H2LOAD" "$REQUESTS") µs per request"
    RATIO=$(ratio "$CLIENT_RATE" "$H2LOAD_RATE")
    CLIENT_RATES+=("$CLIENT_RATE")
    H2LOAD_RATES+=("$H2LOAD_RATE")
    RATIOS+=("$RATIO")
    echo "round $round: client / h2load $RATIO"
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
CLIENT_MEDIAN=$(median "${CLIENT_RATES[@]}")
H2LOAD_MEDIAN=$(median "${H2LOAD_RATES[@]}")
RATIO_MEDIAN=$(median "${RATIOS[@]}")
awk -v c="$CLIENT_MEDIAN" -v h="$H2LOAD_MEDIAN" -v r="$RATIO_MEDIAN" \
    'BEGIN { printf "median: herald client %.0f pushes/s, h2load %.0f req/s; median of the rounds'"'"' ratios %.2f\n", c, h, r }'
# Lines for Benchmarks/run-all: what | Herald | reference | ratio | goal.
awk -v c="$CLIENT_MEDIAN" -v h="$H2LOAD_MEDIAN" -v r="$RATIO_MEDIAN" -v s="$SERVER" -v n="$REQUESTS" \
    -v k="$CONNECTIONS" -v m="$STREAMS" -v b="$BATCH" \
    'BEGIN { printf "result: APNs client, %d pushes, %d connections × %d streams (as the engine sends, batches of %d), against %s | %.0f pushes/s | h2load %.0f req/s | %.2f | ≥ 0.9\n", n, k, m, b, s, c, h, r }'
