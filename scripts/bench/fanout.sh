#!/usr/bin/env bash
# The fan-out benchmark: the same pushes (160-hex tokens, 300–600-byte Live Activity payloads) to the same
# loopback HTTP/2 + TLS server (nginx on one core) from h2load (the ceiling), aioapns (the peer) and
# LiveRelay's APNs sender over its push lane (nghttp2) and over libcurl, each pinned to the other core;
# prints one table with the ratios. h2load and LiveRelay send one push to many tokens (a goal: LiveRelay
# in batches); "liverelay-distinct" sends the set's 1,000 payloads in turn, one token each, as aioapns does.
#   usage: scripts/bench/fanout.sh [pushes] [connections] [streams]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-100000}
connections=${2:-1}
streams=${3:-100}
dir=/tmp/liverelay-fanout
client_core=${CLIENT_CORE:-1}

command -v h2load >/dev/null || { echo "h2load is missing: apt-get install nghttp2-client" >&2; exit 1; }
python3 -c "import aioapns" 2>/dev/null || pip install --quiet aioapns==4.0
eval "$(scripts/bench/fanout-server.sh start "$dir")"
trap 'scripts/bench/fanout-server.sh stop "$dir"' EXIT
python3 scripts/bench/make_payloads.py 1000 > "$dir/payloads.jsonl"
head -1 "$dir/payloads.jsonl" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); open('$dir/one.json','w').write(json.dumps(d['payload'],separators=(',',':')))"
token=$(head -1 "$dir/payloads.jsonl" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['token'])")
bench=$(scripts/bench/build.sh 2>/dev/null)

results="$dir/results.jsonl"
: > "$results"
# The ceiling: h2load with the same connections and streams, the same headers and a payload of the set.
start=$(date +%s.%N)
out=$(taskset -c "$client_core" h2load -n "$count" -c "$connections" -m "$streams" \
    -H 'apns-push-type: liveactivity' -H 'apns-topic: com.example.scores.push-type.liveactivity' \
    -H 'apns-priority: 10' -H 'content-type: application/json' -d "$dir/one.json" \
    "$FANOUT_URL/3/device/$token" 2>&1)
rate=$(echo "$out" | sed -n 's/.*finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
echo "{\"client\": \"h2load\", \"pushes_per_second\": $rate, \"pushes\": $count, \"connections\": $connections}" >> "$results"
# The peer.
taskset -c "$client_core" python3 scripts/bench/aioapns_peer.py --port "${FANOUT_URL##*:}" --ca "$FANOUT_CA" \
    --key "$FANOUT_KEY" --payloads "$dir/payloads.jsonl" --count "$count" --connections "$connections" \
    --in-flight "$streams" >> "$results"
# LiveRelay: its push lane (nghttp2), and libcurl (the lane it replaced, `http.push-lane: curl`).
taskset -c "$client_core" "$bench" fanout --url "$FANOUT_URL" --ca "$FANOUT_CA" \
    --key "$FANOUT_KEY" --payloads "$dir/payloads.jsonl" --count "$count" --connections "$connections" \
    --streams "$streams" >> "$results"
taskset -c "$client_core" "$bench" fanout --url "$FANOUT_URL" --ca "$FANOUT_CA" \
    --key "$FANOUT_KEY" --payloads "$dir/payloads.jsonl" --count "$count" --connections "$connections" \
    --streams "$streams" --payload distinct | sed 's/"client":"liverelay"/"client":"liverelay-distinct"/' >> "$results"
taskset -c "$client_core" "$bench" fanout --url "$FANOUT_URL" --ca "$FANOUT_CA" \
    --key "$FANOUT_KEY" --payloads "$dir/payloads.jsonl" --count "$count" --connections "$connections" \
    --streams "$streams" --lane curl | sed 's/"client":"liverelay"/"client":"liverelay-curl"/' >> "$results"

python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {r["client"]: r for r in rows}
lr, ceiling, peer = by["liverelay"]["pushes_per_second"], by["h2load"]["pushes_per_second"], by["aioapns"]["pushes_per_second"]
print("| client | pushes/s | p50 ms | p99 ms | CPU s | CPU µs/push | peak RSS MB | failures |")
print("|---|---|---|---|---|---|---|---|")
for name in ["h2load", "liverelay", "liverelay-distinct", "liverelay-curl", "aioapns"]:
    r = by[name]
    cpu = r.get("cpu_seconds")
    per = f"{cpu / r['pushes'] * 1e6:.1f}" if cpu else ""
    f = lambda k, fmt="{:.2f}": fmt.format(r[k]) if k in r else ""
    print(f"| {name} | {r['pushes_per_second']:.0f} | {f('p50_ms')} | {f('p99_ms')} | {f('cpu_seconds')} | {per} | {f('peak_rss_mb', '{:.0f}')} | {r.get('failures', '')} |")
print()
print(f"LiveRelay / ceiling = {lr / ceiling:.2f} (target ≥ 0.70);  LiveRelay / aioapns = {lr / peer:.1f}× (target ≥ 5×)")
PY
