#!/usr/bin/env bash
# Every LiveRelay benchmark in one go (release build): throttle decisions, rule evaluations, pipeline
# latency, a cold cron tick, memory with 1M tokens, the fan-out against h2load and aioapns, broadcast
# channels at scale, and the goal moment through `liverelay replay`. Prints each benchmark's own table, then one summary table of every figure against its
# target, with the ratios.
#   usage: scripts/bench/run-all.sh [fan-out pushes]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${BENCH_OUT:-/tmp/liverelay-bench}
mkdir -p "$out"
# Both binaries: the tick and memory cases run `liverelay` itself.
swift build -c release --product liverelay >/dev/null
bench=$(scripts/bench/build.sh 2>/dev/null)
section() { echo "## $1"; shift; "$@" | tee "$out/$name.txt"; echo; }
name=throttle section "Throttle (target ≥ 1,000,000 decisions/s on one core)" taskset -c 1 $bench throttle
name=rules section "Rules (target ≥ 1,000,000 condition evaluations/s on one core)" taskset -c 1 $bench rules
name=pipeline section "Pipeline overhead (target p99 < 2 ms)" taskset -c 1 $bench pipeline
name=tick section "Cold tick (target < 300 ms)" $bench tick
name=memory section "Memory (target < 300 MB)" $bench memory
name=fanout section "Fan-out (targets: ≥ 0.70 of h2load, ≥ 5× aioapns)" scripts/bench/fanout.sh "${1:-100000}"
name=channels section "Broadcast channels (1,000,000 devices, token vs both mode; 10,000 channels)" scripts/bench/channels.sh
name=goal section "The goal through liverelay replay (20,000 devices, the default config)" scripts/bench/goal-cli.sh 20000
name=personal section "Alerts of one's own (1,000,000 levels on one symbol; targets: crossing 1,000 ≤ 20 ms, none ≤ 1 ms, ≤ 300 MB, load ≤ 5 s)" $bench personal
name=subscriptions section "Subscriptions through the token API (target ≥ 5,000/s)" scripts/bench/subscriptions-api.sh 30 8 2

python3 - "$out" /tmp/liverelay-fanout/results.jsonl <<'PY'
import json, sys
out, fanout = sys.argv[1], sys.argv[2]
def rows(name):
    lines = [l for l in open(f"{out}/{name}.txt") if "|" in l and not l.startswith("-")]
    return [[c.strip() for c in l.split("|")] for l in lines[1:]]
def row(name, start):
    return next(r for r in rows(name) if r[0].startswith(start))
throttle = float(rows("throttle")[-1][-1])
conformance = float(row("rules", "conformance")[1])
example = float(row("rules", "example")[1])
pipeline = float(row("pipeline", "total")[2])
tick = float(row("tick", "cold tick")[2])
memory = float(row("memory", "")[-1])
by = {r["client"]: r for r in map(json.loads, filter(str.strip, open(fanout)))}
lr, ceiling, peer = (by[c]["pushes_per_second"] for c in ("liverelay", "h2load", "aioapns"))
table = [
    ("throttle decisions/s, 100k activities", f"{throttle:,.0f}", "≥ 1,000,000", throttle >= 1e6),
    ("JsonLogic conditions/s, example rules", f"{example:,.0f}", "≥ 1,000,000", example >= 1e6),
    ("JsonLogic conditions/s, conformance suite", f"{conformance:,.0f}", "≥ 1,000,000", conformance >= 1e6),
    ("pipeline overhead p99, 1,000 rules, 10,000 activities", f"{pipeline:.3f} ms", "< 2 ms", pipeline < 2),
    ("cold tick median, 50 rules, 5 file: feeds", f"{tick:.0f} ms", "< 300 ms", tick < 300),
    ("peak RSS, 1M tokens, 100k activities", f"{memory:.0f} MB", "< 300 MB", memory < 300),
    ("fan-out pushes/s (LiveRelay)", f"{lr:,.0f}", "", None),
    ("fan-out / h2load ceiling", f"{lr / ceiling:.2f} ({ceiling:,.0f}/s)", "≥ 0.70", lr / ceiling >= 0.7),
    ("fan-out / aioapns", f"{lr / peer:.1f}× ({peer:,.0f}/s)", "≥ 5×", lr / peer >= 5),
]
print("## Summary")
print("| case | measured | target | |")
print("|---|---|---|---|")
for case, measured, target, met in table:
    print(f"| {case} | {measured} | {target} | {'' if met is None else 'met' if met else 'missed'} |")
PY
