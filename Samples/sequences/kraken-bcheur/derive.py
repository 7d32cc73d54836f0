#!/usr/bin/env python3
"""Derives a few minutes of Kraken's BCHEUR ticker after the real recording in Samples/recordings/
(`/0/public/Ticker?pair=BCHEUR`, 3 Oct 2017 04:05:18 UTC, last trade 355.4).

- 02-unavailable: Kraken's answer while its service is unavailable: HTTP 200 with the error in `error[]`
  and an empty `result`, the shape Kraken documents for every error;
- 03-jump and 04-holds: the recorded ticker with a new last trade (`c`), ask (`a`) and bid (`b`) around
  it, today's and 24-hour volume (`v`), trade count (`t`) and high (`h`) grown, numbers written with
  Kraken's six (prices) and eight (volumes) decimals.
Run from this folder; it rewrites the derived files.
"""
import copy
import json
from decimal import Decimal

SOURCE = "../../recordings/kraken-ticker-bcheur.json"


def trade(base, price, volume, trades):
    doc = copy.deepcopy(base)
    t = doc["result"]["BCHEUR"]
    p = Decimal(price)
    t["c"] = [f"{p:.6f}", f"{Decimal(volume):.8f}"]
    t["a"] = [f"{p + Decimal('0.1'):.6f}", "2", "2.000"]
    t["b"] = [f"{p:.6f}", "5", "5.000"]
    t["v"] = [f"{Decimal(x) + Decimal(volume):.8f}" for x in t["v"]]
    t["t"] = [n + trades for n in t["t"]]
    t["h"] = [f"{max(Decimal(x), p):.6f}" for x in t["h"]]
    return doc


if __name__ == "__main__":
    with open(SOURCE) as f:
        base = json.load(f)
    docs = {
        "02-unavailable.json": {"error": ["EService:Unavailable"], "result": {}},
        "03-jump.json": trade(base, "364.9", "1.25", 9),
        "04-holds.json": trade(base, "366.0", "0.4", 12),
    }
    for name, doc in docs.items():
        with open(name, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
