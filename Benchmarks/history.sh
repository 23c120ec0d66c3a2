#!/usr/bin/env bash
# How every command's cost grows with the history, whole process, release build, radio timing off, on homes of
# 5,000, 100,000 and 1,000,000 glucose readings made by bulk syncs of the simulator (Benchmarks/homes.sh):
#   1. a measurement `open` on each home against the same on an empty home, medians of runs alternated in one
#      session (target: 1,000,000 <= 1.1x empty), and the instructions callgrind counts in one of each;
#   2. on each home, once each, wall time, CPU time (user + system) and peak resident memory (target: <= 40 MiB on
#      the 1,000,000-reading home) of: `records` in every format (table, csv, json, fhir, fhir --transaction),
#      `changes` (one page of 1,000, and whole), `report`, and a sync `open` of 5,000 records into a copy of the
#      home; and the bulk syncs that made the home (50,000 records each, into 0 to 950,000 readings);
#   3. the reference for the syncs: SQLite's own bulk insert of the 1,000,000-reading home's rows (its `reading`
#      and `feed` tables, with their indexes, into a new file, WAL and synchronous = FULL as the store) by python3's
#      sqlite3 module in one transaction, against the 20 syncs that stored them.
# Needs hyperfine, GNU time, valgrind and python3. Run from the repository root:
#   bash Benchmarks/history.sh [HOMES]   # about 5 minutes here; HOMES keeps the homes for sink-push.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
source Benchmarks/homes.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
homes=${1:-$work/homes}
mkdir -p "$homes"
sizes=(5000 100000 1000000)

echo "== the homes"
for size in "${sizes[@]}"; do
    bulk_home "$homes/$size" "$size"
done
# the empty home: the same fleet, no sync
mkdir -m 700 "$work/empty"
cp "$homes/5000/fleet.json" "$work/empty/fleet.json"
measure_request='ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=vitalbridge-demo'
# every home made by a first measurement: its files, store and device state exist
for home in "$work/empty" "${sizes[@]/#/$homes/}"; do
    "$tool" open --home "$home" "$measure_request" >/dev/null
done
for size in "${sizes[@]}"; do
    echo "readings in the $size home: $("$tool" records --home "$homes/$size" --format csv | tail -n +2 | wc -l)"
done

echo
echo "== a measurement open on each home against an empty one"
for round in 1 2 3 4 5 6 7 8 9 10; do
    hyperfine -N --warmup 2 --runs 15 --style none --export-json "$work/round-$round.json" \
        -n 0 "$tool open --home $work/empty $measure_request" \
        -n 5000 "$tool open --home $homes/5000 $measure_request" \
        -n 100000 "$tool open --home $homes/100000 $measure_request" \
        -n 1000000 "$tool open --home $homes/1000000 $measure_request" >/dev/null
done
python3 - "$work" <<'PY'
import glob, json, statistics, sys
times = {}
for path in glob.glob(sys.argv[1] + "/round-*.json"):
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
median = {name: statistics.median(values) * 1000 for name, values in times.items()}
for name in ("5000", "100000", "1000000"):
    print(f"open, {name} readings: median {median[name]:.2f} ms against {median['0']:.2f} ms empty, "
          f"ratio {median[name] / median['0']:.3f}, over {len(times[name])} runs each")
PY
empty_instructions=$(instructions "$tool" open --home "$work/empty" "$measure_request")
for size in "${sizes[@]}"; do
    counted=$(instructions "$tool" open --home "$homes/$size" "$measure_request")
    echo "instructions of open, $size readings: $counted against $empty_instructions empty," \
        "ratio $(python3 -c "print(f'{$counted / $empty_instructions:.3f}')")"
done

# run LABEL SIZE OUTPUT COMMAND…: one run of COMMAND under GNU time, its output to OUTPUT; prints a line with its
# wall and CPU time and peak resident memory (GNU time's %M), and the largest RssAnon (heap, stacks) and RssFile
# (the binary and libraries mapped) seen in /proc/PID/status, read every 5 ms, to tell what the peak is made of
run() {
    local label=$1 size=$2 output=$3
    shift 3
    python3 - "$work/time" "$output" "$label" "$size" "$@" <<'PY'
import subprocess, sys, time
times, output, label, size, *command = sys.argv[1:]
timed = subprocess.Popen(["/usr/bin/time", "-o", times, "-f", "%e %U %S %M", *command], stdout=open(output, "w"))
largest, child = {"RssAnon": 0, "RssFile": 0}, None
while timed.poll() is None:
    try:
        if child is None:
            child = int(open(f"/proc/{timed.pid}/task/{timed.pid}/children").read().split()[0])
        for line in open(f"/proc/{child}/status"):
            key, _, value = line.partition(":")
            if key in largest:
                largest[key] = max(largest[key], int(value.split()[0]))
    except (OSError, IndexError, ValueError):
        pass  # not started yet, or ended
    time.sleep(0.005)
if timed.returncode != 0:
    sys.exit(f"{label} on the {size} home failed: {open(times).read()}")
wall, user, system, kib = map(float, open(times).read().split())
print(f"{label}, {size} readings: {wall:.2f} s wall, {user + system:.2f} s CPU, peak {kib / 1024:.1f} MiB "
      f"(RssAnon {largest['RssAnon'] / 1024:.1f}, RssFile {largest['RssFile'] / 1024:.1f})")
PY
}

