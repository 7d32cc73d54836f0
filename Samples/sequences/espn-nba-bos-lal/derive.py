#!/usr/bin/env python3
"""Derives an NBA game on ESPN's basketball scoreboard, Los Angeles Lakers at Boston Celtics, tied at the
end of the fourth quarter and won 118-115 by Boston in overtime.

There is no ESPN basketball recording here, so every body is made from the real ESPN soccer scoreboard in
Samples/recordings/ (espn-soccer-scoreboard-1-first-half.json): its layout (leagues, events, provider), the
order and names of an event's members, of its competition and of a competitor, are kept, and the recorded
`provider` is kept as it is. What ESPN's basketball scoreboard
(site.api.espn.com/apis/site/v2/sports/basketball/nba/scoreboard) has instead was checked against public
NBA and NFL scoreboard bodies:

- the league is the NBA (`"uid": "s:40~l:46"`, sport 40 is basketball, league 46; slug `nba`), with a
  regular season (`season.type` 2, `"slug": "regular-season"`), and the body has ESPN's top-level
  `season` and `day`;
- one event, the game (its event id, 401810437, is made up), with basketball's statuses and their ESPN
  ids: STATUS_SCHEDULED (1), STATUS_IN_PROGRESS (2), STATUS_HALFTIME (23), STATUS_END_PERIOD (22),
  STATUS_FINAL (3); `period` 0 before tip-off, 1-4 for the quarters, 5 for overtime; `clock` the seconds
  left in the period, `displayClock` counting down (`5:15`, and tenths in the last minute, `24.6`);
  ESPN's wording in `detail`/`shortDetail` (`5:15 - 4th Quarter`/`5:15 - 4th`, `Halftime`,
  `End of 3rd Quarter`/`End of 3rd`, `4:37 - OT`, `Final/OT` with `"altDetail": "OT"`); `clock` 0 and
  `displayClock` `0:00` at the breaks and at the end;
- competitors with NBA teams (ESPN team ids 2 and 13), the score as a string, `linescores` per quarter,
  and the `winner` flags only once the game is final;
- basketball's `format` (4 regulation periods), the arena, a national broadcast; the soccer-only members
  (goal `details`, `odds`, `tickets`, `form`, soccer `statistics`, `altGameNote`) are left out.

The shapes come from public ESPN bodies kept in other projects: an NBA scoreboard of the 2023-24 season
(league, teams, `linescores`, final flags), NFL scoreboards (STATUS_IN_PROGRESS as `14:18 - 4th Quarter`,
STATUS_HALFTIME with id 23 and the clock at 0, `End of 3rd Quarter`) and NBA, WNBA and NFL finals after
overtime (`Final/OT`, period 5). Made up: the event id, the score line, the attendance (the arena's
capacity), the season's dates (its `calendar` is left empty, as in the soccer recording).

Run from this folder; it rewrites the derived files.
"""
import copy
import json

SOURCE = "../../recordings/espn-soccer-scoreboard-1-first-half.json"
TEMPLATE_EVENT = "760499"
EVENT = "401810437"
DATE = "2026-01-16T00:30Z"  # 7:30 PM EST on Thursday 15 January

LEAGUE = {
    "id": "46",
    "uid": "s:40~l:46",
    "name": "National Basketball Association",
    "abbreviation": "NBA",
    "slug": "nba",
    "season": {
        "year": 2026,
        "startDate": "2025-09-30T07:00Z",
        "endDate": "2026-06-27T06:59Z",
        "displayName": "2025-26",
        "type": {"id": "2", "type": 2, "name": "Regular Season", "abbreviation": "reg"},
    },
    "logos": [
        {"href": "https://a.espncdn.com/i/teamlogos/leagues/500/nba.png", "width": 500, "height": 500,
         "alt": "", "rel": ["full", "default"], "lastUpdated": "2018-06-05T12:07Z"},
        {"href": "https://a.espncdn.com/i/teamlogos/leagues/500-dark/nba.png", "width": 500, "height": 500,
         "alt": "", "rel": ["full", "dark"], "lastUpdated": "2018-06-05T12:07Z"},
    ],
    "calendarType": "day",
    "calendarIsWhitelist": True,
    "calendarStartDate": "2025-09-30T07:00Z",
    "calendarEndDate": "2026-06-27T06:59Z",
    "calendar": [],
}

