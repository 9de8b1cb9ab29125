#!/usr/bin/env python3
"""Sends HTTP/2 frames a conforming client never would, and prints what the server answers, one frame a line.

    raw_frames.py --port PORT --ca CA_FILE CASE

Cases (each names the HTTP/2 conformance check it mirrors):
  depends-on-itself        HEADERS whose priority makes the stream depend on itself (RFC 9113 5.3.1)
  priority-wrong-length    a PRIORITY frame of 4 bytes instead of 5 (RFC 9113 6.3)
  headers-after-end-stream HEADERS on a stream the client already half-closed (RFC 9113 5.1)
  data-after-rst           DATA on a stream the client reset (5.1)
  headers-after-rst        HEADERS on a stream the client reset (5.1)
  data-after-end-stream    DATA on a stream the client already half-closed (5.1)
  priority-stream-zero     PRIORITY on stream 0 (6.3)

Output: `GOAWAY <error code>`, `RST_STREAM <stream> <error code>`, `HEADERS <stream>`, `EOF` or `TIMEOUT`.
Needs hyperframe and hpack (the venv of scripts/test/python_venv.py).
"""
import argparse
import socket
import ssl

import hpack
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, PriorityFrame, RstStreamFrame, SettingsFrame

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def headers(encoder, stream, end_stream=False):
    block = encoder.encode([(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + "ab" * 32),
                            (":authority", "api.push.apple.com")])
    frame = HeadersFrame(stream, block)
    frame.flags.add("END_HEADERS")
    if end_stream:
        frame.flags.add("END_STREAM")
    return frame


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("case")
    args = parser.parse_args()

    ctx = ssl.create_default_context(cafile=args.ca)
    ctx.set_alpn_protocols(["h2"])
    sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", args.port)), server_hostname="api.push.apple.com")
    sock.sendall(PREFACE + SettingsFrame(0).serialize())
    encoder = hpack.Encoder()
    if args.case == "depends-on-itself":
        frame = headers(encoder, 1)
        frame.flags.add("PRIORITY")
        frame.depends_on, frame.stream_weight = 1, 15
        sock.sendall(frame.serialize())
    elif args.case == "priority-wrong-length":
        raw = PriorityFrame(1, depends_on=0).serialize()
        sock.sendall((4).to_bytes(3, "big") + raw[3:9] + raw[9:13])
    elif args.case == "headers-after-end-stream":
        sock.sendall(headers(encoder, 1, end_stream=True).serialize() + headers(encoder, 1).serialize())
    elif args.case == "data-after-rst":
        sock.sendall(headers(encoder, 1).serialize() + RstStreamFrame(1, error_code=8).serialize()
                     + DataFrame(1, b"{}").serialize())
    elif args.case == "headers-after-rst":
        sock.sendall(headers(encoder, 1).serialize() + RstStreamFrame(1, error_code=8).serialize()
                     + headers(encoder, 1).serialize())
    elif args.case == "data-after-end-stream":
        sock.sendall(headers(encoder, 1, end_stream=True).serialize() + DataFrame(1, b"{}").serialize())
    elif args.case == "priority-stream-zero":
        sock.sendall(PriorityFrame(1, depends_on=0).serialize()[:5] + b"\x00\x00\x00\x00\x00" + b"\x00\x00\x00\x00\x0f")
    else:
        raise SystemExit(f"unknown case {args.case}")

    for frame in frames(sock, 5):
        if isinstance(frame, str):
            print(frame)
        elif isinstance(frame, GoAwayFrame):
            print(f"GOAWAY {frame.error_code}")
        elif isinstance(frame, RstStreamFrame):
            print(f"RST_STREAM {frame.stream_id} {frame.error_code}")
        elif isinstance(frame, HeadersFrame):
            print(f"HEADERS {frame.stream_id}")


def frames(sock, seconds):
    """Yields each frame the server sends, then "EOF" when it closes or "TIMEOUT" after `seconds` of silence."""
    sock.settimeout(seconds)
    buffer = b""
    while True:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            yield "TIMEOUT"
            return
        except (ssl.SSLError, OSError):
            data = b""
        if not data:
            yield "EOF"
            return
        buffer += data
        while len(buffer) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(buffer[:9]))
            if len(buffer) < 9 + length:
                break
            frame.parse_body(memoryview(buffer[9:9 + length]))
            buffer = buffer[9 + length:]
            yield frame

if __name__ == "__main__":
    main()
