#!/usr/bin/env bash
# A fan-out through the whole pipeline on SQLite, and on PostgreSQL with one and two workers: the goal moment
# of a match followed by N devices, released into the outbox, claimed, sent to the loopback HTTP/2 + TLS
# server of fanout-server.sh (nginx) and settled. PostgreSQL is a throwaway cluster (scripts/postgres-cluster.sh).
# Nothing is pinned: nginx, PostgreSQL and the workers share the machine's cores, as they would on one host.
#   usage: scripts/bench/workers.sh [devices]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=/tmp/liverelay-fanout
bench=$(scripts/bench/build.sh 2>/dev/null)
eval "$(scripts/bench/fanout-server.sh start "$dir")"
export LIVERELAY_PG_PORT=${LIVERELAY_PG_PORT:-55433}
eval "$(scripts/postgres-cluster.sh start /tmp/liverelay-bench-pg)"
trap 'scripts/bench/fanout-server.sh stop "$dir"; scripts/postgres-cluster.sh stop /tmp/liverelay-bench-pg' EXIT
export LIVERELAY_TEST_POSTGRES_PASSWORD
"$bench" workers --url "$FANOUT_URL" --ca "$FANOUT_CA" --key "$FANOUT_KEY" \
    --postgres-url "$LIVERELAY_TEST_POSTGRES_URL" --password-env LIVERELAY_TEST_POSTGRES_PASSWORD --devices "${1:-100000}"
