#!/usr/bin/env bash
# Drives a running liverelay's HTTP API from its description, docs/openapi.json, with Schemathesis
# (property-based: it generates requests from the document and checks each answer against it).
#
# Usage: scripts/openapi-test.sh [LIVERELAY-BINARY]     (default .build/debug/liverelay)
#
# 1. Starts `liverelay run` on a copy of the demo config (Samples/demo/liverelay.json) in a temporary
#    folder: its paths made absolute, its state file in the folder, and
#    "api": {"port": 0, "host": "127.0.0.1", "bearer-token": {"env": "LIVERELAY_OPENAPI_BEARER"}}
#    with a random token. The port is read from its standard error ("API listening on http://…:PORT"), and
#    the script waits for /livez (or /healthz, on a build without /livez).
# 2. Runs Schemathesis against every operation, with valid and invalid (negative) requests, checking that
#    no answer is a 5xx (not_a_server_error), that every status is one the document declares
#    (status_code_conformance), and that bodies, content types and headers are as declared
#    (response_schema_conformance, content_type_conformance, response_headers_conformance).
# 3. Stops the server (SIGTERM: it must exit 0), starts another on a fresh state file, and sends only
#    invalid requests to the PUT routes, those that store (the same checks, and negative_data_rejection:
#    none may succeed; a valid body with a wrong Content-Type is not sent, see negative_only.py below).
#    Once it is stopped, every table of registered data in the state file (tokens, subscriptions,
#    addresses, channel subscribers, dropped tokens and addresses) must be empty: a refused request stores
#    nothing.
#
# Each check of each operation counts once (it passed when no request of the run failed it), as do the
# document's validation (when openapi-spec-validator is installed), each server's start and stop, and
# each table. The last line is `openapi: N passed, M failed`; every failure is listed above it, and the
# exit status is 1 when there is one.
#
# OPENAPI_METRICS_OUT=FILE also saves the first server's GET /metrics there (scripts/test hands it to
# scripts/check-deploy.sh).
# Installs what is missing: Schemathesis (pinned, with pip) and sqlite3 (apt-get, sudo when not root).
# Environment: OPENAPI_MAX_EXAMPLES (examples per operation, default 100), OPENAPI_NEGATIVE_EXAMPLES
# (default 100), OPENAPI_SEED (a Schemathesis seed, to repeat a run), OPENAPI_EXTRA_CHECKS (more
# Schemathesis checks for the first pass, comma-separated: unsupported_method checks the 405 and its Allow
# header for every method a path does not have; positive_data_acceptance that valid requests are not
# refused with 400), OPENAPI_KEEP=1 (keep the temporary folder, with the servers' output and
# Schemathesis' reports, and say where it is).
set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5
CHECKS=not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance,response_headers_conformance
EXTRA_CHECKS=${OPENAPI_EXTRA_CHECKS:+,$OPENAPI_EXTRA_CHECKS}
MAX_EXAMPLES=${OPENAPI_MAX_EXAMPLES:-100}
NEGATIVE_EXAMPLES=${OPENAPI_NEGATIVE_EXAMPLES:-100}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
document="$root/docs/openapi.json"
demo_config="$root/Samples/demo/liverelay.json"

binary=${1:-.build/debug/liverelay}
if [ -x "$binary" ]; then
    binary=$(realpath "$binary")
elif [ -x "$root/$binary" ]; then
    binary="$root/$binary"
else
    echo "no liverelay binary at $binary (build it with swift build, or give its path)" >&2
    exit 2
fi

# --- What the run needs ---------------------------------------------------------------------------------

installed_schemathesis() {
    python3 -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true
}
if [ "$(installed_schemathesis)" != "$SCHEMATHESIS_VERSION" ]; then
    echo "installing schemathesis $SCHEMATHESIS_VERSION (found: $(installed_schemathesis || true))" >&2
    if ! python3 -m pip index versions schemathesis 2>/dev/null | grep -q "[ ,]$SCHEMATHESIS_VERSION\b"; then
        echo "schemathesis $SCHEMATHESIS_VERSION is not offered by the package index: pin another version" >&2
        exit 2
    fi
    python3 -m pip install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
    sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq sqlite3 >/dev/null
