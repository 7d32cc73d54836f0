#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs one or all of them.
#
#   scripts/fuzz.sh [json|rules|feeds|config|tokenapi|all] [seconds]    (default: all, 600 seconds each)
#
# Needs the Swift toolchain (libFuzzer and ASan ship with it); jq, when present, trims the large recordings
# and splits the JsonLogic suite into seeds. Everything it makes goes to $FUZZ_WORK (default
# ${TMPDIR:-/tmp}/liverelay-fuzz): seeds (rebuilt from the repository on every run), the corpus each target
# grows (kept between runs), logs, and crash artifacts. Nothing is written into the repository except
# Fuzz/.build (FUZZ_SCRATCH names another build folder). Builds and runs are niced (FUZZ_NICE, default 15);
# FUZZ_JOBS=2 runs two targets at once.
# Exit status: 0 when no target found a crash, 1 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${FUZZ_WORK:-${TMPDIR:-/tmp}/liverelay-fuzz}
NICE=${FUZZ_NICE:-15}
JOBS=${FUZZ_JOBS:-1}
ALL=(json rules feeds config tokenapi)
TARGET=${1:-all}
SECONDS_EACH=${2:-600}

case "$TARGET" in
    all) TARGETS=("${ALL[@]}") ;;
    json | rules | feeds | config | tokenapi) TARGETS=("$TARGET") ;;
    *)
        echo "usage: $0 [${ALL[*]// /|}|all] [seconds]" >&2
        exit 2
        ;;
esac

SCRATCH=${FUZZ_SCRATCH:-$ROOT/Fuzz/.build}
. "$ROOT/scripts/replan-on-new-sources.sh"
BUILD_FLAGS=(-c release --package-path "$ROOT/Fuzz" --scratch-path "$SCRATCH"
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing -Xswiftc -g)

build() {
    local products=()
    if [ "$TARGET" != all ]; then products=(--product "fuzz-$TARGET"); fi
    echo "== building ${products[*]:-all targets} (release, -sanitize=fuzzer,address)"
    liverelay_replan_on_new_sources "$ROOT/Fuzz" "$SCRATCH"
    nice -n "$NICE" swift build "${BUILD_FLAGS[@]}" "${products[@]}"
    liverelay_record_sources "$SCRATCH"
    BIN=$(nice -n "$NICE" swift build "${BUILD_FLAGS[@]}" --show-bin-path)
}

# A seed file: copied as is when small; a large JSON document is cut down (every array to its first two
# elements) so that the fuzzer mutates something it can run thousands of times a second.
seed() { # source destination [prefix-byte-octal]
    local source=$1 destination=$2 prefix=${3:-}
    {
        if [ -n "$prefix" ]; then printf "\\$prefix"; fi
        if [ "$(wc -c <"$source")" -gt 32768 ] && command -v jq >/dev/null; then
            jq -c 'walk(if type == "array" then .[:2] else . end)' "$source"
        else
            cat "$source"
        fi
    } >"$destination"
}

# The keys a JSON schema names, as dictionary entries.
schema_words() {
    command -v jq >/dev/null || return 0
    jq -r '.. | objects | (.properties // {}) | keys[]' "$1" | sort -u | sed 's/.*/"\\"&\\""/'
    jq -r '.. | objects | .enum? // empty | .[] | strings' "$1" | sort -u | sed 's/.*/"\\"&\\""/'
}

