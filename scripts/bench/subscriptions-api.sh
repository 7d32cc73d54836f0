#!/usr/bin/env bash
# Subscriptions created through the token API as an app backend makes them: `liverelay run` (the release
# binary) with Samples/presets/personal-alerts.json and its API on loopback, and wrk PUTting
# /v1/subscriptions/{id} over keep-alive connections, each request a new subscription with its own level.
# Prints wrk's figures and how many subscriptions the state file holds after (installs wrk from Debian
# when it is missing).
# Usage: scripts/bench/subscriptions-api.sh [seconds=20] [connections=8] [threads=2]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
connections=${2:-8}
threads=${3:-2}
bin=.build/release/liverelay
[ -x "$bin" ] || swift build -c release --product liverelay
. scripts/debian-packages.sh
liverelay_install_packages wrk
work=$(mktemp -d /tmp/liverelay-subscriptions-bench.XXXXXX)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
python3 - "$work" "$port" <<'PY'
import json, os, sys
work, port = sys.argv[1], int(sys.argv[2])
root = os.getcwd()
config = json.load(open("Samples/presets/personal-alerts.json"))
config.pop("$schema", None)
config["state"] = os.path.join(work, "state.sqlite")
config["rules"] = [os.path.join(root, "Rules/personal-alerts.rules.json")]
config["contracts"] = [os.path.join(root, "Rules/contracts/PersonalAlertAttributes.contract.json")]
config["feeds"][0]["url"] = "file:" + os.path.join(root, "Samples/recordings/binance-ticker-24hr-all-symbols.json")
config["api"] = {"port": port, "bearer-token": {"env": "BENCH_BEARER"}}
json.dump(config, open(os.path.join(work, "liverelay.json"), "w"))
PY
cat > "$work/put.lua" <<'LUA'
local counter = 0
prefix = ""
function setup(thread)
  thread:set("prefix", tostring(math.random(1, 1000000000)))
end
function request()
  counter = counter + 1
  local id = "s" .. prefix .. "-" .. counter
  local body = '{"device":"iphone-' .. id .. '","feed":"markets","entity":"BTCUSDT","parameters":{"above":' .. (100000 + counter) .. '}}'
  return wrk.format("PUT", "/v1/subscriptions/" .. id,
    {["Authorization"] = "Bearer bench-bearer-token", ["Content-Type"] = "application/json"}, body)
end
function done(summary, latency, requests)
  io.write(string.format("non-2xx: %d\n", summary.errors.status))
end
LUA
BENCH_BEARER=bench-bearer-token "$bin" run --config "$work/liverelay.json" --log-level warning > "$work/run.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done
wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$work/put.lua" "http://127.0.0.1:$port"
echo "subscriptions stored: $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from personal_subscription').fetchone()[0])" "$work/state.sqlite")"
