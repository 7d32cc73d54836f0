#!/usr/bin/env bash
# Checks the deployment files in deploy/ (docs/deploy.md):
#   - both systemd units pass `systemd-analyze verify`, and their exposure (`systemd-analyze security`)
#     stays at 2.0 or below;
#   - deploy/prometheus.yml and deploy/alerts.yml pass promtool;
#   - deploy/grafana-dashboard.json is JSON, and every query in it is PromQL promtool accepts;
#   - with a metrics file as the first argument (what GET /metrics of a running worker answers), every metric
#     the alerts and the dashboard use is in it.
# Installs what is missing with apt-get (update first, sudo when not root), through scripts/debian-packages.sh:
# systemd (systemd-analyze), prometheus (promtool; on a host that runs systemd, installing it also starts a
# Prometheus server on :9090, so run this on a build or CI machine), python3 and python3-yaml, and the build
# packages that script always wants (libcurl4-openssl-dev, libsqlite3-dev, pkg-config).
#
# Usage: scripts/check-deploy.sh [METRICS-FILE]
#   curl -fsS http://127.0.0.1:8787/metrics > /tmp/metrics.txt && scripts/check-deploy.sh /tmp/metrics.txt
#
# How the units are verified: `systemd-analyze verify` fails when a unit's ExecStart= (or ExecReload=)
# binary does not exist, and /usr/local/bin/liverelay usually does not on the machine that checks. So the
# units are verified as shipped, byte for byte, inside a throwaway root (--root): the host's unit files
# (for sysinit.target, network-online.target, …), the two units in etc/systemd/system, and an empty
# placeholder executable for each command the units run. Nothing outside the temporary folder is written.
# verify prints warnings (an unknown key, a bad value) and still exits 0, so any output counts as a failure.
set -euo pipefail

metrics_file=${1:-}
if [ -n "$metrics_file" ]; then
    if [ ! -r "$metrics_file" ]; then
        echo "cannot read the metrics file $metrics_file" >&2
        exit 2
    fi
    metrics_file=$(realpath "$metrics_file")
fi
cd "$(dirname "$0")/.."

. scripts/debian-packages.sh
liverelay_install_packages systemd prometheus python3 python3-yaml
# Debian's python3 (it sees python3-yaml); another python3 first in PATH may not.
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3

passed=0
failed=0
pass() {
    echo "ok:   $1"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL: $1"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/      /'
    failed=$((failed + 1))
}

