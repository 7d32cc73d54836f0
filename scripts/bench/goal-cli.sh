#!/usr/bin/env bash
# The goal moment through the command line users run: `liverelay replay` of the recorded AUS v EGY match
# (Samples/sequences/espn-aus-egy) with the APNs provider, pointed at the loopback HTTP/2 + TLS server of
# fanout-server.sh (nginx on core 0), while N devices hold the update token of the match's activity
# (match-760499, loaded with `replay --tokens`), so each update and the end of the match go to N devices
# (6 pushes × N: the 20' clock, both goals, half-time, extra time, full time; the start has no
# push-to-start token). The config is Samples/demo/liverelay.json's with the provider switched to
# `apns` and nothing else set, so the defaults are the ones users get. The replay is pinned to one core
# (CLIENT_CORE, 1) and timed whole: starting, loading the N tokens into the state file, the eight steps.
# Pushes are counted from nginx's access log (enabled here: status, time and connection of each request), which also
# gives the time to the first push and the send window (first to last request).
# Before it, LiveRelay's sender alone (liverelay-bench fanout) sends as many pushes to the same server from
# the same core; after it, h2load does (the line). All three in the same run; the ratios are printed.
# Prints one JSON line and one human line; exits non-zero when a request was not answered 200, the count
# is not 6 × N, or the replay failed.
#   usage: scripts/bench/goal-cli.sh [devices] [extra config JSON, e.g. '{"provider": {…}, "http": {…}}']
#   GOAL_PROVIDER_EXTRA='{"max-concurrent-streams": 1000}' / GOAL_HTTP_EXTRA='{"coalesce-writes": false}'
#   are merged into the provider / http objects (after the second argument).
#   GOAL_LIVERELAY=/path/to/liverelay runs another build.
#   GOAL_POSTGRES_URL=postgres://user@host:port/db (its password in GOAL_POSTGRES_PASSWORD) keeps the replay's
#   state in PostgreSQL (`replay --postgres`, one worker), in a schema of its own dropped afterwards (psql).
#   GOAL_ROUND_TRIP_MS=25 puts delay-proxy.py (on the server's core) between every client and nginx, adding
#   that round trip; the sender alone then runs with the default config's window (1 × 1,000 streams), and
#   h2load with as many connections as the replay opened (counted by the proxy), each with the server's
#   stream limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
devices=${1:-50000}
extra=${2:-}
dir=${GOAL_DIR:-/tmp/liverelay-goal-cli}
client_core=${CLIENT_CORE:-1}
liverelay=${GOAL_LIVERELAY:-$root/.build/release/liverelay}
activity=match-760499
pushes_per_device=6

[ -x "$liverelay" ] || { echo "$liverelay is missing: swift build -c release --product liverelay" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
command -v h2load >/dev/null || { echo "h2load is missing: apt-get install nghttp2-client" >&2; exit 1; }
mkdir -p "$dir"
# The server allows nginx's default 128 streams per connection (GOAL_SERVER_STREAMS): LiveRelay follows the
# server's SETTINGS, and nginx on one core collapses with 1,000 streams open on one long connection.
eval "$(FANOUT_SERVER_STREAMS=${GOAL_SERVER_STREAMS:-128} scripts/bench/fanout-server.sh start "$dir")"
trap 'scripts/bench/fanout-server.sh stop "$dir"' EXIT
round_trip=${GOAL_ROUND_TRIP_MS:-}
sender_streams=${GOAL_SERVER_STREAMS:-128}
if [ -n "$round_trip" ]; then
    proxy_port=$((${FANOUT_PORT:-18443} + 1))
    rm -f "$dir/proxy.json"
    taskset -c "${SERVER_CORE:-0}" python3 scripts/bench/delay-proxy.py "$proxy_port" "127.0.0.1:${FANOUT_PORT:-18443}" \
        "$round_trip" "$dir/proxy.json" > "$dir/proxy.out" 2>&1 &
    proxy=$!
    trap 'kill $proxy 2>/dev/null; scripts/bench/fanout-server.sh stop "$dir"' EXIT
    for _ in $(seq 50); do grep -q ready "$dir/proxy.out" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$dir/proxy.out" || { echo "delay-proxy.py did not start: $(cat "$dir/proxy.out")" >&2; exit 1; }
    FANOUT_URL=https://127.0.0.1:$proxy_port
    sender_streams=1000
fi
proxy_connections() {
    [ -n "$round_trip" ] || { echo 0; return; }
    rm -f "$dir/proxy.json"
    kill -USR1 "$proxy"
    for _ in $(seq 50); do [ -s "$dir/proxy.json" ] && break; sleep 0.05; done
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["connections"])' "$dir/proxy.json"
}

