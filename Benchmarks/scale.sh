#!/usr/bin/env bash
# How a sync behaves as a device's history grows, whole process, release build, radio timing off: syncs of 4,000 /
# 16,000 / 65,000 records per family, one `open` each: wall time, time per record, peak resident memory (targets:
# bulk families 65,000 in <= 2 s; push families a constant time per record; peak <= 40 MiB). How every command
# grows with the home's history (5,000 to 1,000,000 readings: open, records, changes, report, a sync into it) is
# history.sh's. Needs GNU time (apt-get install time). Run from the repository root:
#   bash Benchmarks/scale.sh            # everything (about 1 minute)
#   bash Benchmarks/scale.sh quick      # 4,000 and 16,000 only
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source Benchmarks/homes.sh
request() { # request <cmd> <devicemodel> <mac> <extra>
    echo "ihealth-layer://?cmd=$1&devicemodel=$2&mac=$3&ver=100&scheme=vitalbridge-demo$4"
}

echo "== syncs, whole process (time, per record, peak resident memory)"
counts=(4000 16000 65000)
[ "$quick" = quick ] && counts=(4000 16000)
profile="&userid=1111&age=30&sex=1&height=180&weight=80&swim=1"
# model, devicemodel, unit and extra parameters, first day of the generated records
families=(
    "BG5 400 &unit=1 2016-01-01"
    "PO3 300 &unit=0 2016-01-01"
    "AM4 201 &unit=10$profile 1800-01-01"
    "BP5 100 &unit=2 2016-01-01"
    "HS4 500 &unit=4 2016-01-01"
    "THV3 600 &unit=7 2016-01-01"
)
for family in "${families[@]}"; do
    read -r model number extra from <<<"$family"
    for count in "${counts[@]}"; do
        fleet_home "$work/sync" "{\"devices\":[$(generated_device "$model" 004D3208D2F4 "$count" "$from 00:00:00")]}"
        /usr/bin/time -o "$work/time" -f "%e %M" "$tool" open --home "$work/sync" \
            "$(request 2 "$number" 004D3208D2F4 "$extra")" >"$work/callback"
        grep -q "status=0" "$work/callback" || { echo "sync of $model failed: $(cat "$work/callback")"; exit 1; }
        stored=$("$tool" records --home "$work/sync" --format csv | tail -n +2 | wc -l)
        [ "$stored" -eq "$count" ] || { echo "$model: $stored of $count records stored"; exit 1; }
        read -r seconds kib <"$work/time"
        python3 -c "import sys; s, n, k = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]); \
print(f'{sys.argv[4]:5} {n:6} records: {s:6.2f} s, {s / n * 1e3:.3f} ms/record, peak {k / 1024:.1f} MiB')" \
            "$seconds" "$count" "$kib" "$model"
    done
done

