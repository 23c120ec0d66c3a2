#!/usr/bin/env bash
# Puts VitalBridge's own JSON reader on trial against swift-foundation's JSONDecoder (issue 34: keep a speed trick
# only if it saves more than 2 % of `open` or of the operation it serves). The files `open` reads as JSON on a
# simulated home: the fleet file (the built-in fleet) and a device's saved state, small (20 records) and full
# (65,000 records, a BP5's memory), which every sync of that device reads. Each reader runs in a fresh process and
# times its first read (json-vitalbridge, json-foundation), medians of 100 alternated runs; JSONDecoder reads into
# synthesized mirrors that check nothing, the floor of a Codable reader's cost. Run from the repository root:
#   bash Benchmarks/json-readers.sh
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product json-foundation >/dev/null
swift build -c release --product json-vitalbridge >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/json-vitalbridge make-fleet - >"$work/fleet.json"
.build/release/json-vitalbridge make-state 20 >"$work/small.json"
.build/release/json-vitalbridge make-state 65000 >"$work/full.json"
for _ in $(seq 1 100); do
    for file in fleet:fleet.json state:small.json state:full.json; do
        kind=${file%%:*} name=${file#*:}
        echo "foundation $name $(.build/release/json-foundation "$kind" "$work/$name" 2>&1 >/dev/null)"
        echo "vitalbridge $name $(.build/release/json-vitalbridge "$kind" "$work/$name" 2>&1 >/dev/null)"
    done
done >"$work/times"
python3 - "$work/times" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    reader, name, value, _ = line.split()
    times.setdefault((name, reader), []).append(int(value))
for name in ("fleet.json", "small.json", "full.json"):
    ours, theirs = statistics.median(times[(name, "vitalbridge")]), statistics.median(times[(name, "foundation")])
    print(f"{name}: VitalBridge's reader {ours:,.0f} µs, JSONDecoder {theirs:,.0f} µs: {theirs / ours:.2f}×")
PY
