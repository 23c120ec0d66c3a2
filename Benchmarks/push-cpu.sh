#!/usr/bin/env bash
# What a push sync costs the hub per record, whole process, release build, radio timing off (issue 38: hub CPU per
# pushed record <= 75 us, commit-before-ack kept). A push family (BP5, HS4, THV3) sends its records one by one, and
# the hub commits each in its own transaction before it acknowledges it; so a record's time is the hub's CPU plus
# the wait for the disk. For each family, a sync of COUNT records (20,000 unless given) into a fresh home:
#   1. wall time per record, and the process's CPU per record (user + sys from GNU time), in a run without strace;
#      the simulated device runs in the same process, so this CPU includes the device's side of the link;
#   2. in a second run under `strace -f -c -w -e trace=fsync,fdatasync` (wall-clock time in the calls, strace's
#      own cost is not in it): the time spent waiting in fsync/fdatasync per record and how many syncs a record
#      costs; then in a third run under `strace -f -e trace=fsync,fdatasync,openat` which files they sync;
#   3. the disk's floor: a program (python3) writing one 4,096-byte block (SQLite's page) and calling fdatasync,
#      FLOOR times (2,000 unless given), in a file of the same directory as the homes, appending (as SQLite's
#      log grows) and rewriting one block in place; and what SQLite is set to sync (journal mode, synchronous).
#   4. with --instructions: callgrind's instructions per record of the BP5 sync (Benchmarks/callgrind.sh), the
#      difference between a sync of 4,000 and of 2,000 records over 2,000, without the process's start; they do not
#      depend on the machine's load, so they are the figure to compare before and after a change.
# Prints a human line per figure and, for figures.sh, one machine-readable line per family and one for the floor:
#   push-cpu family=BP5 records=20000 wall_us=… cpu_us=… user_us=… sys_us=… sync_wait_us=… syncs=… peak_kib=…
#   push-cpu-floor calls=2000 append_fdatasync_us=… inplace_fdatasync_us=… fsync_us=…
#   push-cpu-instructions family=BP5 per_record=…
# (every _us a record's or a call's mean, in microseconds). Needs GNU time, strace and python3; valgrind for
# --instructions (apt-get install time strace valgrind). Run from the repository root:
#   bash Benchmarks/push-cpu.sh                     # 20,000 records a family (about 1 minute once built)
#   bash Benchmarks/push-cpu.sh --instructions      # and instructions per record (a few minutes more)
#   COUNT=5000 FLOOR=500 bash Benchmarks/push-cpu.sh
#   VITALBRIDGE=/tmp/vitalbridge-before bash Benchmarks/push-cpu.sh   # a binary built before (no build)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh
source Benchmarks/homes.sh
count=${COUNT:-20000}
floor=${FLOOR:-2000}
with_instructions=
[ "${1:-}" = --instructions ] && with_instructions=1

if [ -n "${VITALBRIDGE:-}" ]; then
    tool=$(realpath "$VITALBRIDGE")
else
    swift build -c release --product vitalbridge >/dev/null
    tool="$PWD/.build/release/vitalbridge"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# home <dir> <model> <count>: a private home whose fleet holds one device of <model> with <count> generated records
home() { fleet_home "$1" "{\"devices\":[$(generated_device "$2" 004D3208D2F4 "$3")]}"; }
request() { # request <devicemodel> <unit>: a history request (cmd=2) for the fleet's device
    echo "ihealth-layer://?cmd=2&devicemodel=$1&mac=004D3208D2F4&ver=100&scheme=vitalbridge-demo&unit=$2"
}
# sync <dir> <devicemodel> <unit> <records> [wrapper…]: one sync into <dir>, checked to have stored every record
sync() {
    local dir=$1 number=$2 unit=$3 records=$4
    shift 4
    "$@" "$tool" open --home "$dir" "$(request "$number" "$unit")" >"$work/callback"
    grep -q "status=0" "$work/callback" || { echo "sync failed: $(cat "$work/callback")" >&2; exit 1; }
    local stored
    stored=$("$tool" records --home "$dir" --format csv | tail -n +2 | wc -l)
    [ "$stored" -eq "$records" ] || { echo "$stored of $records records stored" >&2; exit 1; }
}

echo "== the disk's fsync floor: $floor calls, one 4,096-byte block each, in the homes' directory ($work)"
python3 - "$work/floor" "$floor" "$work/floor-cpu" <<'PY'
import os, sys, time
path, calls = sys.argv[1], int(sys.argv[2])
block = os.urandom(4096)
def run(sync, append):
    fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    os.write(fd, block)
    os.fsync(fd)
    start, times = time.perf_counter(), os.times()
    for index in range(calls):
        os.pwrite(fd, block, (index + 1) * 4096 if append else 0)
        sync(fd)
    elapsed, after = time.perf_counter() - start, os.times()
    os.close(fd)
    os.unlink(path)
    cpu = after.user + after.system - times.user - times.system
    return elapsed / calls * 1e6, cpu / calls * 1e6
