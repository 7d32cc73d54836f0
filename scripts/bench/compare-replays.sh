#!/usr/bin/env bash
# Times the goal's replay (goal-replay.sh) of two builds in turns, A B A B …, after one warm-up of each, and
# prints each build's CPU and wall seconds (min, median, max) and the ratio A/B pair by pair: a comparison
# that holds while the machine's speed drifts. Needs goal-cli.sh run once first (its config and token file).
#   usage: scripts/bench/compare-replays.sh BINARY_A BINARY_B [pairs, 8]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 BINARY_A BINARY_B [pairs]" >&2; exit 2; }
a=$1 b=$2 pairs=${3:-8}
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
scripts/bench/goal-replay.sh "$a"
scripts/bench/goal-replay.sh "$b"
for _ in $(seq "$pairs"); do
    for which in a b; do
        binary=$a
        [ "$which" = b ] && binary=$b
        /usr/bin/time -f "$which %e %U %S" -a -o "$out" scripts/bench/goal-replay.sh "$binary"
    done
done
python3 - "$out" "$a" "$b" <<'PY'
import statistics, sys
rows = {"a": [], "b": []}
for line in open(sys.argv[1]):
    which, wall, user, system = line.split()
    rows[which].append((float(wall), float(user) + float(system)))
def spread(values):
    return f"{min(values):.3f}, {statistics.median(values):.3f}, {max(values):.3f}"
for which, binary in (("a", sys.argv[2]), ("b", sys.argv[3])):
    print(f"{which} {binary}: CPU s {spread([r[1] for r in rows[which]])}; wall s {spread([r[0] for r in rows[which]])}")
for index, name in ((1, "CPU"), (0, "wall")):
    ratios = [x[index] / y[index] for x, y in zip(rows["a"], rows["b"])]
    print(f"a/b {name}, pair by pair (min, median, max): {spread(ratios)}")
PY
