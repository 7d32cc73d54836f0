#!/usr/bin/env bash
# The replay of goal-cli.sh alone, to time two builds in turns (compare-replays.sh): `liverelay replay` of the
# recorded match with the config and token file goal-cli.sh wrote (run it once first), into a fresh state
# file each time, pinned to CLIENT_CORE (1), against the loopback server (started when it is not running;
# stop it with `scripts/bench/fanout-server.sh stop /tmp/liverelay-goal-cli`). Prints nothing; exits as the
# replay did.
#   usage: scripts/bench/goal-replay.sh [liverelay binary]
#   scripts/bench/compare-replays.sh /tmp/liverelay-before .build/release/liverelay
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
# The binary by its absolute path: the replay runs in a folder of its own.
binary=$(realpath "${1:-$root/.build/release/liverelay}")
dir=${GOAL_DIR:-/tmp/liverelay-goal-cli}
[ -f "$dir/liverelay.json" ] && [ -f "$dir/tokens.json" ] || {
    echo "no config or token file in $dir: run scripts/bench/goal-cli.sh first" >&2
    exit 1
}
if ! { [ -f "$dir/nginx.pid" ] && kill -0 "$(cat "$dir/nginx.pid")" 2>/dev/null; }; then
    FANOUT_SERVER_STREAMS=${GOAL_SERVER_STREAMS:-128} scripts/bench/fanout-server.sh start "$dir" > /dev/null
fi
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
cp "$dir/liverelay.json" "$run/"
cd "$run"
taskset -c "${CLIENT_CORE:-1}" "$binary" replay "$root/Samples/sequences/espn-aus-egy/sequence.json" \
    --config "$run/liverelay.json" --tokens "$dir/tokens.json" > /dev/null 2>&1
