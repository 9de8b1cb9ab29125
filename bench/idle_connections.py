#!/usr/bin/env python3
"""Opens many idle TLS + HTTP/2 connections to a server and reports its resident memory per connection.

Each connection completes a TLS handshake offering ALPN h2, sends the HTTP/2 client preface and an empty
SETTINGS frame, acknowledges the server's SETTINGS, then stays silent. The server's VmRSS (from /proc/PID/status) is read before, while all
connections are open, and after they are closed. Everything is bounded by --timeout; every socket is closed
on the way out.
"""
import argparse
import asyncio
import json
import ssl
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS
SETTINGS_ACK = b"\x00\x00\x00\x04\x01\x00\x00\x00\x00"
FRAME_SETTINGS, FLAG_ACK = 0x4, 0x1


async def acknowledge_server_settings(reader, writer):
    """Reads frames until the server's SETTINGS and acknowledges it, as every HTTP/2 client must.

    Without the ACK a server may close the connection with SETTINGS_TIMEOUT (nghttpd does after 10 s),
    which would turn an idle connection into a closed one mid-measurement.
    """
    while True:
        header = await reader.readexactly(9)
        length = int.from_bytes(header[0:3], "big")
        if length:
            await reader.readexactly(length)
        if header[3] == FRAME_SETTINGS and not header[4] & FLAG_ACK:
            writer.write(SETTINGS_ACK)
            await writer.drain()
            return


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


async def open_one(host, port, context, server_name, semaphore, writers, failures):
    async with semaphore:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(host, port, ssl=context, server_hostname=server_name), timeout=15)
        except Exception as error:  # noqa: BLE001 - counted and reported, one failure must not stop the run
            failures.append(type(error).__name__ + ": " + str(error))
            return
        selected = writer.get_extra_info("ssl_object").selected_alpn_protocol()
        if selected != "h2":
            failures.append(f"ALPN selected {selected!r}")
            writer.close()
            return
        try:
            writer.write(PREFACE)
            await writer.drain()
            await asyncio.wait_for(acknowledge_server_settings(reader, writer), timeout=15)
        except Exception as error:  # noqa: BLE001
            failures.append("HTTP/2 preface: " + (type(error).__name__ + " " + str(error)).strip())
            writer.close()
            return
        writers.append((reader, writer))


async def main_async(a):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.set_alpn_protocols(["h2"])
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if a.cafile:
        context.load_verify_locations(a.cafile)
        context.check_hostname = a.server_name is not None
    else:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE

    writers, failures = [], []
    result = {"connections_requested": a.connections}
    deadline = time.monotonic() + a.timeout
    result["rss_before_kib"] = rss_kib(a.pid)
    started = time.monotonic()
    semaphore = asyncio.Semaphore(a.parallel)
    tasks = [asyncio.create_task(open_one(a.host, a.port, context, a.server_name, semaphore, writers, failures))
             for _ in range(a.connections)]
    try:
        done, pending = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.monotonic() - a.settle - 5))
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
            failures.extend(["timed out"] * len(pending))
        result["connect_seconds"] = round(time.monotonic() - started, 2)
        result["connections_open"] = len(writers)
        await asyncio.sleep(a.settle)  # let the server finish per-connection setup and settle its allocator
        result["rss_open_kib"] = rss_kib(a.pid)
        # A connection the server closed (idle or handshake timeout) would skew the figure: count them.
        result["closed_by_server"] = sum(1 for r, w in writers if r.at_eof() or w.is_closing())
    finally:
        for _, writer in writers:
            writer.close()
        await asyncio.gather(*(asyncio.wait_for(w.wait_closed(), 2) for _, w in writers), return_exceptions=True)
    await asyncio.sleep(a.settle)
    result["rss_after_close_kib"] = rss_kib(a.pid)
    result["failures"] = len(failures)
    result["failure_examples"] = sorted(set(failures))[:5]
    opened = result["connections_open"]
    result["kib_per_connection"] = (round((result["rss_open_kib"] - result["rss_before_kib"]) / opened, 2)
                                    if opened else None)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pid", type=int, required=True, help="server process whose VmRSS is measured")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--connections", type=int, default=10000)
    p.add_argument("--parallel", type=int, default=64, help="handshakes in flight at once")
    p.add_argument("--settle", type=float, default=2.0, help="seconds to wait before each RSS reading")
    p.add_argument("--timeout", type=float, default=180.0, help="bound on the whole run, seconds")
    p.add_argument("--cafile", help="verify the server against this CA (default: no verification)")
    p.add_argument("--server-name", default="api.push.apple.com", help="SNI (and hostname checked with --cafile)")
    p.add_argument("--json", help="also write the result here")
    a = p.parse_args()
    result = asyncio.run(main_async(a))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    print(json.dumps(result))
    return 0 if result["connections_open"] else 1


if __name__ == "__main__":
    sys.exit(main())