# The server's CPU (its one worker's user + system time, in clock ticks): read around each client, it tells
# what each client's requests cost the server, and whether the server's core was the limit.
server_ticks() {
    local worker
    worker=$(pgrep -P "$(cat "$dir/nginx.pid")" | head -1)
    awk '{print $14 + $15}' "/proc/$worker/stat"
}

# PostgreSQL's CPU (every postgres process's user + system time, and the exited backends' through the
# postmaster's children's time), read around the replay when its state is there: 0 without GOAL_POSTGRES_URL.
postgres_ticks() {
    [ -n "${GOAL_POSTGRES_URL:-}" ] || { echo 0; return; }
    local oldest
    oldest=$(pgrep -o -x postgres || true)
    for pid in $(pgrep -x postgres); do
        awk -v children=$([ "$pid" = "$oldest" ] && echo 1 || echo 0) \
            '{print $14 + $15 + (children ? $16 + $17 : 0)}' "/proc/$pid/stat" 2>/dev/null || true
    done | awk '{total += $1} END {print total + 0}'
}

# fanout-server.sh turns the access log off; here each request's status and time are what is counted.
sed -i "s|access_log off;|log_format goal '\$msec \$status \$request_uri \$connection'; access_log $dir/logs/access.log goal buffer=256k flush=1s;|" \
    "$dir/nginx.conf"
grep -q 'access_log .*access.log goal' "$dir/nginx.conf" || { echo "could not enable nginx's access log in $dir/nginx.conf" >&2; exit 1; }
nginx -p "$dir" -c "$dir/nginx.conf" -s reload 2> "$dir/logs/reload.txt" || { cat "$dir/logs/reload.txt" >&2; exit 1; }
sleep 0.5

# The config and the token file.
store=sqlite
state_option=()
if [ -n "${GOAL_POSTGRES_URL:-}" ]; then
    store=postgres
    state_option=(--postgres)
    export GOAL_POSTGRES_SCHEMA=goal_$$_$(date +%s)
    drop_schema() {
        command -v psql >/dev/null || return 0
        PGPASSWORD=${GOAL_POSTGRES_PASSWORD:-} psql -q "$GOAL_POSTGRES_URL" -c "DROP SCHEMA IF EXISTS $GOAL_POSTGRES_SCHEMA CASCADE" \
            > /dev/null 2>&1 || echo "goal-cli: could not drop schema $GOAL_POSTGRES_SCHEMA" >&2
    }
fi
python3 - "$root" "$dir" "$devices" "$activity" "$FANOUT_URL" "$FANOUT_CA" "$FANOUT_KEY" "$extra" <<'PY'
import hashlib, json, os, sys
root, dir, devices, activity, url, ca, key, extra = sys.argv[1:]
demo = os.path.join(root, "Samples/demo")
config = json.load(open(os.path.join(demo, "liverelay.json")))
config.pop("$schema", None)
absolute = lambda p: os.path.normpath(os.path.join(demo, p))
config["rules"] = [absolute(p) for p in config["rules"]]
config["contracts"] = [absolute(p) for p in config["contracts"]]
for feed in config["feeds"]:
    if feed["url"].startswith("file:"):
        feed["url"] = "file:" + absolute(feed["url"][len("file:"):])