# side: (ESPN team id, abbreviation, location, name, colour, alternate colour)
TEAMS = {
    "home": ("2", "BOS", "Boston", "Celtics", "008348", "ffffff"),
    "away": ("13", "LAL", "Los Angeles", "Lakers", "552583", "fdb927"),
}

SCHEDULED = dict(id="1", name="STATUS_SCHEDULED", state="pre", completed=False, description="Scheduled",
                 detail="Thu, January 15th at 7:30 PM EST", shortDetail="1/15 - 7:30 PM EST")
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}


def in_progress(period, clock):
    """A running clock: `clock` seconds left in `period`."""
    if clock >= 60:
        display = f"{int(clock) // 60}:{int(clock) % 60:02d}"
    else:
        display = f"{clock:.1f}"
    if period <= 4:
        detail, short = f"{display} - {ORDINALS[period]} Quarter", f"{display} - {ORDINALS[period]}"
    else:
        overtime = "OT" if period == 5 else f"{period - 4}OT"
        detail, short = f"{display} - {overtime}", f"{display} - {overtime}"
    return dict(period=period, clock=float(clock), display=display,
                type=dict(id="2", name="STATUS_IN_PROGRESS", state="in", completed=False,
                          description="In Progress", detail=detail, shortDetail=short))


def stopped(period, type_):
    return dict(period=period, clock=0.0, display="0:00", type=type_)


HALFTIME = dict(id="23", name="STATUS_HALFTIME", state="in", completed=False, description="Halftime",
                detail="Halftime", shortDetail="Halftime")


def end_of(period):
    return dict(id="22", name="STATUS_END_PERIOD", state="in", completed=False, description="End of Period",
                detail=f"End of {ORDINALS[period]} Quarter", shortDetail=f"End of {ORDINALS[period]}")


FINAL_OT = dict(id="3", name="STATUS_FINAL", state="post", completed=True, description="Final",
                detail="Final/OT", shortDetail="Final/OT", altDetail="OT")

# file: (status, points per period so far, home then away)
STEPS = {
    "01-pre-game.json": (stopped(0, SCHEDULED), ([], [])),
    "02-tip-off.json": (in_progress(1, 704), ([0], [0])),
    "03-lakers-lead.json": (in_progress(1, 492), ([9], [12])),
    "04-halftime.json": (stopped(2, HALFTIME), ([28, 26], [30, 28])),
    "05-end-of-third.json": (stopped(3, end_of(3)), ([28, 26, 28], [30, 28, 29])),
    "06-celtics-lead.json": (in_progress(4, 315), ([28, 26, 28, 15], [30, 28, 29, 8])),
    "07-level-late.json": (in_progress(4, 108), ([28, 26, 28, 20], [30, 28, 29, 15])),
    "08-lakers-lead-again.json": (in_progress(4, 24.6), ([28, 26, 28, 20], [30, 28, 29, 17])),
    "09-end-of-regulation.json": (stopped(4, end_of(4)), ([28, 26, 28, 22], [30, 28, 29, 17])),
    "10-overtime.json": (in_progress(5, 277), ([28, 26, 28, 22, 0], [30, 28, 29, 17, 0])),
    "11-final-ot.json": (stopped(5, FINAL_OT), ([28, 26, 28, 22, 14], [30, 28, 29, 17, 11])),
}


def team(template, side):
    team_id, abbreviation, location, name, color, alternate = TEAMS[side]
    slug = f"{location} {name}".lower().replace(" ", "-")
    t = copy.deepcopy(template)
    t.update(id=team_id, uid=f"s:40~l:46~t:{team_id}", abbreviation=abbreviation,
             displayName=f"{location} {name}", shortDisplayName=name, name=name, location=location,
             color=color, alternateColor=alternate,
             logo=f"https://a.espncdn.com/i/teamlogos/nba/500/scoreboard/{abbreviation.lower()}.png")
    pages = [("clubhouse", "Clubhouse", f"https://www.espn.com/nba/team/_/name/{abbreviation.lower()}/{slug}"),
             ("roster", "Roster", f"https://www.espn.com/nba/team/roster/_/name/{abbreviation.lower()}/{slug}"),
             ("stats", "Statistics", f"https://www.espn.com/nba/team/stats/_/name/{abbreviation.lower()}/{slug}"),
             ("schedule", "Schedule", f"https://www.espn.com/nba/team/schedule/_/name/{abbreviation.lower()}")]
    t["links"] = [{"rel": [rel, "desktop", "team"], "href": href, "text": text, "isExternal": False,
                   "isPremium": False, "isHidden": False} for rel, text, href in pages]
    t.pop("venue", None)
    return t


