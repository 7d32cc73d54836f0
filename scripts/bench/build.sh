#!/usr/bin/env bash
# Builds liverelay-bench: the benchmarks' package (Benchmarks/, release, against this checkout), kept out of the
# main package so the everyday build and tests do not compile it. Prints the binary's path on stdout.
#   usage: bench=$(scripts/bench/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/replan-on-new-sources.sh
liverelay_replan_on_new_sources Benchmarks Benchmarks/.build
swift build -c release --package-path Benchmarks --product liverelay-bench >&2
liverelay_record_sources Benchmarks/.build
echo "$(swift build -c release --package-path Benchmarks --show-bin-path)/liverelay-bench"
