#!/usr/bin/env bash
# Installs the Debian packages LiveRelay builds against when they are missing: the headers of libcurl (feeds),
# nghttp2 and OpenSSL (the push lane) and SQLite, and pkg-config. Runs apt-get update first, and sudo when not
# root. Sourced by scripts/demo and
# scripts/test; does nothing when everything is there. Arguments are more packages: the tests add
# liverelay_test_packages.

# What the tests need beyond the build: a headless browser that opens the replay report
# (Tests/ReportTests/ReportBrowserTests.swift) and renders its screenshot (scripts/report-screenshot), and
# PostgreSQL for the store suite (scripts/postgres-cluster.sh runs a throwaway cluster), and gdb for the
# threads' stacks of a test process that hangs (scripts/test).
liverelay_test_packages=(chromium postgresql jq gdb)
liverelay_install_packages() {
    local wanted=(libcurl4-openssl-dev libnghttp2-dev libssl-dev libsqlite3-dev pkg-config "$@")
    local missing=()
    if ! command -v dpkg >/dev/null 2>&1; then
        echo "not a Debian system: make sure these are installed: ${wanted[*]}" >&2
        return 0
    fi
    for package in "${wanted[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local run=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
            return 1
        fi
        run=(sudo)
    fi
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    "${run[@]}" apt-get update -q >&2
    "${run[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}
