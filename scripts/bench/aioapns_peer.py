#!/usr/bin/env python3
"""The peer in the fan-out benchmark: aioapns (PyPI), the best-known asyncio APNs client, sending the same
Live Activity pushes to the same loopback server as LiveRelay.

aioapns connects to api.push.apple.com:443 and has no endpoint option, so this script keeps that name for
TLS (it is in the test certificate) and redirects the TCP connection to the loopback server; its TLS
context offers ALPN h2 and trusts the benchmark CA (aioapns' own context offers no ALPN and falls back to
HTTP/1.1). Prints one JSON line: pushes, seconds, pushes/s, p50/p99 latency, CPU seconds, peak RSS.
"""
import argparse
import asyncio
import json
import resource
import ssl
import time
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsKeyConnectionPool


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--key", required=True, help=".p8 key for the JWT")
    parser.add_argument("--payloads", required=True, help="JSON lines: {token, payload, priority}")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--in-flight", type=int, default=100)
    args = parser.parse_args()

    async def redirected(self, factory):
        _, protocol = await self.loop.create_connection(
            protocol_factory=factory, host="127.0.0.1", port=args.port, ssl=self.ssl_context,
            server_hostname="api.push.apple.com")
        return protocol

    APNsKeyConnectionPool._create_connection = redirected

    lines = [json.loads(line) for line in open(args.payloads)]
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])

    async def run():
        client = APNs(key=open(args.key).read(), key_id="BENCHKEY01", team_id="BENCHTEAM1",
                      topic="com.example.scores.push-type.liveactivity", max_connections=args.connections,
                      ssl_context=context)
        latencies = []
        failures = 0
        semaphore = asyncio.Semaphore(args.in_flight)

        async def one(i):
            nonlocal failures
            item = lines[i % len(lines)]
            request = NotificationRequest(device_token=item["token"], message=item["payload"],
                                          notification_id=str(uuid.uuid4()), priority=item["priority"],
                                          push_type=PushType.LIVEACTIVITY)
            async with semaphore:
                started = time.perf_counter()
                result = await client.send_notification(request)
                latencies.append(time.perf_counter() - started)
                if not result.is_successful:
                    failures += 1

        # Warm up the connections, then measure.
        await asyncio.gather(*(one(i) for i in range(min(200, args.count))))
        latencies.clear()
        cpu0 = time.process_time()
        wall0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(args.count)))
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        latencies.sort()
        print(json.dumps({
            "client": "aioapns", "pushes": args.count, "failures": failures, "seconds": wall,
            "pushes_per_second": args.count / wall, "p50_ms": latencies[len(latencies) // 2] * 1000,
            "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000, "cpu_seconds": cpu,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "connections": args.connections, "in_flight": args.in_flight}))

    asyncio.run(run())


if __name__ == "__main__":
    main()