(append, cpu), (inplace, _), (full, _) = run(os.fdatasync, True), run(os.fdatasync, False), run(os.fsync, True)
print(f"write + fdatasync: {append:.1f} us a call appending (CPU {cpu:.1f} us), {inplace:.1f} us rewriting one "
      f"block; write + fsync appending: {full:.1f} us")
print(f"push-cpu-floor calls={calls} append_fdatasync_us={append:.1f} inplace_fdatasync_us={inplace:.1f} "
      f"fsync_us={full:.1f} append_fdatasync_cpu_us={cpu:.1f}")
open(sys.argv[3], "w").write(f"{cpu}\n")
PY

# model, devicemodel, unit
families=("BP5 100 2" "HS4 500 4" "THV3 600 7")
echo "== push syncs of $count records, whole process (CPU in a run without strace; sync waits in one under strace)"
for family in "${families[@]}"; do
    read -r model number unit <<<"$family"
    home "$work/home" "$model" "$count"
    sync "$work/home" "$number" "$unit" "$count" /usr/bin/time -o "$work/time" -f "%e %U %S %M"
    read -r seconds user system kib <"$work/time"
    home "$work/home" "$model" "$count"
    sync "$work/home" "$number" "$unit" "$count" strace -f -c -w -e trace=fsync,fdatasync -o "$work/strace"
    home "$work/home" "$model" "$count"
    sync "$work/home" "$number" "$unit" "$count" strace -f -qq -e trace=fsync,fdatasync,openat -o "$work/calls"
    python3 - "$model" "$count" "$seconds" "$user" "$system" "$kib" "$work/strace" "$work/calls" \
        "$(cat "$work/floor-cpu")" <<'PY'
import collections, re, sys
model, count, floor_cpu = sys.argv[1], int(sys.argv[2]), float(sys.argv[9])
seconds, user, system, kib = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
wait = calls = 0
for line in open(sys.argv[7]):  # strace -c -w: % time, seconds, usecs/call, calls, [errors,] syscall
    fields = line.split()
    if len(fields) >= 5 and fields[-1] in ("fsync", "fdatasync"):
        wait += float(fields[1])
        calls += int(fields[3])
# which files the syncs were for: strace's lines name the descriptor, openat's say the path it was opened as
paths, synced = {}, collections.Counter()
for line in open(sys.argv[8]):
    opened = re.search(r'openat\([^,]+, "([^"]+)".*\) = (\d+)$', line)
    if opened:
        paths[(line.split()[0], opened.group(2))] = opened.group(1).rsplit("/", 1)[-1]
        continue
    call = re.search(r"(fsync|fdatasync)\((\d+)\)", line)
    if call:
        synced[f"{call.group(1)}({paths.get((line.split()[0], call.group(2)), 'fd ' + call.group(2))})"] += 1
us = lambda value: value / count * 1e6
print(f"{model:5} {count} records: wall {us(seconds):.1f} us a record; CPU {us(user + system):.1f} us a record "
      f"(user {us(user):.1f}, sys {us(system):.1f}); waiting in fsync/fdatasync {us(wait):.1f} us a record, "
      f"{calls / count:.2f} syncs a record; peak {kib // 1024} MiB")
outside = us(user + system) - calls / count * floor_cpu
print(f"      CPU besides what the floor program spends on as many write + fdatasync calls: {outside:.1f} us a record")
print("      synced: " + ", ".join(f"{name} {n / count:.3f}/record" for name, n in synced.most_common()))
print(f"push-cpu family={model} records={count} wall_us={us(seconds):.1f} cpu_us={us(user + system):.1f} "
      f"user_us={us(user):.1f} sys_us={us(system):.1f} sync_wait_us={us(wait):.1f} syncs={calls / count:.3f} "
      f"peak_kib={kib} cpu_besides_sync_us={outside:.1f}")
PY
done

store=$(find "$work/home" -name '*.sqlite' -o -name '*.db' | head -n 1)
if [ -n "$store" ] && command -v sqlite3 >/dev/null; then
    echo "store $(basename "$store"): journal_mode $(sqlite3 "$store" 'PRAGMA journal_mode'), page_size" \
        "$(sqlite3 "$store" 'PRAGMA page_size') (synchronous is set per connection: FULL, Sources/VitalStore/StoreFile.swift)"
fi

if [ -n "$with_instructions" ]; then
    echo
    echo "== instructions per record, BP5 (callgrind: a sync of 4,000 records less one of 2,000, over 2,000)"
    home "$work/small" BP5 2000
    home "$work/large" BP5 4000
    small=$(instructions "$tool" open --home "$work/small" "$(request 100 2)")
    large=$(instructions "$tool" open --home "$work/large" "$(request 100 2)")
    echo "BP5: $small instructions for 2,000 records, $large for 4,000: $(((large - small) / 2000)) a record"
    echo "push-cpu-instructions family=BP5 per_record=$(((large - small) / 2000))"
fi
