#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb in a folder of its own, started on a loopback port
# as an unprivileged user (the `postgres` user Debian's package makes, when run as root), password
# authentication only, fsync off, TLS offered (a certificate for 127.0.0.1 from a CA made here; plain
# connections are accepted too), its database `liverelay` with ICU's en-US collation where there is one.
# Prints the variables the tests read:
#   LIVERELAY_TEST_POSTGRES_URL=postgres://liverelay@127.0.0.1:PORT/liverelay
#   LIVERELAY_TEST_POSTGRES_PASSWORD=…
#   LIVERELAY_TEST_POSTGRES_CA=FOLDER/ca.crt
#   usage: scripts/postgres-cluster.sh start|stop [folder]      (port: LIVERELAY_PG_PORT, default 55432)
set -euo pipefail
action=${1:-start}
dir=${2:-/tmp/liverelay-postgres}
port=${LIVERELAY_PG_PORT:-55432}
password=liverelay-test-only
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "PostgreSQL is missing: apt-get install postgresql" >&2; exit 1; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "$action" = stop ]; then
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    exit 0
fi

if [ ! -f "$dir/data/PG_VERSION" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    printf '%s\n' "$password" > "$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir/pwfile"
    as_owner "$bin/initdb" -D "$dir/data" -U liverelay --pwfile="$dir/pwfile" --auth=scram-sha-256 \
        --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
fi
if [ ! -f "$dir/server.crt" ]; then
    # A CA of its own and a server certificate for 127.0.0.1, for the tests of TLS to the database.
    (
        cd "$dir"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
            -subj "/CN=LiveRelay test CA" -keyout ca.key -out ca.crt
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
            -keyout server.key -out server.csr
        printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile server.ext \
            -out server.crt
    ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
    chmod 600 "$dir/server.key"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir/server.key" "$dir/server.crt"
fi
if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200 -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
fi
# The tests' database compares text as deployments' usually do, with a linguistic collation (ICU's en-US, where
# this PostgreSQL has it: 15 and later), not the cluster's byte order: the store must not lean on the default.
if ! PGPASSWORD=$password "$bin/psql" -h 127.0.0.1 -p "$port" -U liverelay -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'liverelay'" | grep -q 1; then
    PGPASSWORD=$password "$bin/createdb" -h 127.0.0.1 -p "$port" -U liverelay --template=template0 \
        --locale-provider=icu --icu-locale=en-US liverelay 2>/dev/null ||
        PGPASSWORD=$password "$bin/createdb" -h 127.0.0.1 -p "$port" -U liverelay liverelay
fi
echo "LIVERELAY_TEST_POSTGRES_URL=postgres://liverelay@127.0.0.1:$port/liverelay"
echo "LIVERELAY_TEST_POSTGRES_PASSWORD=$password"
echo "LIVERELAY_TEST_POSTGRES_CA=$dir/ca.crt"
