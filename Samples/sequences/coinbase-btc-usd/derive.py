#!/usr/bin/env python3
"""Derives a few minutes of Coinbase Exchange's BTC-USD ticker after the real recording in
Samples/recordings/ (`/products/BTC-USD/ticker`, 3 Oct 2017 04:00:31 UTC, 4417.01).

Each step is the recorded object with a new trade: `trade_id` counting up, `price` and `size` of the
trade, `bid` and `ask` around it, `volume` grown by the trade, and `time` later. Keys and number formats
are as Coinbase writes them. Run from this folder; it rewrites the derived files.
"""
import json
from decimal import Decimal

SOURCE = "../../recordings/coinbase-exchange-ticker-btc-usd.json"

STEPS = {
    "02-small-move.json": (21554190, "4420.50000000", "0.01500000", "2017-10-03T04:01:34.120000Z"),
    "03-jump.json": (21554377, "4530.00000000", "0.25000000", "2017-10-03T04:02:33.904000Z"),
    "04-holds.json": (21554402, "4525.10000000", "0.04210000", "2017-10-03T04:03:35.511000Z"),
}

if __name__ == "__main__":
    with open(SOURCE) as f:
        ticker = json.load(f)
    for name, (trade, price, size, time) in STEPS.items():
        ticker = dict(ticker, trade_id=trade, price=price, size=size, time=time,
                      bid=str(Decimal(price) - Decimal("0.01")).rstrip("0").rstrip("."),
                      ask=str(Decimal(price)).rstrip("0").rstrip("."),
                      volume=str(Decimal(ticker["volume"]) + Decimal(size)))
        with open(name, "w") as f:
            json.dump(ticker, f, separators=(",", ":"))
