#!/usr/bin/env python3
"""A TCP proxy that adds a round trip: each byte from either side goes on half the delay after it came, in
order, so a connection through it sees the loopback server as if it were that far away (TLS passes through
untouched). For benchmarks where the kernel has no netem to delay a loopback interface.

    usage: delay-proxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT ROUND_TRIP_MS [STATS_FILE]

Prints "ready" once listening. On SIGTERM or SIGINT it writes {"connections": N, "bytes_up": …,
"bytes_down": …} to STATS_FILE (when given) and exits. Connections accepted are counted as they come, so a
caller may also send SIGUSR1 to have the counts written without stopping.
"""
import asyncio
import json
import signal
import socket
import sys

listen_port = int(sys.argv[1])
target_host, target_port = sys.argv[2].rsplit(":", 1)
one_way = float(sys.argv[3]) / 2000.0
stats_file = sys.argv[4] if len(sys.argv) > 4 else None
stats = {"connections": 0, "bytes_up": 0, "bytes_down": 0, "round_trip_ms": float(sys.argv[3])}


async def pump(reader, writer, key):
    """Copies reader to writer, each chunk written one_way seconds after it was read, in order."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                try:
                    writer.write_eof()
                except (OSError, RuntimeError):
                    pass
                return
            writer.write(data)
            if writer.transport.get_write_buffer_size() > 1 << 20:
                await writer.drain()

    task = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(1 << 18)
            queue.put_nowait((loop.time() + one_way, data or None))
            if not data:
                break
            stats[key] += len(data)
    except (ConnectionError, OSError):
        queue.put_nowait((loop.time() + one_way, None))
    await task


async def handle(client_reader, client_writer):
    stats["connections"] += 1
    try:
        server_reader, server_writer = await asyncio.open_connection(target_host, int(target_port))
    except OSError:
        client_writer.close()
        return
    for writer in (client_writer, server_writer):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        await asyncio.gather(
            pump(client_reader, server_writer, "bytes_up"), pump(server_reader, client_writer, "bytes_down"))
    finally:
        for writer in (client_writer, server_writer):
            writer.close()


def write_stats():
    if stats_file:
        with open(stats_file, "w") as f:
            json.dump(stats, f)


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", listen_port, backlog=1024)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    loop.add_signal_handler(signal.SIGUSR1, write_stats)
    print("ready", flush=True)
    async with server:
        await stop
    write_stats()


asyncio.run(main())
