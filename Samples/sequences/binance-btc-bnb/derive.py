#!/usr/bin/env python3
"""Derives a few minutes of Binance 24-hour tickers after the real recording in Samples/recordings/
(`/api/v1/ticker/24hr`, all 595 symbols, 22 Aug 2019 03:38:26 UTC, BTCUSDT at 9912.33, -4.322 %).

Each step changes only the listed symbols, the way Binance's own tickers move: a new last price, the
24-hour change recomputed from the symbol's recorded open price (percent with 3 decimals, as Binance
writes it), the low and high widened when the price leaves them, the bid and ask around the price, and
the window's open and close times advanced. Every other symbol stays byte-for-byte as recorded. Step 5
drops BNBUSDT from the list, as Binance does for a symbol whose trading is halted. Run from this folder;
it rewrites the derived files.
"""
import copy
import json
from decimal import Decimal, ROUND_HALF_UP

SOURCE = "../../recordings/binance-ticker-24hr-all-symbols.json"

STEPS = {
    "02-btc-falls.json": (64, {"BTCUSDT": "9750.00"}, []),
    "03-bnb-drops.json": (154, {"BTCUSDT": "9801.50", "BNBUSDT": "25.2000"}, []),
    "04-btc-recovers.json": (394, {"BTCUSDT": "10155.00", "BNBUSDT": "25.3100"}, []),
    "05-bnb-halted.json": (694, {"BTCUSDT": "10160.20"}, ["BNBUSDT"]),
}


def fmt(d, places=8):
    return str(d.quantize(Decimal(1).scaleb(-places)))


def move(ticker, price, seconds):
    last = Decimal(price)
    opening = Decimal(ticker["openPrice"])
    change = last - opening
    ticker["lastPrice"] = fmt(last)
    ticker["priceChange"] = fmt(change)
    ticker["priceChangePercent"] = str((change / opening * 100).quantize(Decimal("0.001"), ROUND_HALF_UP))
    ticker["lowPrice"] = fmt(min(Decimal(ticker["lowPrice"]), last))
    ticker["highPrice"] = fmt(max(Decimal(ticker["highPrice"]), last))
    tick = Decimal("0.01") if last > 100 else Decimal("0.0001")
    ticker["bidPrice"] = fmt(last - tick)
    ticker["askPrice"] = fmt(last)
    ticker["openTime"] += seconds * 1000
    ticker["closeTime"] += seconds * 1000


if __name__ == "__main__":
    with open(SOURCE) as f:
        base = json.load(f)
    for name, (seconds, prices, removed) in STEPS.items():
        doc = copy.deepcopy(base)
        for ticker in doc:
            if ticker["symbol"] in prices:
                move(ticker, prices[ticker["symbol"]], seconds)
        doc = [t for t in doc if t["symbol"] not in removed]
        with open(name, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
