#!/bin/sh
# One push with curl: the provider token comes from `apns-emulator token` (set APNS_EMULATOR to its path).
set -eu
jwt=$("${APNS_EMULATOR:-apns-emulator}" token --key-file "$APNS_KEY_FILE" --key-id "$APNS_KEY_ID" --team-id "$APNS_TEAM_ID")
out=$(curl -sS --http2 --cacert "$APNS_CA_FILE" -D - -o /dev/null \
    -H "authorization: bearer $jwt" -H "apns-topic: $APNS_TOPIC" -H "apns-push-type: alert" \
    -d '{"aps":{"alert":"Hello from curl"}}' "$APNS_URL/3/device/$APNS_DEVICE_TOKEN")
status=$(printf '%s\n' "$out" | tr -d '\r' | awk 'NR == 1 { print $2 }')
id=$(printf '%s\n' "$out" | tr -d '\r' | awk -F': ' 'tolower($1) == "apns-id" { print $2 }')
echo "status $status apns-id $id"
[ "$status" = 200 ]