def competitor(template, side, points, final, won):
    c = copy.deepcopy(template)
    for soccer_only in ("form", "statistics"):
        c.pop(soccer_only, None)
    team_id = TEAMS[side][0]
    c.update(id=team_id, uid=f"s:40~l:46~t:{team_id}")
    c["team"] = team(template["team"], side)
    c["score"] = str(sum(points))
    c["linescores"] = [{"value": float(p), "displayValue": str(p), "period": i + 1} for i, p in enumerate(points)]
    if final:
        c["winner"] = won
    else:
        c.pop("winner", None)
    return c


def status(s):
    return {"clock": s["clock"], "displayClock": s["display"], "period": s["period"], "type": dict(s["type"])}


def event(template, s, points):
    home_points, away_points = points
    final = s["type"]["state"] == "post"
    e = copy.deepcopy(template)
    e.update(id=EVENT, uid=f"s:40~l:46~e:{EVENT}", date=DATE, name="Los Angeles Lakers at Boston Celtics",
             shortName="LAL @ BOS", season={"year": 2026, "type": 2, "slug": "regular-season"})
    c = e["competitions"][0]
    for soccer_only in ("tickets", "altGameNote", "details", "odds"):
        c.pop(soccer_only, None)
    c.update(id=EVENT, uid=f"s:40~l:46~e:{EVENT}~c:{EVENT}", date=DATE, startDate=DATE,
             attendance=0 if s["type"]["state"] == "pre" else 19156, recent=s["type"]["state"] != "pre")
    c["status"] = status(s)
    c["venue"] = {"fullName": "TD Garden", "address": {"city": "Boston", "state": "MA"},
                  "indoor": True}
    c["format"] = {"regulation": {"periods": 4}}
    c["geoBroadcasts"] = [{"type": {"id": "1", "shortName": "TV"}, "market": {"id": "1", "type": "National"},
                           "media": {"shortName": "ESPN"}, "lang": "en", "region": "us"}]
    c["broadcasts"] = [{"market": "national", "names": ["ESPN"]}]
    c["broadcast"] = "ESPN"
    home, away = (next(x for x in template["competitions"][0]["competitors"] if x["homeAway"] == side)
                  for side in ("home", "away"))
    total_home, total_away = sum(home_points), sum(away_points)
    c["competitors"] = [competitor(home, "home", home_points, final, total_home > total_away),
                        competitor(away, "away", away_points, final, total_away > total_home)]
    e["status"] = status(s)
    e["venue"] = {"displayName": "TD Garden"}
    pages = [("summary", "Gamecast", "game"), ("boxscore", "Box Score", "boxscore"),
             ("pbp", "Play-by-Play", "playbyplay")]
    e["links"] = [{"language": "en-US", "rel": [rel, "desktop", "event"],
                   "href": f"https://www.espn.com/nba/{page}/_/gameId/{EVENT}", "text": text, "shortText": text,
                   "isExternal": False, "isPremium": False, "isHidden": False} for rel, text, page in pages]
    return e


def derive(recorded, s, points):
    template = next(e for e in recorded["events"] if e["id"] == TEMPLATE_EVENT)
    return {
        "leagues": [LEAGUE],
        "season": {"type": 2, "year": 2026},
        "day": {"date": "2026-01-15"},
        "events": [event(template, s, points)],
        "provider": recorded["provider"],
    }


if __name__ == "__main__":
    with open(SOURCE) as f:
        recorded = json.load(f)
    for name, (s, points) in STEPS.items():
        with open(name, "w") as f:
            json.dump(derive(recorded, s, points), f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
