#!/usr/bin/env bash
# A smartband's history, whole process, release build, radio timing off: a Fit Pro 9614N that recorded for a month
# and for a year (each completed heart-rate hour, each night, sport and day; the year again with the band's clock
# 2 h off) added and synced with one `open`
# (targets: a month < 1 s, a year < 10 s and < 40 MiB peak resident memory), then its heart-rate minutes listed
# with `records --heart-rate-minutes --format csv`. Needs GNU time (apt-get install time). From the repository root:
#   bash Benchmarks/band-year.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the year twice: the band's clock right, then 2 h 0 min 5 s ahead (every item moved back by the hub, the clock set)
for run in "2026-10-21 12:00:00|0" "2025-11-20 12:00:00|0" "2025-11-20 12:00:00|7205"; do
    since=${run%|*}
    offset=${run#*|}
    home="$work/home"
    rm -rf "$home"
    mkdir -m 700 "$home"
    printf '{"start":"2026-11-20 12:00:00","devices":[{"model":"FitPro9614N","mac":"004D3208D310","recordingSince":"%s","clockOffset":%s}]}' \
        "$since" "$offset" >"$home/fleet.json"
    chmod 600 "$home/fleet.json"
    echo "== a band recording since $since, its clock $offset s ahead"
    /usr/bin/time -f "open (add and sync): %e s wall, %M KiB peak resident" "$tool" open --home "$home" \
        'ihealth-layer://?cmd=4&addtype=0&devicemodel=700&unit=10&ver=100&scheme=vitalbridge-demo' |
        grep -o 'remaining=[0-9]*' || echo "every day in one callback"
    /usr/bin/time -f "records --heart-rate-minutes: %e s wall, %M KiB peak resident" "$tool" records \
        --home "$home" --heart-rate-minutes --format csv | tail -n +2 | wc -l | sed 's/$/ heart-rate minutes/'
done