fi

# --- The temporary folder, the servers, and cleaning up -------------------------------------------------

work=$(mktemp -d "${TMPDIR:-/tmp}/liverelay-openapi.XXXXXX")
server_pid=
schemathesis_pid=
cleanup() {
    if [ -n "$schemathesis_pid" ] && kill -0 "$schemathesis_pid" 2>/dev/null; then
        kill -TERM "$schemathesis_pid" 2>/dev/null || true
        wait "$schemathesis_pid" 2>/dev/null || true
    fi
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    if [ "${OPENAPI_KEEP:-0}" = 1 ]; then
        echo "kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

LIVERELAY_OPENAPI_BEARER=$(python3 -c 'import secrets; print(secrets.token_hex(24))')
export LIVERELAY_OPENAPI_BEARER

passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); failures+=("$*"); echo "FAILED: $*"; }

# Writes a copy of the demo config that resolves from anywhere: relative paths made absolute against
# Samples/demo, the state file at $2, and the API on a free port of 127.0.0.1 with the bearer token.
write_config() {
    python3 - "$demo_config" "$1" "$2" <<'EOF'
import json, os, sys

source, target, state = sys.argv[1:4]
base = os.path.dirname(os.path.abspath(source))
config = json.load(open(source))

def absolute(path):
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))

def absolute_all(value):
    return [absolute(v) for v in value] if isinstance(value, list) else absolute(value)

if "$schema" in config:
    config["$schema"] = absolute(config["$schema"])
for key in ("rules", "contracts"):
    if key in config:
        config[key] = absolute_all(config[key])
for feed in config.get("feeds", []):
    url = feed.get("url", "")
    if url.startswith("file:") and not url.startswith("file:/"):
        feed["url"] = "file:" + absolute(url[len("file:"):])
config["state"] = state
config["api"] = {"port": 0, "host": "127.0.0.1", "bearer-token": {"env": "LIVERELAY_OPENAPI_BEARER"}}
json.dump(config, open(target, "w"), indent=2)
EOF
}

# Starts `liverelay run` on a config ($1), naming its output files after $2; sets server_pid and base_url.
start_server() {
    local config=$1 name=$2 port=''
    "$binary" run --config "$config" >"$work/$name.out" 2>"$work/$name.err" &
    server_pid=$!
    for _ in $(seq 1 300); do
        port=$(grep -oE 'API listening on http://127\.0\.0\.1:[0-9]+' "$work/$name.err" | head -n 1 | sed 's/.*://' || true)
        [ -n "$port" ] && break
        if ! kill -0 "$server_pid" 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
    if [ -z "$port" ]; then
        echo "--- liverelay's standard error:" >&2
        tail -n 30 "$work/$name.err" >&2 || true
        fail "$name: liverelay did not say where its API listens"
        return 1
    fi
    base_url="http://127.0.0.1:$port"
    # Ready when /livez answers 200; a build without /livez (404 there) is ready once /healthz answers.
    local status='' probe=''
    for _ in $(seq 1 300); do
        status=$(curl -s -o /dev/null -w '%{http_code}' "$base_url/livez" || true)
        if [ "$status" = 200 ]; then
            probe=/livez
            break
        fi
        if [ "$status" = 404 ]; then
            status=$(curl -s -o /dev/null -w '%{http_code}' "$base_url/healthz" || true)
            if [ "$status" = 200 ] || [ "$status" = 503 ]; then
                probe="/healthz (no /livez in this build)"
                break
            fi
        fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.2
    done
    if [ -z "$probe" ]; then
        tail -n 30 "$work/$name.err" >&2 || true
        fail "$name: liverelay at $base_url never answered /livez nor /healthz"
        return 1
    fi
    pass "$name: liverelay serves $base_url (ready by $probe)"
}

