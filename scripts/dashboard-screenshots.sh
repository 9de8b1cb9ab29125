#!/usr/bin/env bash
# Regenerates the README's dashboard pictures (docs/images/dashboard-devices.png, dashboard-journal.png): starts
# `serve` on free ports, runs the browser test's script with --screenshots, stops the emulator. Needs what the
# browser test needs (scripts/install-deps.sh: chromium, chromium-driver; Selenium comes from PyPI in a venv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
swift build --product apns-emulator >/dev/null
bin=$(swift build --show-bin-path)/apns-emulator
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$bin" serve --ephemeral --production-port 0 --sandbox-port 0 --control-port 0 --front-door-port 0 \
    --ready-file "$tmp/ready.json" --log-level error &
pid=$!
for _ in $(seq 1 100); do [[ -s "$tmp/ready.json" ]] && break; sleep 0.1; done
control=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["control"])' "$tmp/ready.json")
python=$(python3 scripts/test/python_venv.py --requirement "selenium==4.51.0" --imports selenium | tail -1)
mkdir -p docs/images
"$python" scripts/test/dashboard_browser.py --control "$control" --screenshots "$tmp"
mv "$tmp/devices.png" docs/images/dashboard-devices.png
mv "$tmp/journal.png" docs/images/dashboard-journal.png
echo "wrote docs/images/dashboard-devices.png and docs/images/dashboard-journal.png"
