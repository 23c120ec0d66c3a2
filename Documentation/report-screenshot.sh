#!/usr/bin/env bash
# Makes Documentation/report.png, the README's screenshot of `vitalbridge report`: a home with a device of each
# kind (the built-in fleet), each added and synced, its report rendered by headless Chromium (Debian: chromium).
# Run from the repository root: bash Documentation/report-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product vitalbridge >/dev/null
tool="$PWD/.build/debug/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" init --home "$work/home" >/dev/null
profile="&userid=1111&age=30&sex=1&height=180&weight=80&swim=1&unit=10"
# devicemodel and extra parameters of each device to add and sync (cmd=4)
for device in "100" "400" "501" "300" "201$profile" "600" "700"; do
    "$tool" open --home "$work/home" \
        "ihealth-layer://?cmd=4&addtype=0&devicemodel=${device%%&*}&ver=100&scheme=vitalbridge-demo${device#"${device%%&*}"}" \
        >/dev/null
done
"$tool" report --home "$work/home" --time-zone Europe/Berlin --title "Health report: Jane Doe" --out "$work/report.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
    --window-size=1000,1900 --screenshot="$PWD/Documentation/report.png" "file://$work/report.html" 2>/dev/null
echo "wrote Documentation/report.png"
