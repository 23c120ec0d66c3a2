#!/usr/bin/env bash
# How Tests/Fixtures/home-0.14.0 was made, once, with the vitalbridge binary of release 0.14.0 (commit 3819fe3 and
# the snapshot fix after it, before the data core of issue 34): a home as that release writes it, for the upgrade
# test (UpgradeTests) to open with every later release. Never regenerate it with a later binary: it would then
# test nothing. Usage: bash Tests/Fixtures/make-home-0.14.0.sh VITALBRIDGE_0_14_0_BINARY
set -euo pipefail
vb=$(realpath "$1")
[ "$("$vb" --version)" = "0.14.0" ] || { echo "error: $vb is not release 0.14.0" >&2; exit 1; }
cd "$(dirname "$0")"
home=home-0.14.0
rm -rf "$home" "$home.expected"
"$vb" init --home "$home" >/dev/null
# a second caller, never answered: every reading is pending for it
"$vb" whitelist add --home "$home" org.example.other otherapp:// >/dev/null
open() { ! "$vb" open --home "$home" "$1" | grep -q 'reason=' || { echo "error: $1 failed" >&2; exit 1; }; }
profile='&userid=1111&age=30&sex=1&height=180&weight=80&swim=1&unit=10'
for model in 100 102 103 104 300 400 500 501 502 600 900 901 902 903 904; do
    open "ihealth-layer://?cmd=4&addtype=0&devicemodel=$model&ver=100&scheme=vitalbridge-demo"
done
for model in 200 201; do
    open "ihealth-layer://?cmd=4&addtype=0&devicemodel=$model$profile&ver=100&scheme=vitalbridge-demo"
done
for model in 700 701 702; do
    open "ihealth-layer://?cmd=4&addtype=0&devicemodel=$model&ver=100&scheme=vitalbridge-demo"
done
open "ihealth-layer://?cmd=3&addtype=0&devicemodel=905&ver=100&scheme=vitalbridge-demo"
# the WAL folded into the file, so that the fixture is one file
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" \
    "$home/vitalbridge.sqlite"
rm -f "$home"/vitalbridge.sqlite-wal "$home"/vitalbridge.sqlite-shm "$home"/vitalbridge.sqlite.lock
rm -rf "$home/locks"
# what 0.14.0 itself says of it
mkdir -p "$home.expected"
"$vb" records --home "$home" --format json >"$home.expected/records.json"
"$vb" devices --home "$home" >"$home.expected/devices.txt"
# and what it answers next, on a copy: the first caller has had everything, the second nothing
copy=$(mktemp -d)
cp -r "$home/." "$copy"
"$vb" open --home "$copy" 'ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&ver=100&scheme=vitalbridge-demo' \
    >"$home.expected/sync-demo.txt"
"$vb" open --home "$copy" 'ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&ver=100&scheme=otherapp' \
    >"$home.expected/sync-other.txt"
rm -rf "$copy"
rm -f "$home"/vitalbridge.sqlite-wal "$home"/vitalbridge.sqlite-shm "$home"/vitalbridge.sqlite.lock
rm -rf "$home/locks"
