#!/usr/bin/env bash
# Nothing in Sources blocks a thread of Swift's cooperative pool: a store call, a provider token's mint and
# save, a feed's fetch and a push only await. Checked by reading the code, since a blocked cooperative thread
# shows no error, only a worker that stalls under load:
# - calls that always block (a semaphore, a dispatch group's or a process's wait, a queue's `sync`, a sleep
#   of the thread, GRDB's synchronous `read`/`write`) are refused anywhere in Sources but the test support
#   (LiveRelayTesting, which runs subprocesses for the tests);
# - calls that wait for I/O (`poll`, `curl_multi_poll`) are allowed only in the files that run them on a
#   thread of their own: libcurl's worker thread, the push lane's thread, and the helper thread that makes
#   the lane's extra connections.
# Fails naming each file:line.
set -euo pipefail
cd "$(dirname "$0")/.."
failed=0
always='DispatchSemaphore|DispatchGroup|\.wait\(\)|\.sync[ ({]|Thread\.sleep|[^a-zA-Z_.]usleep\(|nanosleep\(|pool\.(read|write)\((body|\{)|syncShutdownGracefully|\.wait\(on|waitUntilExit'
if hits=$(grep -rnE "$always" Sources --include=*.swift | grep -v '^Sources/LiveRelayTesting/' | grep -vE '^[^:]+:[0-9]+: *//'); then
    # GRDB's async read/write are awaited: `try await pool.read {` is not a blocking call.
    hits=$(printf '%s\n' "$hits" | grep -vE 'await (self\.)?pool\.(read|write)' || true)
fi
# The C library's sleep (an awaited `clock.sleep`/`Task.sleep`, or this file's own `func sleep`, is not).
if sleeps=$(grep -rnE '(^|[^a-zA-Z_.])sleep\(' Sources --include=*.swift | grep -v '^Sources/LiveRelayTesting/' \
    | grep -vE 'await |func sleep|^[^:]+:[0-9]+: *//'); then
    hits=$(printf '%s\n%s' "${hits:-}" "$sleeps" | sed '/^$/d')
fi
if [ -n "${hits:-}" ]; then
    echo "blocking calls outside the test support (they would hold a cooperative thread):"
    printf '%s\n' "$hits" | sort -u | sed 's/^/  /'
    failed=1
fi
own_threads='^Sources/HTTP/Curl/CurlWorker\.swift:|^Sources/HTTP/Lane/LaneThread\.swift:|^Sources/HTTP/Lane/LaneConnection\+Setup\.swift:'
if hits=$(grep -rnE '(^|[^a-zA-Z_.])poll\(&|curl_multi_poll\(|curl_multi_wait\(|epoll_wait\(' Sources --include=*.swift \
    | grep -vE "$own_threads" | grep -vE '^[^:]+:[0-9]+: *//'); then
    echo "waits for I/O outside the files that run them on threads of their own:"
    printf '%s\n' "$hits" | sort -u | sed 's/^/  /'
    failed=1
fi
if [ "$failed" -eq 0 ]; then
    echo "check-blocking: no blocking call on the cooperative threads (Sources, test support aside)"
fi
exit "$failed"