# Stops the server with SIGTERM and waits for it (30 s at most, then SIGKILL): it must exit 0.
stop_server() {
    local name=$1 status=0 stopped=no
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 150); do
        if ! kill -0 "$server_pid" 2>/dev/null; then
            stopped=yes
            break
        fi
        sleep 0.2
    done
    [ "$stopped" = yes ] || kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" || status=$?
    server_pid=
    if [ "$stopped" = no ]; then
        tail -n 30 "$work/$name.err" >&2 || true
        fail "$name: liverelay did not exit within 30 s of SIGTERM"
    elif [ "$status" -eq 0 ]; then
        pass "$name: liverelay exits 0 on SIGTERM"
    else
        tail -n 30 "$work/$name.err" >&2 || true
        fail "$name: liverelay exited $status on SIGTERM"
    fi
}

# Reads a Schemathesis run's NDJSON events ($1: report folder, $2: name of the pass) and prints one line
# per (operation, check) as `ok` or `FAILED`, then each failing request: method, URL, headers, body, and the
# answer. With `negative-only`, also fails when a valid request was sent (it would not be refused), and
# lists every invalid PUT that was answered 2xx (what it stored explains a table that is not empty).
cat >"$work/analyse.py" <<'EOF'
import base64, glob, json, sys

folder, name, mode = sys.argv[1:4]
results = {}  # (operation, check) -> [passed, failed]
failures = []  # (operation, check, message, interaction)
positives = []
accepted = []


def text(part):
    if not part:
        return ""
    return base64.b64decode(part.get("$base64", "")).decode("utf-8", errors="replace")


def request_line(interaction):
    request = interaction["request"]
    headers = {
        k: ("Bearer <token>" if k.lower() == "authorization" else ", ".join(v))
        for k, v in request.get("headers", {}).items()
    }
    if not any(k.lower() == "authorization" for k in headers):
        headers["(no Authorization header)"] = ""
    line = "%s %s headers=%s" % (request["method"], request["uri"], json.dumps(headers))
    body = text(request.get("body"))
    if body:
        line += " body=" + (body if len(body) <= 400 else body[:400] + "… (%d bytes)" % len(body))
    response = interaction.get("response")
    if response:
        answer = text(response.get("content"))
        line += " -> %s %s" % (response["status_code"], answer[:300])
    else:
        line += " -> no answer"
    return line


files = glob.glob(folder + "/ndjson-*.ndjson")
if not files:
    print("FAILED: %s: Schemathesis wrote no report" % name)
    sys.exit(0)
for raw in open(files[0]):
    event = json.loads(raw)
    finished = event.get("ScenarioFinished")
    if not finished:
        continue
    recorder = finished["recorder"]
    label = recorder["label"]
    for case_id, checks in recorder.get("checks", {}).items():
        interaction = recorder.get("interactions", {}).get(case_id)
        for check in checks:
            tally = results.setdefault((label, check["name"]), [0, 0])
            if check["status"] == "success":
                tally[0] += 1
            else:
                tally[1] += 1
                info = (check.get("failure_info") or {}).get("failure") or {}
                message = (info.get("title") or "") + ": " + (info.get("message") or "").replace("\n", " ")
                failures.append((label, check["name"], message, interaction))
    if mode == "negative-only":
        for case_id, case in recorder.get("cases", {}).items():
            meta = case["value"].get("meta") or {}
            interaction = recorder.get("interactions", {}).get(case_id)
            if (meta.get("generation") or {}).get("mode") != "negative":
                if interaction:
                    positives.append((label, interaction))
            elif (
                interaction
                and interaction["request"]["method"] == "PUT"
                and interaction.get("response")
                and 200 <= interaction["response"]["status_code"] < 300
            ):
                # A PUT stores what it accepts. (A GET that ignores an undeclared query parameter is fine.)
                accepted.append((label, interaction))

for (label, check), (ok, bad) in sorted(results.items()):
    if bad:
        print("FAILED: %s: %s %s (%d of %d requests)" % (name, label, check, bad, ok + bad))
    else:
        print("ok: %s: %s %s (%d requests)" % (name, label, check, ok))
