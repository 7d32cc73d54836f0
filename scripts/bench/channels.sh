#!/usr/bin/env bash
# Broadcast channels at scale: the goal moment of a match followed by N devices through the real pipeline
# in token and both mode (to the loopback HTTP/2 + TLS server of fanout-server.sh, nginx on core 0, the
# benchmark pinned to core 1), then 10,000 matches' channels created, broadcast to, deleted and collected
# against the in-process fake APNs.
#   usage: scripts/bench/channels.sh [devices]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=/tmp/liverelay-fanout
bench=$(scripts/bench/build.sh 2>/dev/null)
# nginx's default 128 streams per connection (see goal-cli.sh: nginx on one core collapses with 1,000).
eval "$(FANOUT_SERVER_STREAMS=${CHANNELS_SERVER_STREAMS:-128} scripts/bench/fanout-server.sh start "$dir")"
trap 'scripts/bench/fanout-server.sh stop "$dir"' EXIT
taskset -c "${CLIENT_CORE:-1}" /usr/bin/time -f 'peak RSS %M kB' "$bench" channels \
    --url "$FANOUT_URL" --ca "$FANOUT_CA" --key "$FANOUT_KEY" --devices "${1:-1000000}" "${@:2}"