echo
echo "== each command on each home, once"
for size in "${sizes[@]}"; do
    home="$homes/$size"
    run "records --format table" "$size" /dev/null "$tool" records --home "$home" --format table
    run "records --format csv" "$size" "$work/out.csv" "$tool" records --home "$home" --format csv
    run "records --format json" "$size" /dev/null "$tool" records --home "$home" --format json
    fhir=(--patient "Jane Doe" --time-zone Europe/Berlin)
    run "records --format fhir" "$size" /dev/null "$tool" records --home "$home" --format fhir "${fhir[@]}"
    run "records --format fhir --transaction" "$size" "$work/bundle.json" \
        "$tool" records --home "$home" --format fhir --transaction "${fhir[@]}"
    run "changes --limit 1000" "$size" /dev/null "$tool" changes --home "$home" --limit 1000
    run "changes" "$size" "$work/changes" "$tool" changes --home "$home"
    run "report" "$size" /dev/null "$tool" report --home "$home" --out "$work/report.html"
    rm -rf "$work/copy"
    cp -a "$home" "$work/copy"
    run "sync open of 5,000 records" "$size" "$work/callback" \
        "$tool" open --home "$work/copy" "$(bulk_sync_request 004D3208EFFF)"
    grep -q "status=0" "$work/callback" || { echo "the sync into the $size home failed: $(cat "$work/callback")"; exit 1; }
    rm -rf "$work/copy"
    echo "(csv $(($(wc -l <"$work/out.csv") - 1)) readings; bundle $(grep -o '"resourceType":"Observation"' \
        "$work/bundle.json" | wc -l) Observations, $(($(stat -c %s "$work/bundle.json") / 1048576)) MiB;" \
        "changes $(wc -l <"$work/changes") lines; report $(($(stat -c %s "$work/report.html") / 1024)) KiB)"
done
python3 - "$homes/1000000.syncs" <<'PY'
import sys
syncs = [line.split() for line in open(sys.argv[1])]
first, last = syncs[0], syncs[-1]
for name, sync in (("first", first), ("last", last)):
    print(f"bulk sync of 50,000 records, the {name}, into {int(sync[0]):,} readings: {float(sync[1]):.2f} s wall, "
          f"{float(sync[2]) + float(sync[3]):.2f} s CPU, peak {int(sync[4]) / 1024:.1f} MiB")
print(f"bulk syncs of the 1,000,000-reading home, {len(syncs)}: {sum(float(s[1]) for s in syncs):.2f} s wall, "
      f"{sum(float(s[2]) + float(s[3]) for s in syncs):.2f} s CPU, the largest peak "
      f"{max(int(s[4]) for s in syncs) / 1024:.1f} MiB")
PY

echo
echo "== SQLite's own bulk insert of the same rows (python3's sqlite3 module, one transaction)"
python3 - "$homes/1000000/vitalbridge.sqlite" "$work/bulk.sqlite" <<'PY'
import sqlite3, sys, time
source = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
schema = [sql for (sql,) in source.execute(
    "SELECT sql FROM sqlite_master WHERE tbl_name IN ('reading', 'feed') AND sql IS NOT NULL "
    "ORDER BY type = 'index', name")]
rows = {table: source.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in ("reading", "feed")}
target = sqlite3.connect(sys.argv[2], isolation_level=None)
target.execute("PRAGMA journal_mode = WAL")
target.execute("PRAGMA synchronous = FULL")
for sql in schema:
    target.execute(sql)
wall, cpu = time.perf_counter(), time.process_time()
target.execute("BEGIN")
for table, values in rows.items():
    marks = ",".join("?" * len(values[0]))
    target.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
target.execute("COMMIT")
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(f"SQLite bulk insert of {len(rows['reading']):,} readings and {len(rows['feed']):,} feed rows "
      f"(SQLite {sqlite3.sqlite_version}): {wall:.2f} s wall, {cpu:.2f} s CPU")
PY
