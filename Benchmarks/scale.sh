#!/usr/bin/env bash
# How `vitalbridge` behaves as histories grow, whole process, release build, radio timing off:
#   1. syncs of 4,000 / 16,000 / 65,000 records per family: wall time, time per record, peak resident memory
#      (targets: bulk families 65,000 in <= 2 s; push families a constant time per record; peak <= 40 MiB);
#   2. a measurement `open` on a home holding 500,000 readings against the same on an empty home, medians of runs
#      alternated in one session (target: ratio <= 1.1), and the instructions callgrind counts in one of each;
#   3. `records --format csv` of those 500,000 readings: wall time and peak memory (targets: < 1.5 s, flat);
#   4. `records --format fhir --transaction` of the same: wall time, peak memory against the small home's (flat: the
#      bundle streams), and the bundle's size; then `report` of both (its charts turn to a mark a day past 1,500
#      readings, so memory stays flat too).
# Needs hyperfine, GNU time and valgrind (apt-get install hyperfine time valgrind). Run from the repository root:
#   bash Benchmarks/scale.sh            # everything (about 3 minutes)
#   bash Benchmarks/scale.sh quick      # 4,000 and 16,000 only, 100,000 readings in part 2
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh
quick=${1:-}

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# home <dir> <fleet JSON>: a private home with that fleet
home() {
    rm -rf "$1"
    mkdir -m 700 "$1"
    printf '%s' "$2" >"$1/fleet.json"
    chmod 600 "$1/fleet.json"
}
device() { # device <model> <mac> <count> [from]: a fleet device holding <count> generated records
    printf '{"model":"%s","mac":"%s","records":{"generate":{"count":%d,"from":"%s","to":"2026-11-19 00:00:00"}}}' \
        "$1" "$2" "$3" "${4:-2016-01-01 00:00:00}"
}
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
        home "$work/sync" "{\"devices\":[$(device "$model" 004D3208D2F4 "$count" "$from 00:00:00")]}"
        /usr/bin/time -o "$work/time" -f "%e %M" "$tool" open --home "$work/sync" \
            "$(request 2 "$number" 004D3208D2F4 "$extra")" >"$work/callback"
        grep -q "status=0" "$work/callback" || { echo "sync of $model failed: $(cat "$work/callback")"; exit 1; }
        stored=$("$tool" records --home "$work/sync" --format csv | tail -n +2 | wc -l)
        [ "$stored" -eq "$count" ] || { echo "$model: $stored of $count records stored"; exit 1; }
        read -r seconds kib <"$work/time"
        python3 -c "import sys; s, n, k = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]); \
print(f'{sys.argv[4]:5} {n:6} records: {s:6.2f} s, {s / n * 1e3:.3f} ms/record, peak {k // 1024} MiB')" \
            "$seconds" "$count" "$kib" "$model"
    done
done

echo
echo "== a measurement on a home with a large history vs an empty home"
histories=8
per=62500
[ "$quick" = quick ] && per=12500
fleet="{\"devices\":[{\"model\":\"BP5\",\"mac\":\"004D3208D2F4\"}"
for index in $(seq 1 $histories); do
    fleet+=",$(device BG5 "004D3208E30$index" $per)"
done
fleet+="]}"
home "$work/large" "$fleet"
home "$work/empty" "$fleet"
measure=$(request 0 100 004D3208D2F4 "&unit=2")
for index in $(seq 1 $histories); do
    "$tool" open --home "$work/large" "$(request 2 400 "004D3208E30$index" "&unit=1")" >/dev/null
done
# both homes made by a first measurement: their files, store and device state exist
"$tool" open --home "$work/large" "$measure" >/dev/null
"$tool" open --home "$work/empty" "$measure" >/dev/null
echo "readings in the large home: $("$tool" records --home "$work/large" --format csv | tail -n +2 | wc -l)"
for round in 1 2 3 4 5 6 7 8 9 10; do
    hyperfine -N --warmup 2 --runs 15 --style none --export-json "$work/round-$round.json" \
        -n large "$tool open --home $work/large $measure" \
        -n empty "$tool open --home $work/empty $measure" >/dev/null
done
python3 - "$work" <<'PY'
import glob, json, statistics, sys
times = {}
for path in glob.glob(sys.argv[1] + "/round-*.json"):
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
median = {name: statistics.median(values) * 1000 for name, values in times.items()}
print(f"median open, large history: {median['large']:.2f} ms; empty home: {median['empty']:.2f} ms "
      f"over {len(times['large'])} runs each")
print(f"ratio large/empty: {median['large'] / median['empty']:.3f} (target <= 1.1)")
PY
large_instructions=$(instructions "$tool" open --home "$work/large" "$measure")
empty_instructions=$(instructions "$tool" open --home "$work/empty" "$measure")
echo "instructions, large: $large_instructions; empty: $empty_instructions;" \
    "ratio large/empty: $(python3 -c "print(f'{$large_instructions / $empty_instructions:.3f}')")"

echo
echo "== records --format csv of the large home"
for _ in 1 2 3; do
    /usr/bin/time -o "$work/time" -f "%e %M" "$tool" records --home "$work/large" --format csv >/dev/null
    read -r seconds kib <"$work/time"
    echo "records csv: $seconds s, peak $((kib / 1024)) MiB (target < 1.5 s, flat memory)"
done

echo
echo "== records --format fhir --transaction and report, of the large home and of the small home"
for home in large empty; do
    /usr/bin/time -o "$work/time" -f "%e %M" "$tool" records --home "$work/$home" --format fhir --transaction \
        --patient "Jane Doe" --time-zone Europe/Berlin >"$work/bundle.json"
    read -r seconds kib <"$work/time"
    observations=$(grep -c '"resourceType":"Observation"' "$work/bundle.json")
    echo "fhir $home: $observations Observations in $seconds s, peak $((kib / 1024)) MiB," \
        "$(($(stat -c %s "$work/bundle.json") / 1048576)) MiB of JSON"
done
for home in large empty; do
    /usr/bin/time -o "$work/time" -f "%e %M" "$tool" report --home "$work/$home" --out "$work/report.html" 2>/dev/null
    read -r seconds kib <"$work/time"
    echo "report $home: $seconds s, peak $((kib / 1024)) MiB, $(($(stat -c %s "$work/report.html") / 1024)) KiB of HTML"
done
