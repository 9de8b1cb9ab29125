#!/usr/bin/env python3
"""Creates one OneSignal notification with a real client library against the emulator's front doors, and prints
the outcome as JSON.

    onesignal_clients.py --client official|sdk --front-door 127.0.0.1:2199 --ca certs/ca.pem \
        --app-id <id> --rest-api-key <key> --external-id <user> [--thread-id room-1] [--badge-type Increase --badge-count 1]

official: OneSignal's onesignal-python-api, pointed at the front door with Configuration(host=...) and trusting the
emulator's CA (ssl_ca_cert); it targets include_aliases.external_id with target_channel "push".
sdk: the community onesignal-sdk with options={"API_ROOT": ".../api/v1"}, sending the body shape of older code
(include_external_user_ids, headings/contents maps, a string ios_badgeCount); httpx trusts the CA through
SSL_CERT_FILE. Neither library is patched. Prints {"ok": true, "id": ..., "errors": ...} or {"ok": false, ...}.
"""
import argparse
import json
import os
import sys


def send_official(args) -> dict:
    import onesignal
    from onesignal.api import default_api
    from onesignal.model.include_aliases import IncludeAliases
    from onesignal.model.notification import Notification
    configuration = onesignal.Configuration(host=f"https://{args.front_door}", rest_api_key=args.rest_api_key)
    configuration.ssl_ca_cert = args.ca
    fields = {
        "app_id": args.app_id, "include_aliases": IncludeAliases(external_id=[args.external_id]), "target_channel": "push",
        "headings": {"en": args.title}, "contents": {"en": args.body}, "url": "myapp://room/1", "data": {"room": "1"},
    }
    if args.thread_id:
        fields["thread_id"] = args.thread_id
    if args.badge_type:
        fields["ios_badge_type"] = args.badge_type
        fields["ios_badge_count"] = int(args.badge_count)
    with onesignal.ApiClient(configuration) as client:
        try:
            response = default_api.DefaultApi(client).create_notification(Notification(**fields))
            return {"ok": True, "id": response.id, "errors": response.get("errors")}
        except onesignal.ApiException as error:
            return {"ok": False, "status": error.status, "body": error.body}


def send_sdk(args) -> dict:
    os.environ["SSL_CERT_FILE"] = os.path.abspath(args.ca)
    from onesignal_sdk.client import Client
    from onesignal_sdk.error import OneSignalHTTPError
    client = Client(app_id=args.app_id, rest_api_key=args.rest_api_key,
                    options={"API_ROOT": f"https://{args.front_door}/api/v1"})
    body = {"include_external_user_ids": [args.external_id], "headings": {"en": args.title}, "contents": {"en": args.body},
            "url": "myapp://room/1"}
    if args.thread_id:
        body["thread_id"] = args.thread_id
    if args.badge_type:
        body["ios_badgeType"] = args.badge_type
        body["ios_badgeCount"] = str(args.badge_count)
    try:
        response = client.send_notification(body)
        return {"ok": True, "id": response.body.get("id"), "errors": response.body.get("errors")}
    except OneSignalHTTPError as error:
        return {"ok": False, "status": error.status_code, "body": error.http_response.text}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--client", choices=["official", "sdk"], required=True)
    parser.add_argument("--front-door", required=True, help="host:port of the emulator's front doors")
    parser.add_argument("--ca", required=True)
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--rest-api-key", required=True)
    parser.add_argument("--external-id", required=True)
    parser.add_argument("--title", default="Room 1")
    parser.add_argument("--body", default="hello")
    parser.add_argument("--thread-id")
    parser.add_argument("--badge-type")
    parser.add_argument("--badge-count", default="1")
    args = parser.parse_args()
    print(json.dumps(send_official(args) if args.client == "official" else send_sdk(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
