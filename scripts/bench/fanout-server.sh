#!/usr/bin/env bash
# Starts the loopback HTTP/2 + TLS server the fan-out benchmark sends to: nginx on one core, answering
# 200 to POST /3/device/<token> (echoing apns-id, as APNs does) and to broadcasts (/4/broadcasts/apps/…),
# with a CA and a certificate generated here for 127.0.0.1, localhost and api.push.apple.com. Prints the
# variables the other scripts read.
#   usage: fanout-server.sh start|stop [workdir]      (FANOUT_SERVER_STREAMS: the server's stream limit, 1000)
set -euo pipefail
action=${1:-start}
dir=${2:-/tmp/liverelay-fanout}
port=${FANOUT_PORT:-18443}
server_core=${SERVER_CORE:-0}
# The streams the server allows on a connection (its SETTINGS). nginx 1.22 on one core slows down steeply
# with around 1,000 streams open on one connection (h2load -m 1000: ~5,000 requests/s at 100,000 requests,
# stalling before 300,000), so benchmarks that let the client follow the server's limit lower it.
server_streams=${FANOUT_SERVER_STREAMS:-1000}

if [ "$action" = stop ]; then
    [ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
    exit 0
fi

command -v nginx >/dev/null || { echo "nginx is missing: apt-get install nginx-light" >&2; exit 1; }
mkdir -p "$dir/logs" "$dir/tmp"
cd "$dir"
if [ ! -f leaf.pem ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=LiveRelay bench CA" \
        -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=api.push.apple.com" \
        -keyout leaf.key -out leaf.csr 2>/dev/null
    printf 'subjectAltName=DNS:api.push.apple.com,DNS:localhost,IP:127.0.0.1\n' > san.ext
    openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out leaf.pem 2>/dev/null
    # The .p8 signing key the clients use for their JWTs (nginx does not check them).
    openssl ecparam -genkey -name prime256v1 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out apns.p8
fi
cat > nginx.conf <<CONF
worker_processes 1;
worker_cpu_affinity $(printf '%0*d' $((server_core + 1)) 1 | sed 's/^0*1/1/;s/^/1/' | head -c $((server_core + 1)) | rev);
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    # Every push is a static file nginx does not find (below): without this, each request also wrote a line to
    # the error log (gigabytes over a few runs, and server CPU on every request).
    log_not_found off;
    client_body_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$port ssl http2;
        ssl_certificate $dir/leaf.pem;
        ssl_certificate_key $dir/leaf.key;
        http2_max_concurrent_streams $server_streams;
        keepalive_requests 100000000;
        keepalive_timeout 300s;
        # APNs reads every request body before it answers. nginx's "return" answers first and then resets
        # the stream, which libcurl 7.88 reports as a stream error: a mirror subrequest makes nginx read the
        # whole body before the content phase; the static handler refuses the POST (404 or 405), which error_page
        # turns into the empty 200 APNs sends.
        location /3/device/ {
            mirror /discard;
            mirror_request_body on;
            error_page 404 405 =200 @delivered;
        }
        # Broadcasts (iOS 18 channels): answered as pushes are, echoing apns-request-id.
        location /4/broadcasts/ {
            mirror /discard;
            mirror_request_body on;
            error_page 404 405 =200 @broadcast;
        }
        location @broadcast {
            add_header apns-request-id \$http_apns_request_id always;
            return 200 "";
        }
        location @delivered {
            add_header apns-id \$http_apns_id always;
            return 200 "";
        }
        location = /discard {
            internal;
            return 204;
        }
    }
}
CONF
# Pin by taskset rather than the affinity mask (which nginx writes oddly for core 0).
sed -i '/worker_cpu_affinity/d' nginx.conf
[ -f nginx.pid ] && kill "$(cat nginx.pid)" 2>/dev/null && sleep 0.5 || true
taskset -c "$server_core" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log"
sleep 0.3
echo "FANOUT_URL=https://127.0.0.1:$port"
echo "FANOUT_CA=$dir/ca.pem"
echo "FANOUT_KEY=$dir/apns.p8"
