"""One push with httpx (HTTP/2) and PyJWT: pip install 'httpx[http2]' 'pyjwt[crypto]'."""
import json
import os
import ssl
import sys
import time

import httpx
import jwt

env = os.environ
with open(env["APNS_KEY_FILE"], encoding="utf-8") as f:
    token = jwt.encode({"iss": env["APNS_TEAM_ID"], "iat": int(time.time())}, f.read(), algorithm="ES256",
                       headers={"kid": env["APNS_KEY_ID"]})
# Trust the emulator's CA, in tests only.
with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=env["APNS_CA_FILE"])) as client:
    response = client.post(f"{env['APNS_URL']}/3/device/{env['APNS_DEVICE_TOKEN']}",
                           headers={"authorization": f"bearer {token}", "apns-topic": env["APNS_TOPIC"],
                                    "apns-push-type": "alert"},
                           content=json.dumps({"aps": {"alert": "Hello from Python"}}))
print(f"status {response.status_code} apns-id {response.headers.get('apns-id', '')} {response.text}"
      f" ({response.http_version})")
sys.exit(0 if response.status_code == 200 else 1)
