#!/usr/bin/env bash
# Every LiveRelay benchmark in one go (release build): throttle decisions, rule evaluations, pipeline
# latency, a cold cron tick, memory with 1M tokens, and the fan-out against h2load and aioapns.
#   usage: scripts/bench/run-all.sh [fan-out pushes]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product liverelay --product liverelay-bench >/dev/null 2>&1 || swift build -c release >/dev/null
bench=.build/release/liverelay-bench
echo "## Throttle (target ≥ 1,000,000 decisions/s on one core)"; taskset -c 1 $bench throttle; echo
echo "## Rules (target ≥ 1,000,000 condition evaluations/s on one core)"; taskset -c 1 $bench rules; echo
echo "## Pipeline overhead (target p99 < 2 ms)"; taskset -c 1 $bench pipeline; echo
echo "## Cold tick (target < 300 ms)"; $bench tick; echo
echo "## Memory (target < 300 MB)"; $bench memory; echo
echo "## Fan-out (targets: ≥ 0.70 of h2load, ≥ 5× aioapns)"; scripts/bench/fanout.sh "${1:-100000}"