config["provider"] = {
    "type": "apns", "bundle-id": config["provider"]["bundle-id"], "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ",
    "key": {"file": key}, "endpoint": url,
}
config["http"] = {"ca-file": ca}
def merge(into, more):
    for k, v in more.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            merge(into[k], v)
        else:
            into[k] = v
if extra:
    merge(config, json.loads(extra))
if os.environ.get("GOAL_POSTGRES_URL"):
    # Beside what the extra config says of it (its claim-batch, say).
    config.setdefault("postgres", {}).update(
        {"url": os.environ["GOAL_POSTGRES_URL"], "password": {"env": "GOAL_POSTGRES_PASSWORD"},
         "schema": os.environ["GOAL_POSTGRES_SCHEMA"]})
for var, section in [("GOAL_PROVIDER_EXTRA", "provider"), ("GOAL_HTTP_EXTRA", "http")]:
    if os.environ.get(var):
        merge(config[section], json.loads(os.environ[var]))
json.dump(config, open(os.path.join(dir, "liverelay.json"), "w"), indent=2)
# 160-hex tokens, as the fan-out benchmark's; one device each.
with open(os.path.join(dir, "tokens.json"), "w") as f:
    rows = ({"activity": activity, "device": f"device-{i}",
             "token": (hashlib.sha256(str(i).encode()).hexdigest() * 3)[:160]} for i in range(int(devices)))
    f.write('{"activities": [\n' + ",\n".join(json.dumps(r) for r in rows) + "\n]}\n")
PY

# LiveRelay's sender alone, in the same run (its requests before the log is cleared): the same number of
# pushes of the same size to the same server over its push lane, one connection and the server's stream
# limit, from a harness that hands the pushes to the `Sender` (as the pipeline does) without the pipeline
# around it: no outbox, no receipts written.
bench=$root/Benchmarks/.build/release/liverelay-bench
[ -x "$bench" ] || { echo "$bench is missing: scripts/bench/build.sh" >&2; exit 1; }
python3 scripts/bench/make_payloads.py 1000 > "$dir/payloads.jsonl"
sender_server=$(server_ticks)
taskset -c "$client_core" "$bench" fanout --url "$FANOUT_URL" --ca "$FANOUT_CA" --key "$FANOUT_KEY" \
    --payloads "$dir/payloads.jsonl" --count "$((devices * pushes_per_device))" --connections 1 \
    --streams "$sender_streams" > "$dir/sender.json"
sender_server=$(( $(server_ticks) - sender_server ))
kill -USR1 "$(cat "$dir/nginx.pid")"
sleep 1.2

: > "$dir/logs/access.log"
before_replay=$(proxy_connections)
replay_server=$(server_ticks)
postgres_cpu=$(postgres_ticks)
set +e
start=$(date +%s.%N)
taskset -c "$client_core" /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" \
    "$liverelay" replay Samples/sequences/espn-aus-egy/sequence.json --config "$dir/liverelay.json" \
    --tokens "$dir/tokens.json" "${state_option[@]}" > /dev/null 2> "$dir/stderr.txt"