if mode == "negative-only":
    if positives:
        print("FAILED: %s: %d valid requests were sent in the negative-only pass" % (name, len(positives)))
    else:
        print("ok: %s: only invalid requests were sent" % name)

seen = set()
for label, check, message, interaction in failures:
    key = (label, check, message)
    if key in seen:
        continue
    seen.add(key)
    print("  %s %s: %s" % (label, check, message), file=sys.stderr)
    if interaction:
        print("    " + request_line(interaction), file=sys.stderr)
# The first three of each operation (shrinking sends many alike).
for what, found in (("valid request in the negative pass", positives), ("invalid request accepted", accepted)):
    shown = {}
    for label, interaction in found:
        shown[label] = shown.get(label, 0) + 1
        if shown[label] <= 3:
            print("  %s: %s: %s" % (label, what, request_line(interaction)), file=sys.stderr)
    for label, count in sorted(shown.items()):
        if count > 3:
            print("  %s: %s: %d more like these" % (label, what, count - 3), file=sys.stderr)
EOF

# Keeps only invalid requests (`--mode all` generates both kinds; `--mode negative` sends a few valid ones
# too). Left out as well: a valid body sent with another Content-Type (text/plain, multipart/form-data
# without a boundary), which the server reads as JSON all the same.
cat >"$work/negative_only.py" <<'EOF'
import schemathesis
from schemathesis import GenerationMode

CONTENT_TYPE_SCENARIOS = {"unsupported_content_type", "malformed_content_type"}


@schemathesis.hook
def filter_case(context, case):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.NEGATIVE:
        return False
    scenario = getattr(getattr(meta.phase, "data", None), "scenario", None)
    return getattr(scenario, "value", scenario) not in CONTENT_TYPE_SCENARIOS
EOF

# Runs Schemathesis ($1: name of the pass, $2: analysis mode; the rest: its options) from the temporary
# folder (so nothing is written to the repository), then counts its results.
run_schemathesis() {
    local name=$1 mode=$2 status=0
    shift 2
    local seed=()
    [ -n "${OPENAPI_SEED:-}" ] && seed=(--seed "$OPENAPI_SEED")
    local options=(--url "$base_url" --workers 1 --continue-on-failure --generation-database none --no-color
        --report "ndjson,json" --report-dir "$work/$name-report" "${seed[@]}" "$@")
    echo "+ schemathesis run $document -H 'Authorization: Bearer \$LIVERELAY_OPENAPI_BEARER' ${options[*]}"
    # In the background, so that an interrupt is handled at once (bash runs a trap only once the
    # foreground command is done; `wait` returns at once).
    (cd "$work" && exec schemathesis run "$document" -H "Authorization: Bearer $LIVERELAY_OPENAPI_BEARER" \
        "${options[@]}") &
    schemathesis_pid=$!
    wait "$schemathesis_pid" || status=$?
    schemathesis_pid=
    local line
    while IFS= read -r line; do
        case "$line" in
            ok:*) pass "${line#ok: }" >/dev/null ;;
            FAILED:*) fail "${line#FAILED: }" ;;
        esac
    done < <(python3 "$work/analyse.py" "$work/$name-report" "$name" "$mode" 2>"$work/$name-failures.txt")
    local errors
    errors=$(python3 -c 'import glob, json, sys
files = glob.glob(sys.argv[1] + "/json-*.json")
print(len(json.load(open(files[0])).get("errors", [])) if files else 0)' "$work/$name-report")
    if [ "$errors" -gt 0 ]; then
        fail "$name: Schemathesis had $errors errors of its own (see its output above)"
    fi
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
        fail "$name: Schemathesis exited $status"
    fi
    if [ -s "$work/$name-failures.txt" ]; then
        echo "--- $name: the failing requests"
        cat "$work/$name-failures.txt"
    fi
}

# --- The document -----------------------------------------------------------------------------------

