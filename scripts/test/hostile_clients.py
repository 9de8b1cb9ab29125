#!/usr/bin/env python3
"""Clients that attack an HTTP/2 server's memory or connection slots, and print what the server did.

    hostile_clients.py --port PORT --ca CA_FILE CASE [--count N] [--interval S]

Cases:
  header-bomb        N streams (--count, default 6), each a header block that names one 4 KiB HPACK table entry
                     16,384 times a CONTINUATION frame (4 frames: ~256 MiB decoded a stream, ~50 KiB sent).
                     Prints `RST_STREAM <stream> <code>` for each reset, then `DONE`.
  preface-dribble    After the TLS handshake, sends the HTTP/2 preface one byte every --interval seconds
                     (default 0.5). Prints `CLOSED <seconds>` when the server closes, or `SENT` if all went out.
  hold-connections   Opens N TLS connections (--count) with the preface sent, holds them for --interval seconds
                     and prints `OPEN <n> REFUSED <n>` (refused: closed by the server before any frame of its own).
  flood              Opens N TLS connections to the APNs port and N silent TCP connections to --control-port, then
                     asks the control port for /_emulator/health on a new connection and prints
                     `APNS <n> CONTROL <n> HEALTH <status>` (status 0: no answer within 5 s).

Needs hyperframe and hpack (the venv of scripts/test/python_venv.py).
"""
import argparse
import resource
import socket
import ssl
import time
import urllib.error
import urllib.request

from hyperframe.frame import ContinuationFrame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame

from raw_frames import frames

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HOST = "api.push.apple.com"


def connect(args):
    ctx = ssl.create_default_context(cafile=args.ca)
    ctx.set_alpn_protocols(["h2"])
    raw = socket.create_connection(("127.0.0.1", args.port), timeout=10)
    return ctx.wrap_socket(raw, server_hostname=HOST)


def literal(name, value, indexing=False):
    """A literal field with a new name, no Huffman coding: with incremental indexing (RFC 7541 6.2.1) it
    becomes dynamic table entry 62; without (6.2.2) the table is left alone."""
    def string(b):
        # 7-bit prefix integer for the length.
        n, out = len(b), bytearray()
        if n < 127:
            out.append(n)
        else:
            out.append(127)
            n -= 127
            while n >= 128:
                out.append((n & 0x7F) | 0x80)
                n >>= 7
            out.append(n)
        return bytes(out) + b
    return (b"\x40" if indexing else b"\x00") + string(name) + string(value)


def header_bomb(args):
    sock = connect(args)
    sock.sendall(PREFACE + SettingsFrame(0).serialize())
    for i in range(args.count):
        stream = 1 + 2 * i
        start = (b"\x83" b"\x87" + literal(b":path", b"/3/device/" + b"ab" * 32)
                 + literal(b":authority", HOST.encode()))
        if i == 0:
            start += literal(b"x-bomb", b"a" * 4000, indexing=True)  # table entry 62 for every stream
        sock.sendall(HeadersFrame(stream, start).serialize())
        for n in range(4):
            frame = ContinuationFrame(stream, b"\xbe" * 16384)  # indexed field 62, 16,384 times
            if n == 3:
                frame.flags.add("END_HEADERS")
            sock.sendall(frame.serialize())
    resets = 0
    for frame in frames(sock, 10):
        if isinstance(frame, str):
            break
        if isinstance(frame, RstStreamFrame):
            print(f"RST_STREAM {frame.stream_id} {frame.error_code}", flush=True)
            resets += 1
            if resets == args.count:
                break
        elif isinstance(frame, GoAwayFrame):
            print(f"GOAWAY {frame.error_code}", flush=True)
            break
    print("DONE", flush=True)


def preface_dribble(args):
    sock = connect(args)
    sock.setblocking(False)
    began = time.monotonic()
    for byte in PREFACE + SettingsFrame(0).serialize():
        try:
            sock.sendall(bytes([byte]))
        except (ssl.SSLError, OSError):
            print(f"CLOSED {time.monotonic() - began:.1f}", flush=True)
            return
        stop = time.monotonic() + args.interval
        while time.monotonic() < stop:
            try:
                if sock.recv(65536) == b"":
                    print(f"CLOSED {time.monotonic() - began:.1f}", flush=True)
                    return
            except (ssl.SSLWantReadError, BlockingIOError):
                pass
            except (ssl.SSLError, OSError):
                print(f"CLOSED {time.monotonic() - began:.1f}", flush=True)
                return
            time.sleep(0.05)
    print("SENT", flush=True)


def hold_connections(args):
    held, refused = [], 0
    for _ in range(args.count):
        try:
            sock = connect(args)
            sock.sendall(PREFACE + SettingsFrame(0).serialize())
            # The server's SETTINGS arrives first on a served connection; a refused one is closed before it.
            sock.settimeout(5)
            first = sock.recv(9)
            if not first:
                refused += 1
                continue
            held.append(sock)
        except (ssl.SSLError, OSError):
            refused += 1
    print(f"OPEN {len(held)} REFUSED {refused}", flush=True)
    time.sleep(args.interval)
    for sock in held:
        sock.close()


def flood(args):
    # Two sockets a connection pair: more than a shell's default of 1,024 descriptors.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    apns, control = [], []
    for _ in range(args.count):
        try:
            sock = connect(args)
            sock.sendall(PREFACE + SettingsFrame(0).serialize())
            apns.append(sock)
        except (ssl.SSLError, OSError):
            pass
        try:
            control.append(socket.create_connection(("127.0.0.1", args.control_port), timeout=5))
        except OSError:
            pass
    status = 0
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{args.control_port}/_emulator/health", timeout=5) as reply:
            status = reply.status
    except (OSError, urllib.error.URLError):
        pass
    print(f"APNS {len(apns)} CONTROL {len(control)} HEALTH {status}", flush=True)
    for sock in apns + control:
        sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--control-port", type=int)
    parser.add_argument("case", choices=["header-bomb", "preface-dribble", "hold-connections", "flood"])
    args = parser.parse_args()
    cases = {"header-bomb": header_bomb, "preface-dribble": preface_dribble, "hold-connections": hold_connections,
             "flood": flood}
    cases[args.case](args)


if __name__ == "__main__":
    main()