prepare() {
    local t=$1 seeds="$WORK/seeds/$1" i=0
    rm -rf "$seeds"
    mkdir -p "$seeds" "$WORK/corpus/$t" "$WORK/artifacts/$t" "$WORK/logs"
    cp "$ROOT/Fuzz/Dictionaries/json.dict" "$WORK/$t.dict"
    case $t in
        json)
            while IFS= read -r f; do
                i=$((i + 1))
                seed "$f" "$seeds/$i.json"
            done < <(find "$ROOT/Samples" "$ROOT/Rules" "$ROOT/docs" "$ROOT/Tests/RulesTests" -name '*.json')
            ;;
        rules)
            for f in "$ROOT"/Rules/*.rules.json "$ROOT"/Tests/RulesTests/Fixtures/*.json; do
                i=$((i + 1))
                cp "$f" "$seeds/rules-$i.json"
            done
            # Each JsonLogic test case `[rule, data, expected]` is a seed of its own.
            if command -v jq >/dev/null; then
                jq -c '.[] | arrays' "$ROOT/Tests/RulesTests/Resources/jsonlogic-tests.json" |
                    split -a 4 -l 1 - "$seeds/logic-"
            fi
            cat "$ROOT/Fuzz/Dictionaries/jsonlogic.dict" >>"$WORK/$t.dict"
            schema_words "$ROOT/Rules/rules.schema.json" >>"$WORK/$t.dict"
            ;;
        feeds)
            # The first byte picks the normaliser (see Fuzz/Sources/fuzz-feeds): 0 ESPN, 1 football-data,
            # 2 Binance, 3 Coinbase, 4 Kraken, 5 CoinGecko, 6 the demo's generic mapping; 7 is a mapping,
            # a NUL byte and a body.
            for f in "$ROOT"/Samples/recordings/*.json "$ROOT"/Samples/sequences/*/[0-9]*.json; do
                case $(basename "$f") in
                    *.headers.json) continue ;;
                esac
                local p
                case $f in
                    *espn*) p=000 ;;
                    *football-data*) p=001 ;;
                    *binance*) p=002 ;;
                    *coinbase*) p=003 ;;
                    *kraken*) p=004 ;;
                    *coingecko*) p=005 ;;
                    *) continue ;;
                esac
                i=$((i + 1))
                seed "$f" "$seeds/$i.json" "$p"
                case $p in 000)
                    i=$((i + 1))
                    seed "$f" "$seeds/$i.json" 006
                    ;;
                esac
            done
            if command -v jq >/dev/null; then
                {
                    printf '\007'
                    jq -c '.feeds[0].mapping' "$ROOT/Samples/demo/liverelay.json" | tr -d '\n'
                    printf '\000'
                    jq -c 'walk(if type == "array" then .[:2] else . end)' \
                        "$ROOT/Samples/recordings/espn-soccer-scoreboard-1-first-half.json"
                } >"$seeds/mapping.json"
            fi
            ;;
        config)
            for f in "$ROOT"/Samples/demo/*.json "$ROOT"/Samples/presets/*.json; do
                i=$((i + 1))
                cp "$f" "$seeds/config-$i.json"
            done
            schema_words "$ROOT/docs/liverelay.schema.json" >>"$WORK/$t.dict"
            ;;
        tokenapi)
            cp "$ROOT"/Fuzz/Seeds/tokenapi/* "$seeds/"
            ;;
    esac
}

# Runs one target; prints its figures from libFuzzer's log.
run() {
    local t=$1 log="$WORK/logs/$1.log"
    local corpus_before
    corpus_before=$(find "$WORK/corpus/$t" -type f | wc -l)
    # Crashes of earlier runs stay where they are; only this run's are reported.
    local stamp="$WORK/artifacts/$t/.started"
    touch "$stamp"
    local started=$SECONDS
    set +e
    nice -n "$NICE" "$BIN/fuzz-$t" "$WORK/corpus/$t" "$WORK/seeds/$t" -dict="$WORK/$t.dict" \
        -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$WORK/artifacts/$t/" >"$log" 2>&1
    local status=$?
    local elapsed=$((SECONDS - started))
    set -e
    local last runs artifacts
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | head -n 1)
    artifacts=$(find "$WORK/artifacts/$t" -type f -newer "$stamp" ! -name .started)
    {
        echo "== $t: ${elapsed}s of ${SECONDS_EACH}s, exit $status"
        echo "   runs: ${runs:-?}   last status: ${last:-none}"
        echo "   corpus: $(find "$WORK/corpus/$t" -type f | wc -l) files (was $corpus_before)   log: $log"
        if [ -n "$artifacts" ]; then
            echo "   CRASH: $artifacts"
            grep -m 3 -E 'ERROR:|Fatal error|invariant violated|deadly signal' "$log" | sed 's/^/   /'
        else
            echo "   no crash"
        fi
    } | tee "$WORK/logs/$t.summary"
    [ -z "$artifacts" ]
}

# A fatal error traps straight to libFuzzer, which prints the stack and saves the input (the Swift
# backtracer reads raw stack memory, which ASan reports as an error of its own).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
# Leaks of the toolchain's own libraries, not of LiveRelay (see the file).
export LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p "$WORK"
build
for t in "${TARGETS[@]}"; do prepare "$t"; done
failed=0
if [ "$JOBS" -gt 1 ]; then
    running=()
    for t in "${TARGETS[@]}"; do
        if [ "${#running[@]}" -ge "$JOBS" ]; then
            wait "${running[0]}" || failed=1
            running=("${running[@]:1}")
        fi
        run "$t" &
        running+=($!)
    done
    for p in "${running[@]}"; do wait "$p" || failed=1; done
else
    for t in "${TARGETS[@]}"; do run "$t" || failed=1; done
fi
exit $failed
