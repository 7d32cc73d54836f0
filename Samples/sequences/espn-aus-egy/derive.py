#!/usr/bin/env python3
"""Derives the match moments between the real ESPN recordings of AUS v EGY (event 760499).

The three real recordings (first half 0-1, extra time 1-1, final after penalties) are in
Samples/recordings/. The moments between them are made from the first recording by changing only
event 760499's status, clock and score, exactly as ESPN reports those states for the other matches
of the same recordings (STATUS_SCHEDULED without `period`, STATUS_HALFTIME, STATUS_SECOND_HALF).
Every other event stays byte-for-byte as recorded. Run from this folder; it rewrites the derived files.
"""
import copy
import json

SOURCE = "../../recordings/espn-soccer-scoreboard-1-first-half.json"
EVENT = "760499"

STATES = {
    "01-pre-match.json": dict(name="STATUS_SCHEDULED", id="1", state="pre", description="Scheduled",
                              detail="Fri, July 3rd at 2:00 PM EDT", short="Scheduled",
                              clock=0.0, display="0'", period=None, score=("0", "0")),
    "02-kick-off.json": dict(name="STATUS_FIRST_HALF", id="22", state="in", description="First Half",
                             detail="1'", short="1'", clock=60.0, display="1'", period=1, score=("0", "0")),
    "03-twenty-minutes.json": dict(name="STATUS_FIRST_HALF", id="22", state="in", description="First Half",
                                   detail="20'", short="20'", clock=1200.0, display="20'", period=1,
                                   score=("0", "0")),
    "05-half-time.json": dict(name="STATUS_HALFTIME", id="23", state="in", description="Halftime",
                              detail="HT", short="HT", clock=2700.0, display="HT", period=1, score=("0", "1")),
    "06-equaliser.json": dict(name="STATUS_SECOND_HALF", id="22", state="in", description="Second Half",
                              detail="78'", short="78'", clock=4680.0, display="78'", period=2, score=("1", "1")),
}


def derive(base, s):
    doc = copy.deepcopy(base)
    event = next(e for e in doc["events"] if e["id"] == EVENT)
    for status in (event["status"], event["competitions"][0]["status"]):
        status["clock"] = s["clock"]
        status["displayClock"] = s["display"]
        if s["period"] is None:
            status.pop("period", None)
        else:
            status["period"] = s["period"]
        status["type"].update(id=s["id"], name=s["name"], state=s["state"], completed=False,
                              description=s["description"], detail=s["detail"], shortDetail=s["short"])
    for competitor, score in zip(event["competitions"][0]["competitors"], s["score"]):
        competitor["score"] = score
    return doc


if __name__ == "__main__":
    with open(SOURCE) as f:
        base = json.load(f)
    for name, state in STATES.items():
        with open(name, "w") as f:
            json.dump(derive(base, state), f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
