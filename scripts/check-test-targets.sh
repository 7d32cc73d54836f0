#!/usr/bin/env bash
# The tests of the pure and near-pure modules build without the worker's heavy dependencies: on a two-core
# machine `swift build --target RulesTests` (and FeedsTests, HTTPTests, DeliveryTests, StoreCoreTests: the
# store's values, role protocols and shared rules) must compile neither
# Hummingbird nor GRDB nor postgres-nio. Read from the package's own description (`swift package describe`):
# the targets each test target reaches, and the products they use. Fails naming the path that brings one in.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package describe --type json 2>/dev/null | python3 -c '
import json, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
heavy = {"Hummingbird", "GRDB", "PostgresNIO", "Worker", "Store", "PostgresStore"}
failed = False
for test in [
    "RulesTests", "FeedsTests", "HTTPTests", "DeliveryTests", "LiveRelayCoreTests", "ThrottlingTests", "StoreCoreTests",
]:
    seen, paths, queue = set(), {test: [test]}, [test]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        target = targets[name]
        for product in target.get("product_dependencies", []):
            if product in heavy:
                print(f"{test} reaches {product}: " + " -> ".join(paths[name] + [product]))
                failed = True
        for dependency in target.get("target_dependencies", []):
            if dependency in heavy:
                print(f"{test} reaches {dependency}: " + " -> ".join(paths[name] + [dependency]))
                failed = True
            elif dependency not in paths:
                paths[dependency] = paths[name] + [dependency]
                queue.append(dependency)
    if not failed:
        print(f"{test}: {len(seen) - 1} targets, none of {sorted(heavy)}")
sys.exit(1 if failed else 0)
'
