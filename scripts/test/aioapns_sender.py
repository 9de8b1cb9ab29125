#!/usr/bin/env python3
"""Sends pushes to the emulator with the real aioapns client and prints what aioapns reports.

    python aioapns_sender.py '<json>'      or      echo '<json>' | python aioapns_sender.py

Run it with the interpreter of the venv made by scripts/test/python_venv.py. The JSON:

    {
      "host": "127.0.0.1", "port": 2197,            where the emulator listens (the listener to use)
      "ca_path": "certs/ca.pem",                    the CA that signed the emulator's server certificate
      "key_path": "certs/AuthKey_DEVKEY1234.p8",    the ES256 provider key (.p8 PEM)
      "key_id": "DEVKEY1234", "team_id": "DEVTEAM123", "topic": "com.example.app",
      "use_sandbox": false,                         aioapns' own switch: api.development.push.apple.com
      "expired_jwt": false,                         sign the provider token as if it were issued 2 hours ago
      "concurrent": false,                          send all at once on one connection (else one by one)
      "timeout": 10,                                seconds to wait for each answer
      "sends": [{"device_token": "...", "payload": {"aps": {}}, "push_type": "alert",
                 "priority": 10, "apns_id": "...", "time_to_live": 3600, "collapse_key": "..."}]
    }

Every field of a send but `device_token` is optional. `time_to_live` is aioapns' only way to set
apns-expiration (it sends now + time_to_live). Output: one JSON line per send, in order, with
NotificationResult's fields {"is_successful", "status", "description", "notification_id", "timestamp"},
or {"error": "..."} when aioapns raised or gave no answer in time. aioapns' own logging goes to stderr.
Exit code 0 once every send has a line (whatever the results), 2 on bad input.

What is patched in aioapns 4.0, and why (it has no option for another host, port or clock):

- The CA needs no patch: APNs(ssl_context=...) is public. We pass ssl.create_default_context(cafile=CA)
  and, like aioapns' own default context, set no ALPN, so the emulator sees what Apple would.
- Host: aioapns connects to APNsProductionClientProtocol.APNS_SERVER / APNsDevelopmentClientProtocol
  .APNS_SERVER (api.push.apple.com / api.development.push.apple.com) and also sends that name as the
  `host` header and as SNI. We keep those names untouched and instead make the event loop resolve them
  to `host` (the effect of an /etc/hosts line, for this process only) by wrapping loop.getaddrinfo.
  So the emulator sees exactly the SNI and `host` header real APNs would.
- Port: APNsTLSClientProtocol.APNS_PORT (443) is a class constant read when connecting; we set it to
  `port`.
- Expired JWT: JWTAuthorizationHeaderProvider.get_header signs with iat = int(time.time()), reading the
  `time` module imported into aioapns.connection. We wrap get_header to swap that module reference
  for a clock two hours behind while it runs, so aioapns' own jwt.encode call still mints the token.

Everything else, TLS, HTTP/2 (the h2 library), header building and matching answers to requests by
apns-id, is aioapns' own code.
"""
import asyncio
import json
import socket
import ssl
import sys
import time
import types

import aioapns.connection as connection
from aioapns import APNs, NotificationRequest, PushType

APPLE_HOSTS = ("api.push.apple.com", "api.development.push.apple.com", "api.sandbox.push.apple.com")
EXPIRED_BY_SECONDS = 2 * 60 * 60


def read_config() -> dict:
    text = sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read()
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"aioapns_sender: the configuration is not JSON: {e}", file=sys.stderr)
        raise SystemExit(2)
    for field in ("host", "port", "ca_path", "key_path", "key_id", "team_id", "topic", "sends"):
        if field not in config:
            print(f"aioapns_sender: the configuration lacks '{field}'", file=sys.stderr)
            raise SystemExit(2)
    return config


def redirect_apple_hosts(loop: asyncio.AbstractEventLoop, host: str) -> None:
    """Resolves Apple's APNs host names to `host`, leaving every other name to the real resolver."""
    real_getaddrinfo = loop.getaddrinfo

    async def getaddrinfo(name, port, *, family=0, type=0, proto=0, flags=0):
        if isinstance(name, bytes):
            name = name.decode("ascii")
        if name in APPLE_HOSTS:
            name = host
        return await real_getaddrinfo(name, port, family=family, type=type, proto=proto, flags=flags)

    loop.getaddrinfo = getaddrinfo


def sign_tokens_in_the_past(seconds: int) -> None:
    """Makes aioapns' JWTAuthorizationHeaderProvider believe it is `seconds` earlier than it is."""
    real_get_header = connection.JWTAuthorizationHeaderProvider.get_header
    earlier = types.SimpleNamespace(time=lambda: time.time() - seconds)

    def get_header(self):
        real_time, connection.time = connection.time, earlier
        try:
            return real_get_header(self)
        finally:
            connection.time = real_time

    connection.JWTAuthorizationHeaderProvider.get_header = get_header


def make_request(send: dict) -> NotificationRequest:
    push_type = send.get("push_type")
    return NotificationRequest(
        device_token=send["device_token"],
        message=send.get("payload", {"aps": {"alert": "Hello from aioapns"}}),
        notification_id=send.get("apns_id"),
        time_to_live=send.get("time_to_live"),
        priority=send.get("priority"),
        collapse_key=send.get("collapse_key"),
        push_type=PushType(push_type) if push_type is not None else None,
    )


async def send_one(apns: APNs, send: dict, timeout: float) -> dict:
    request = make_request(send)
    try:
        result = await asyncio.wait_for(apns.send_notification(request), timeout)
    except asyncio.TimeoutError:
        return {"error": f"no answer within {timeout}s", "notification_id": request.notification_id}
    except Exception as e:  # aioapns' ConnectionError, MaxAttemptsExceeded, TLS errors...
        return {"error": f"{type(e).__name__}: {e}", "notification_id": request.notification_id}
    return {
        "is_successful": result.is_successful,
        "status": result.status,
        "description": result.description,
        "notification_id": result.notification_id,
        "timestamp": result.timestamp,
    }


async def main() -> None:
    config = read_config()
    connection.APNsTLSClientProtocol.APNS_PORT = int(config["port"])
    redirect_apple_hosts(asyncio.get_running_loop(), config["host"])
    if config.get("expired_jwt"):
        sign_tokens_in_the_past(EXPIRED_BY_SECONDS)

    context = ssl.create_default_context(cafile=config["ca_path"])
    with open(config["key_path"], encoding="utf-8") as f:
        key = f.read()
    # Built inside the running loop: aioapns' pool captures asyncio.get_event_loop() when created.
    apns = APNs(
        key=key,
        key_id=config["key_id"],
        team_id=config["team_id"],
        topic=config["topic"],
        use_sandbox=bool(config.get("use_sandbox", False)),
        ssl_context=context,
        max_connections=1,
        max_connection_attempts=int(config.get("max_connection_attempts", 1)),
    )
    timeout = float(config.get("timeout", 10))
    sends = config["sends"]
    try:
        if config.get("concurrent"):
            results = await asyncio.gather(*(send_one(apns, s, timeout) for s in sends))
            for result in results:
                print(json.dumps(result), flush=True)
        else:
            for send in sends:
                print(json.dumps(await send_one(apns, send, timeout)), flush=True)
    finally:
        apns.pool.close()
        await asyncio.sleep(0)  # let the transports see the close before the loop stops


if __name__ == "__main__":
    asyncio.run(main())
