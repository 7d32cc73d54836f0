#!/usr/bin/env python3
"""Derives the moments of West Ham v Fulham (football-data.org match 537964, 27 Dec 2025) that the three
real recordings in Samples/recordings/ do not cover.

The real recordings are half-time (PAUSED, 0-0), the second half (IN_PLAY, 0-0) and Fulham's goal
(IN_PLAY, 0-1). Derived here, for the five matches that kicked off at 15:00 (the other 65 matches stay
byte-for-byte as recorded):
- 01-pre-match: from the half-time recording, each match TIMED with the null scores football-data sends
  before kick-off (as the recording's own TIMED matches show);
- 02-kick-off: each match IN_PLAY at 0-0, `halfTime` still null (football-data sets it at PAUSED);
- 06-full-time: from the goal recording, each match FINISHED with the score it had, `winner` from it.
`lastUpdated` moves with each change, as it does in the recordings. Run from this folder; it rewrites the
derived files.
"""
import copy
import json

RECORDINGS = "../../recordings/"
KICK_OFF = "2025-12-27T15:00:00Z"


def load(name):
    with open(RECORDINGS + name) as f:
        return json.load(f)


def live_matches(doc):
    return [m for m in doc["matches"] if m["utcDate"] == KICK_OFF]


def pre_match(base):
    doc = copy.deepcopy(base)
    for m in live_matches(doc):
        m["status"] = "TIMED"
        m["lastUpdated"] = "2025-12-27T14:40:00Z"
        m["score"] = {"winner": None, "duration": "REGULAR",
                      "fullTime": {"home": None, "away": None}, "halfTime": {"home": None, "away": None}}
    return doc


def kick_off(base):
    doc = copy.deepcopy(base)
    for m in live_matches(doc):
        m["status"] = "IN_PLAY"
        m["lastUpdated"] = "2025-12-27T15:01:02Z"
        m["score"]["winner"] = "DRAW"
        m["score"]["fullTime"] = {"home": 0, "away": 0}
        m["score"]["halfTime"] = {"home": None, "away": None}
    return doc


def full_time(base):
    doc = copy.deepcopy(base)
    for m in live_matches(doc):
        m["status"] = "FINISHED"
        m["lastUpdated"] = "2025-12-27T16:56:10Z"
        score = m["score"]
        home, away = score["fullTime"]["home"], score["fullTime"]["away"]
        score["winner"] = "HOME_TEAM" if home > away else "AWAY_TEAM" if away > home else "DRAW"
        # A finished league match carries only these, as the recording's FINISHED matches show.
        m["score"] = {k: score[k] for k in ("winner", "duration", "fullTime", "halfTime")}
    return doc


if __name__ == "__main__":
    half_time = load("football-data-pl-matches-1-halftime-paused.json")
    goal = load("football-data-pl-matches-3-in-play-after-goal.json")
    for name, doc in [("01-pre-match.json", pre_match(half_time)), ("02-kick-off.json", kick_off(half_time)),
                      ("06-full-time.json", full_time(goal))]:
        with open(name, "w") as f:
            json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