if command -v openapi-spec-validator >/dev/null 2>&1; then
    if openapi-spec-validator "$document" >/dev/null; then
        pass "docs/openapi.json is a valid OpenAPI document"
    else
        openapi-spec-validator "$document" >&2 || true
        fail "docs/openapi.json is not a valid OpenAPI document"
    fi
fi

# --- Pass 1: every operation, valid and invalid requests ------------------------------------------------

write_config "$work/liverelay.json" "$work/state.sqlite"
if start_server "$work/liverelay.json" all; then
    run_schemathesis all all --mode all --phases examples,coverage,fuzzing --max-examples "$MAX_EXAMPLES" \
        --checks "$CHECKS$EXTRA_CHECKS"
    # The document the server serves must be this one (a build without /openapi.json fails above).
    if [ "$(curl -s -o "$work/served-openapi.json" -w '%{http_code}' "$base_url/openapi.json" || true)" = 200 ]; then
        if python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
            "$work/served-openapi.json" "$document"; then
            pass "GET /openapi.json serves docs/openapi.json"
        else
            fail "GET /openapi.json serves another document than docs/openapi.json"
        fi
    fi
    # What a running worker's /metrics says, for scripts/check-deploy.sh (the dashboard and alert rules).
    if [ -n "${OPENAPI_METRICS_OUT:-}" ]; then
        if curl -fsS -o "$OPENAPI_METRICS_OUT" "$base_url/metrics"; then
            pass "GET /metrics saved to $OPENAPI_METRICS_OUT"
        else
            fail "GET /metrics did not answer"
        fi
    fi
    stop_server all
fi

# --- Pass 2: invalid requests only, then nothing may be stored ------------------------------------------

write_config "$work/negative.json" "$work/negative.sqlite"
if start_server "$work/negative.json" negative; then
    # The coverage phase breaks one thing at a time only in `--mode all` (`--mode negative` breaks the path
    # and the body together, so an unknown field would only ever come with an invalid id); the fuzzing
    # phase's random invalid requests come faster in `--mode negative`.
    SCHEMATHESIS_HOOKS="$work/negative_only.py" run_schemathesis negative-coverage negative-only --mode all \
        --phases coverage --include-method PUT --suppress-health-check filter_too_much \
        --checks "$CHECKS,negative_data_rejection"
    SCHEMATHESIS_HOOKS="$work/negative_only.py" run_schemathesis negative-fuzzing negative-only \
        --mode negative --phases fuzzing --max-examples "$NEGATIVE_EXAMPLES" --include-method PUT \
        --suppress-health-check filter_too_much --checks "$CHECKS,negative_data_rejection"
    stop_server negative
    # Registered data: tokens, subscriptions, addresses, channel subscribers (and what providers dropped);
    # not the schema's bookkeeping (grdb_migrations, meta), the provider's own JWTs (provider_token), nor
    # what the demo feed itself writes (activities, outbox, history, throttle state).
    expected=(push_to_start_token activity_token subscription device_address activity_address channel_subscriber)
    tables=$(sqlite3 -readonly "$work/negative.sqlite" .tables | tr -s ' \t' '\n' | sed '/^$/d' | sort)
    for table in "${expected[@]}"; do
        grep -qx "$table" <<<"$tables" || fail "state file: no table $table (the store's schema changed: update this script)"
    done
    while IFS= read -r table; do
        rows=$(sqlite3 -readonly "$work/negative.sqlite" "SELECT count(*) FROM \"$table\"" </dev/null)
        if [ "$rows" -eq 0 ]; then
            pass "nothing stored from a refused request: $table is empty"
        else
            fail "stored from a refused request: $table has $rows rows"
            sqlite3 -readonly -header "$work/negative.sqlite" "SELECT * FROM \"$table\" LIMIT 10" >&2 || true
        fi
    done < <(grep -E 'token|subscri|address' <<<"$tables" | grep -vx 'provider_token' || true)
fi

# --- The verdict --------------------------------------------------------------------------------------

if [ "$failed" -gt 0 ]; then
    echo
    echo "openapi: what failed:"
    for failure in "${failures[@]}"; do
        echo "  - $failure"
    done
fi
echo "openapi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
