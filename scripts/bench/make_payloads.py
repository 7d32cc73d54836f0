#!/usr/bin/env python3
"""Writes the pushes every fan-out client sends: 160-hex Live Activity tokens and realistic 300–600-byte
update payloads (a match's content-state, some with an alert), one JSON object a line."""
import json
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rng = random.Random(42)
teams = [("Australia", "AUS"), ("Egypt", "EGY"), ("Brazil", "BRA"), ("Japan", "JPN"), ("France", "FRA"), ("Sweden", "SWE")]
for i in range(count):
    (home, ha), (away, aa) = rng.sample(teams, 2)
    hs, as_ = rng.randint(0, 4), rng.randint(0, 4)
    minute = rng.randint(1, 120)
    state = {"homeTeam": home, "awayTeam": away, "homeScore": hs, "awayScore": as_, "clock": f"{minute}'",
             "period": 1 if minute <= 45 else 2, "status": "STATUS_FIRST_HALF" if minute <= 45 else "STATUS_SECOND_HALF",
             "lastEvent": rng.choice(["Corner", "Free kick", "Yellow card", "Substitution", "Shot on target"]),
             "possession": {"home": rng.randint(35, 65)}, "venue": "Estadio Azteca, Mexico City"}
    aps = {"timestamp": 1783104240 + i, "event": "update", "content-state": state,
           "relevance-score": rng.choice([20, 50, 100]), "stale-date": 1783105140 + i}
    if i % 5 == 0:
        aps["alert"] = {"title": f"Goal! {home}", "body": f"{ha} {hs}–{as_} {aa} ({minute}')", "sound": "default"}
    payload = {"aps": aps}
    size = len(json.dumps(payload, separators=(",", ":")))
    assert 300 <= size <= 600, size
    print(json.dumps({"token": "%0160x" % rng.getrandbits(640), "payload": payload, "priority": 10 if "alert" in aps else 5}))
