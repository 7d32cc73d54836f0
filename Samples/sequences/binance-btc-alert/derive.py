#!/usr/bin/env python3
"""Derives half an hour of Binance 24-hour tickers for BTCUSDT and ETHUSDT from the real recording in
Samples/recordings/ (`/api/v1/ticker/24hr`, 22 Aug 2019), scaled to the price levels the price-alert rules
are written for: BTC around 100,000, ETH around 3,800.

Each step is the two symbols' recorded tickers (every field Binance sends, as recorded) with a new last
price, the open price set so the 24-hour change is the one listed, the change and change percent
recomputed from them (percent with 3 decimals, as Binance writes it), the low and high widened to the
price, and the window's open and close times advanced. Run from this folder; it rewrites the derived files.
"""
import copy
import json
from decimal import Decimal, ROUND_HALF_UP

SOURCE = "../../recordings/binance-ticker-24hr-all-symbols.json"
RECORDED_CLOSE_MS = 1566445170532

# file: (seconds after the first step, {symbol: (last price, 24-hour change in percent)})
STEPS = {
    "01-before.json": (0, {"BTCUSDT": ("98500.00", "-1.50"), "ETHUSDT": ("3790.00", "1.80")}),
    "02-eth-moves.json": (60, {"BTCUSDT": ("98950.00", "-1.05"), "ETHUSDT": ("3812.00", "2.40")}),
    "03-btc-crosses.json": (120, {"BTCUSDT": ("100120.50", "0.12"), "ETHUSDT": ("3815.00", "2.48")}),
    "04-btc-drifts.json": (180, {"BTCUSDT": ("100350.00", "0.35"), "ETHUSDT": ("3816.10", "2.51")}),
    "05-btc-drifts-on.json": (240, {"BTCUSDT": ("100650.00", "0.65"), "ETHUSDT": ("3817.00", "2.53")}),
    "06-calm.json": (300, {"BTCUSDT": ("100700.00", "0.70"), "ETHUSDT": ("3816.50", "2.52")}),
}


def fmt(d, places=8):
    return str(d.quantize(Decimal(1).scaleb(-places)))


def ticker(recorded, price, percent, seconds):
    t = copy.deepcopy(recorded)
    last = Decimal(price)
    pct = Decimal(percent)
    open_price = (last / (1 + pct / 100)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    change = last - open_price
    t["lastPrice"] = fmt(last)
    t["openPrice"] = fmt(open_price)
    t["prevClosePrice"] = fmt(open_price)
    t["priceChange"] = fmt(change)
    t["priceChangePercent"] = str((change / open_price * 100).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))
    t["highPrice"] = fmt(max(last, open_price) + Decimal("120"))
    t["lowPrice"] = fmt(min(last, open_price) - Decimal("120"))
    t["bidPrice"] = fmt(last - Decimal("0.01"))
    t["askPrice"] = fmt(last)
    t["closeTime"] = RECORDED_CLOSE_MS + seconds * 1000
    t["openTime"] = t["closeTime"] - 86_400_000
    return t


def main():
    with open(SOURCE) as f:
        recorded = {t["symbol"]: t for t in json.load(f)}
    for name, (seconds, moves) in STEPS.items():
        body = [ticker(recorded[s], p, c, seconds) for s, (p, c) in moves.items()]
        with open(name, "w") as f:
            json.dump(body, f, separators=(",", ":"))
            f.write("\n")
    # A response cut short (the connection dropped mid-body): the first 300 bytes of step 5's body.
    with open("05-btc-drifts-on.json") as f:
        cut = f.read()[:300]
    with open("05b-cut-short.json", "w") as f:
        f.write(cut)


if __name__ == "__main__":
    main()