code=$?
set -e
postgres_cpu=$(( $(postgres_ticks) - postgres_cpu ))
[ "$store" = postgres ] && drop_schema
replay_connections=$(( $(proxy_connections) - before_replay ))
line_connections=$(( replay_connections > 0 ? replay_connections : 1 ))
# The line, in the same run: h2load on the same core, to the same server, with as many requests, one
# connection and the server's stream limit, APNs' headers and a Live Activity body of the match's size.
# Its path carries "h2load-line" so the count below leaves its requests out.
printf '%s' '{"aps":{"timestamp":1783101700,"event":"update","content-state":{"homeScore":1,"awayScore":0,"clock":"20:00","period":"1st half","status":"in play"},"relevance-score":50,"stale-date":1783102300}}' > "$dir/line-body.json"
replay_server=$(( $(server_ticks) - replay_server ))
line_server=$(server_ticks)
line=$(taskset -c "$client_core" h2load -n "$((devices * pushes_per_device))" -c "$line_connections" -m "${GOAL_SERVER_STREAMS:-128}" \
    -H 'apns-push-type: liveactivity' -H 'apns-topic: com.example.scores.push-type.liveactivity' \
    -H 'apns-priority: 10' -H 'content-type: application/json' -d "$dir/line-body.json" \
    "$FANOUT_URL/3/device/h2load-line" 2>&1 | sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
line_server=$(( $(server_ticks) - line_server ))
# Flush nginx's log buffer (USR1 reopens the log) and let it settle.
kill -USR1 "$(cat "$dir/nginx.pid")"
sleep 1.2

python3 - "$dir" "$devices" "$pushes_per_device" "$code" "$start" "${GOAL_PROVIDER_EXTRA:-}" "${GOAL_HTTP_EXTRA:-}" "$extra" "${line:-0}" "${round_trip:-0}" "$replay_connections" "$line_connections" \
    "$sender_server" "$replay_server" "$line_server" "$(getconf CLK_TCK)" "$store" "$postgres_cpu" <<'PY'
import json, sys
(dir, devices, per, code, start, provider_extra, http_extra, extra, ceiling, round_trip, connections, line_connections,
 sender_server, replay_server, line_server, tick, store, postgres_cpu) = sys.argv[1:]
sender_server, replay_server, line_server, postgres_cpu = (
    int(t) / int(tick) for t in (sender_server, replay_server, line_server, postgres_cpu))
devices, per, code, start, ceiling = int(devices), int(per), int(code), float(start), float(ceiling)
sender = json.loads(open(f"{dir}/sender.json").read())
wall, user, sys_, rss_kb = open(f"{dir}/time.txt").read().split()[-4:]
wall, cpu, rss_kb = float(wall), float(user) + float(sys_), int(rss_kb)
times, statuses, carriers = [], {}, set()
for line in open(f"{dir}/logs/access.log"):
    t, status, uri, connection = line.split()
    if not uri.startswith("/3/device/") or uri.startswith("/3/device/h2load-line"):
        continue
    times.append(float(t))
    statuses[status] = statuses.get(status, 0) + 1
    carriers.add(connection)
pushes = statuses.get("200", 0)
failed = sum(n for s, n in statuses.items() if s != "200")
send = max(times) - min(times) if times else 0.0
result = {
    "bench": "goal-cli", "store": store, "devices": devices, "pushes": pushes, "expected_pushes": devices * per,
    "failed_requests": failed, "statuses": statuses, "counted_from": "nginx access log",
    "exit_code": code, "wall_seconds": round(wall, 3),
    "pushes_per_second": round(pushes / wall, 1) if wall else None,
    "seconds_to_first_push": round(min(times) - start, 3) if times else None,
    "send_seconds": round(send, 3),
    "send_pushes_per_second": round(pushes / send, 1) if send else None,
    "cpu_seconds": round(cpu, 3), "user_seconds": float(user), "sys_seconds": float(sys_),
    "cpu_us_per_push": round(cpu / pushes * 1e6, 2) if pushes else None,
    "peak_rss_mb": round(rss_kb / 1024, 1),
    "postgres_cpu_us_per_push": round(postgres_cpu / pushes * 1e6, 2) if store == "postgres" and pushes else None,
    "h2load_pushes_per_second": ceiling or None,
    "of_h2load": round(pushes / wall / ceiling, 3) if wall and ceiling else None,
    "of_h2load_while_sending": round(pushes / send / ceiling, 3) if send and ceiling else None,
    "sender_alone_pushes_per_second": round(sender["pushes_per_second"], 1),
    "sender_alone_cpu_us_per_push": round(sender["cpu_seconds"] / sender["pushes"] * 1e6, 2),
    "of_sender_alone": round(pushes / wall / sender["pushes_per_second"], 3) if wall else None,
    "of_sender_alone_while_sending": round(pushes / send / sender["pushes_per_second"], 3) if send else None,
    "provider_extra": json.loads(provider_extra) if provider_extra else {},
    "http_extra": json.loads(http_extra) if http_extra else {},
    "extra": json.loads(extra) if extra else {},
    "added_round_trip_ms": float(round_trip), "replay_connections": int(connections),
    # The server's connections that carried the replay's pushes (nginx's own count, proxy or not).
    "server_connections": len(carriers),
    "h2load_connections": int(line_connections),
    # What each client's requests cost the server's one core (nginx's CPU while that client ran).
    "server_cpu_us_per_request": {
        "h2load": round(line_server / (devices * per) * 1e6, 1),
        "sender_alone": round(sender_server / sender["pushes"] * 1e6, 1),
        "replay": round(replay_server / pushes * 1e6, 1) if pushes else None,
    },
    "server_busy_while_sender_alone": round(sender_server * sender["pushes_per_second"] / sender["pushes"], 2),
    "server_busy_while_sending": round(replay_server / send, 2) if send else None,
}
print(json.dumps(result))
rtt = f", {float(round_trip):g} ms added round trip, {connections} connections opened" if float(round_trip) else ""
pg = f" + PostgreSQL {result['postgres_cpu_us_per_push'] or 0:.1f} µs/push" if store == "postgres" else ""
print(f"goal-cli ({store}): {devices} devices{rtt}, {pushes} pushes (nginx log, {failed} failed, over {len(carriers)} connections), exit {code}: "
      f"{wall:.2f} s wall, {result['pushes_per_second'] or 0:,.0f} pushes/s "
      f"(first push after {result['seconds_to_first_push'] or 0:.2f} s, sent in {send:.2f} s = "
      f"{result['send_pushes_per_second'] or 0:,.0f}/s), {cpu:.2f} s CPU = {result['cpu_us_per_push'] or 0:.1f} µs/push{pg}, "
      f"peak RSS {rss_kb / 1024:.0f} MB; h2load beside it {ceiling:,.0f}/s: {result['of_h2load'] or 0:.2f} of it "
      f"(while sending {result['of_h2load_while_sending'] or 0:.2f}); the sender alone "
      f"{result['sender_alone_pushes_per_second']:,.0f}/s at {result['sender_alone_cpu_us_per_push']:.1f} µs/push: "
      f"{result['of_sender_alone'] or 0:.2f} of it (while sending {result['of_sender_alone_while_sending'] or 0:.2f}); "
      f"the server's CPU per request: h2load {result['server_cpu_us_per_request']['h2load']} µs, the sender alone "
      f"{result['server_cpu_us_per_request']['sender_alone']} µs (server busy {result['server_busy_while_sender_alone']:.0%}), "
      f"the replay {result['server_cpu_us_per_request']['replay']} µs (busy {result['server_busy_while_sending'] or 0:.0%} while sending)")
problems = []
if code != 0:
    problems.append(f"liverelay replay exited {code}")
if failed:
    problems.append(f"{failed} requests not answered 200: {statuses}")
if pushes != devices * per:
    problems.append(f"{pushes} pushes answered 200, expected {devices * per} ({per} × {devices} devices)")
if problems:
    print("goal-cli FAILED: " + "; ".join(problems), file=sys.stderr)
    err = open(f"{dir}/stderr.txt").read()
    if err:
        print("liverelay stderr (last lines):\n" + "\n".join(err.splitlines()[-20:]), file=sys.stderr)
    sys.exit(1)
PY
