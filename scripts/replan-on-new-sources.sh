# Sourced by the scripts that build a package of their own on top of this checkout (Benchmarks/, Fuzz/).
# SwiftPM plans such a package's build again only when its manifest changes, not when a source file of the
# main package (its path dependency) is added, moved or removed: the old plan then misses the new file or
# names the old one. The list of the main package's source files is kept in the package's build folder;
# when it differs, the manifest is touched so that the next build plans again.
#   liverelay_replan_on_new_sources <package dir> <build dir>     (before the build)
#   liverelay_record_sources <build dir>                          (after a build that succeeded)
liverelay_sources() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/.." && find Sources -name '*.swift' -o -name '*.h' -o -name '*.modulemap') |
        LC_ALL=C sort
}

liverelay_replan_on_new_sources() {
    mkdir -p "$2"
    if [ "$(liverelay_sources)" != "$(cat "$2/sources.list" 2>/dev/null)" ]; then touch "$1/Package.swift"; fi
}

liverelay_record_sources() {
    liverelay_sources > "$1/sources.list"
}
