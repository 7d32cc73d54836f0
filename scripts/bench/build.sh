#!/usr/bin/env bash
# Builds liverelay-bench: the benchmarks' package (Benchmarks/, release, against this checkout), kept out of the
# main package so the everyday build and tests do not compile it. Prints the binary's path on stdout.
#   usage: bench=$(scripts/bench/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp /tmp/liverelay-bench-build.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! swift build -c release --package-path Benchmarks --product liverelay-bench 2>&1 | tee "$log" >&2; then
    # A file moved in the checkout leaves the benchmarks' build plan naming its old path ("missing inputs"):
    # SwiftPM plans again once the manifest is newer than the plan.
    grep -q 'because of missing inputs' "$log" || exit 1
    echo "build.sh: a source file moved since the last build; planning the benchmarks' build again" >&2
    touch Benchmarks/Package.swift
    swift build -c release --package-path Benchmarks --product liverelay-bench >&2
fi
echo "$(swift build -c release --package-path Benchmarks --show-bin-path)/liverelay-bench"
