#!/usr/bin/env python3
"""Sends one FCM message with a real client library to the emulator's front doors, and prints the outcome as JSON.

    fcm_clients.py --client firebase-admin|pyfcm --front-door 127.0.0.1:2199 --ca certs/ca.pem \
        --service-account certs/fcm-service-account.json --token <FCM registration token> [--image URL]

The libraries call the hosts Google serves them on (https://oauth2.googleapis.com/token from the service account's
token_uri, https://fcm.googleapis.com/v1/...), so this script resolves those two names to the front door, as an
/etc/hosts line would, and trusts the emulator's CA (REQUESTS_CA_BUNDLE). Nothing of the libraries is patched.
Prints {"ok": true, "name": ...} or {"ok": false, "error": <exception class>, "code": ..., "message": ...}.
"""
import argparse
import json
import os
import socket
import sys

GOOGLE_HOSTS = {"fcm.googleapis.com", "oauth2.googleapis.com"}


def redirect(front_host: str, front_port: int) -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in GOOGLE_HOSTS:
            return real(front_host, front_port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo


def send_firebase_admin(args) -> dict:
    import firebase_admin
    from firebase_admin import credentials, messaging
    app = firebase_admin.initialize_app(credentials.Certificate(args.service_account))
    apns = None
    if args.image:
        apns = messaging.APNSConfig(fcm_options=messaging.APNSFCMOptions(image=args.image))
    message = messaging.Message(
        notification=messaging.Notification(title=args.title, body=args.body),
        data={"room": "general", "thread-id": "general"},
        apns=apns,
        fid=args.token)
    try:
        return {"ok": True, "name": messaging.send(message, app=app)}
    except Exception as error:  # the library's typed errors are what the test checks
        return {"ok": False, "error": type(error).__name__, "code": getattr(error, "code", None), "message": str(error)}


def send_pyfcm(args) -> dict:
    from pyfcm import FCMNotification
    with open(args.service_account, encoding="utf-8") as f:
        project = json.load(f)["project_id"]
    fcm = FCMNotification(service_account_file=args.service_account, project_id=project)
    try:
        result = fcm.notify(fcm_token=args.token, notification_title=args.title, notification_body=args.body,
                            data_payload={"room": "general"})
        return {"ok": True, "name": result.get("name")}
    except Exception as error:
        return {"ok": False, "error": type(error).__name__, "code": None, "message": str(error)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--client", choices=["firebase-admin", "pyfcm"], required=True)
    parser.add_argument("--front-door", required=True, help="host:port of the emulator's front doors")
    parser.add_argument("--ca", required=True)
    parser.add_argument("--service-account", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--title", default="Hello")
    parser.add_argument("--body", default="from a real FCM client")
    parser.add_argument("--image")
    args = parser.parse_args()
    host, _, port = args.front_door.rpartition(":")
    redirect(host, int(port))
    os.environ["REQUESTS_CA_BUNDLE"] = os.path.abspath(args.ca)
    outcome = send_firebase_admin(args) if args.client == "firebase-admin" else send_pyfcm(args)
    print(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
