#!/usr/bin/env bash
# aioapns 4.0, unchanged but for its host, against herald dev's apns-mock and then through Herald's APNs ingress, in
# turn (ROUNDS pairs), each round sending COUNT alerts at once with the key Herald holds. Prints each side's line.
#
#   Benchmarks/aioapns-ingress.sh          # 3 rounds of 300 pushes, with .build-release/release/herald
#   HERALD=.build/debug/herald COUNT=1000 ROUNDS=5 Benchmarks/aioapns-ingress.sh
#
# Needs `pip install aioapns==4.0` and a built herald (swift build -c release --scratch-path .build-release
# --product herald).
set -euo pipefail
cd "$(dirname "$0")/.."

herald="${HERALD:-.build-release/release/herald}"
count="${COUNT:-300}"
rounds="${ROUNDS:-3}"
port="${PORT:-22197}"
data="$(mktemp -d /tmp/herald-aioapns-XXXXXX)"
log="$data/dev.log"

HERALD_APNS_INGRESS_PORT="$port" "$herald" dev --port 0 --data-dir "$data" >"$log" 2>&1 &
dev=$!
trap 'kill -INT "$dev" 2>/dev/null || true; wait "$dev" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 120); do grep -q "Press Ctrl-C" "$log" && break; sleep 1; done
grep -q "Press Ctrl-C" "$log" || { cat "$log"; exit 1; }

mock_port="$(grep -o 'apns-mock is listening on 127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$')"
key="$(ls "$data"/apns/AuthKey_*.p8)"
key_id="$(basename "$key" .p8)"
key_id="${key_id#AuthKey_}"
for round in $(seq 1 "$rounds"); do
    echo "round $round straight to apns-mock:   $(python3 Benchmarks/aioapns/send.py 127.0.0.1 "$mock_port" \
        "$data/apns/apns-mock-ca.pem" "$key" "$key_id" DEVTEAM0001 dev.herald.demo "$count")"
    echo "round $round through Herald's ingress: $(python3 Benchmarks/aioapns/send.py 127.0.0.1 "$port" \
        "$data/apns/ingress-ca.pem" "$key" "$key_id" DEVTEAM0001 dev.herald.demo "$count")"
done