work=$(mktemp -d /tmp/liverelay-check-deploy.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- systemd units ---------------------------------------------------------------------------------------
units=(deploy/liverelay.service deploy/liverelay@.service)
root="$work/root"
mkdir -p "$root/etc/systemd/system" "$root/usr/lib/systemd"
for dir in /usr/lib/systemd/system /lib/systemd/system; do
    if [ -d "$dir" ] && [ ! -d "$root/usr/lib/systemd/system" ]; then
        cp -a "$dir" "$root/usr/lib/systemd/system"
    fi
done
cp "${units[@]}" "$root/etc/systemd/system/"
# One placeholder per command: the first word of every Exec*= line, without systemd's prefixes (-@:+!).
for unit in "${units[@]}"; do
    sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit"
done | sort -u | while read -r command; do
    case "$command" in
    /*) ;;
    *) continue ;; # a bare name is looked up at start; verify does not need it
    esac
    mkdir -p "$root$(dirname "$command")"
    printf '#!/bin/sh\nexit 0\n' >"$root$command"
    chmod 0755 "$root$command"
done
for unit in liverelay.service liverelay@w1.service; do
    if output=$(systemd-analyze verify --man=no --root="$root" "$unit" 2>&1) && [ -z "$output" ]; then
        pass "systemd-analyze verify $unit"
    else
        fail "systemd-analyze verify $unit" "$output"
    fi
    # The overall exposure, 0.0 (locked down) to 10.0; --threshold is in tenths.
    output=$(systemd-analyze security --offline=yes --threshold=20 --root="$root" "$unit" 2>&1) && ok=true || ok=false
    exposure=$(printf '%s\n' "$output" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    if $ok && [ -n "$exposure" ]; then
        pass "systemd-analyze security $unit: exposure $exposure (2.0 or below)"
    else
        fail "systemd-analyze security $unit: exposure ${exposure:-unknown}, above 2.0" \
            "$(printf '%s\n' "$output" | grep -E 'Overall|EXPOSURE|^✗' || printf '%s\n' "$output")"
    fi
done

# --- Prometheus ------------------------------------------------------------------------------------------
if output=$(promtool check config deploy/prometheus.yml 2>&1); then
    pass "promtool check config deploy/prometheus.yml"
else
    fail "promtool check config deploy/prometheus.yml" "$output"
fi
if output=$(promtool check rules deploy/alerts.yml 2>&1); then
    pass "promtool check rules deploy/alerts.yml ($(printf '%s\n' "$output" | grep -o '[0-9]* rules found' | head -1))"
else
    fail "promtool check rules deploy/alerts.yml" "$output"
fi

# --- Grafana ---------------------------------------------------------------------------------------------
dashboard_ok=false
if output=$($python -m json.tool deploy/grafana-dashboard.json 2>&1 >/dev/null); then
    pass "deploy/grafana-dashboard.json is JSON"
    dashboard_ok=true
else
    fail "deploy/grafana-dashboard.json is not JSON" "$output"
fi

# Every query, with Grafana's variables given plain values, as a recording rule promtool parses.
if $dashboard_ok; then
    $python - deploy/grafana-dashboard.json >"$work/dashboard-rules.yml" <<'EOF'
import json, sys
dashboard = json.load(open(sys.argv[1]))
def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))
print("groups:\n  - name: dashboard\n    rules:")
n = 0
for p in panels(dashboard["panels"]):
    for t in p.get("targets", []):
        expr = t.get("expr")
        if not expr:
            continue
        for var, value in (("$__rate_interval", "1m"), ("$__range", "1h"), ("$__interval", "1m"),
                           ("$job", ".*"), ("$instance", ".*")):
            expr = expr.replace(var, value)
        n += 1
        print(f"      - record: dashboard:query{n}\n        expr: {json.dumps(expr)}")
EOF
    if output=$(promtool check rules "$work/dashboard-rules.yml" 2>&1); then
        pass "deploy/grafana-dashboard.json: every query parses ($(grep -c 'record:' "$work/dashboard-rules.yml") queries)"
    else
        fail "deploy/grafana-dashboard.json: a query does not parse" "$output"
    fi
fi

# --- Metric names ----------------------------------------------------------------------------------------
if [ -n "$metrics_file" ]; then
    if output=$($python - deploy/alerts.yml deploy/grafana-dashboard.json "$metrics_file" 2>&1 <<'EOF'
import json, re, sys
import yaml

alerts_path, dashboard_path, metrics_path = sys.argv[1:4]
exprs = []
for group in yaml.safe_load(open(alerts_path))["groups"]:
    exprs += [rule["expr"] for rule in group["rules"]]
def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))
dashboard = json.load(open(dashboard_path))
for p in panels(dashboard["panels"]):
    exprs += [t["expr"] for t in p.get("targets", []) if t.get("expr")]
for v in dashboard.get("templating", {}).get("list", []):
    q = v.get("query")
    exprs.append(q.get("query", "") if isinstance(q, dict) else (q or ""))

name = re.compile(r"(?<![A-Za-z0-9_:])((?:liverelay|process)_[A-Za-z0-9_:]*)")
strings = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
suffix = re.compile(r"_(?:bucket|sum|count)$")
used = set()
for expr in exprs:
    for n in name.findall(strings.sub('""', expr)):
        used.add(suffix.sub("", n))

present = set()
for line in open(metrics_path, encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("# TYPE "):
        parts = line.split()
        if len(parts) >= 3:
            present.add(parts[2])
    elif line and not line.startswith("#"):
        sample = re.split(r"[{\s]", line, maxsplit=1)[0]
        present.add(sample)
        present.add(suffix.sub("", sample))

# Series that only a worker on a shared store (PostgreSQL) has: one per other worker's heartbeat. A worker on
# SQLite (the demo config the tests scrape) has none, and that is right.
shared_only = {"liverelay_worker_heartbeat_age_seconds"}
if "liverelay_workers_seen" in present:
    present |= shared_only
# Series of the HTTP/2 push lane: a worker whose providers use none (the demo config's console provider) has
# none, and that is right.
lane_only = {"liverelay_push_connections"}
present |= lane_only
missing = sorted(used - present)
for n in missing:
    print(f"missing: {n}")
print(f"{len(used)} metric names used, {len(used) - len(missing)} found")
sys.exit(1 if missing else 0)
EOF
    ); then
        pass "metric names in $metrics_file: $(printf '%s\n' "$output" | tail -1)"
    else
        fail "metric names in $metrics_file: $(printf '%s\n' "$output" | tail -1)" "$(printf '%s\n' "$output" | sed '$d')"
    fi
else
    echo "skip: metric names (give the output of GET /metrics as the first argument to check them)"
fi

echo "deploy checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
