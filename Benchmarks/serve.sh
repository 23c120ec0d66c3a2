#!/usr/bin/env bash
# What `vitalbridge serve` costs, whole process, release build, radio timing off, on simulated homes:
#   idle         the home's devices out of range (a fleet paced 1:1, their presence windows hours away): CPU time
#                (user + system) over the wall time of IDLE seconds of serve, as a share of one core, and the
#                resident memory sampled every 10 s (goals: <= 0.5 % of a core; flat, <= 40 MiB)
#   idle over BlueZ  the same home served over D-Bus by the simulated BlueZ (`vitalbridge simulate --bus`, not
#                counted) for IDLE seconds: serve's own CPU and memory as it scans for its SIG devices (the vendor
#                models are left out on BlueZ). A real adapter among neighbours' devices signals more
#                advertisements than the simulator's empty room
#   first record a monitor coming into range 3 s after serve starts (paced 1:1): from its window opening to the line
#                that says its records are stored (goal: <= 1 s)
#   twenty       20 devices coming into range at once (paced 1:1) for 15 minutes, 4 connections: until all 20
#                are synced, and every record stored (goal: all served, nothing lost). The simulator's time runs
#                ahead of the real one here: a generic device's measurement after connecting (the user's 30 s and
#                the measurement's own) passes at once on the world's one clock, for every link
#   day          a simulated day of five devices each in range a minute an hour, the fleet unpaced (the day runs at
#                once): resident memory sampled every 0.1 s, the first tenth of the run against the last (goal: flat
#                within 5 %, <= 40 MiB)
# Needs GNU time (apt-get install time) and dbus-daemon. Run from the repository root:
#   bash Benchmarks/serve.sh          # idle over 600 s (about 11 minutes)
#   bash Benchmarks/serve.sh 60       # idle over 60 s
set -euo pipefail
cd "$(dirname "$0")/.."
idle=${1:-600}

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT


# device <model> <mac> <presence JSON>: a device of the built-in fleet's kind with five generated records
device() {
    echo "{\"model\":\"$1\",\"mac\":\"$2\",\"presence\":$3,\"records\":{\"generate\":{\"count\":5,\"from\":\"2026-11-19 07:00:00\",\"to\":\"2026-11-19 21:00:00\"}}}"
}
# add_all <home> <mac>...: each device added by its QR code, as a caller adds it, through a copy of the fleet
# without presence windows (each in range then), the fleet itself put back after
add_all() {
    local home=$1
    shift
    cp "$home/fleet.json" "$home/fleet.served"
    python3 - "$home/fleet.json" <<'PY'
import json, sys
fleet = json.load(open(sys.argv[1]))
for device in fleet["devices"]: device.pop("presence", None)
json.dump(fleet, open(sys.argv[1], "w"))
PY
    for mac in "$@"; do "$tool" open --home "$home" --scan-qr "$mac" \
        "ihealth-layer://?cmd=1&addtype=1&devicemodel=$(model_number "$home" "$mac")&scheme=vitalbridge-demo" >/dev/null; done
    mv "$home/fleet.served" "$home/fleet.json"
}
# model_number <home> <mac>: the devicemodel of the fleet's device at mac
model_number() {
    python3 - "$1/fleet.json" "$2" <<'PY'
import json, sys
numbers = {"BP5": 100, "BG5": 400, "HS4": 500, "THV3": 600, "BPS": 900, "GLS": 901, "WSS": 902, "HTS": 903, "PLXS": 904}
fleet = json.load(open(sys.argv[1]))
print(next(numbers[d["model"]] for d in fleet["devices"] if d["mac"] == sys.argv[2]))
PY
}
# fleet <home> <start> <pace or null> <devices JSON>
fleet() {
    mkdir -p "$1"
    "$tool" init --home "$1" >/dev/null
    echo "{\"start\":\"$2\",\"pace\":$3,\"devices\":[$4]}" >"$1/fleet.json"
}
# rss <pid>: resident memory in KiB
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# sample_rss <pid> <seconds>: `rss` of pid every <seconds> until it ends, one sample a line
sample_rss() {
    while kill -0 "$1" 2>/dev/null; do
        rss "$1"
        sleep "$2"
    done
}

echo "== idle: the devices out of range, $idle s"
macs=(004D3208D2F4 004D3208D308 004D3208D314 004D3208D315 004D3208D316)
models=(BP5 BG5 BPS GLS WSS)
devices=""
for i in "${!macs[@]}"; do devices+="$(device "${models[$i]}" "${macs[$i]}" '[{"at":"12:00","seconds":60}]'),"; done
# the world starts at midnight: out of range for twelve hours (add_all adds them through a fleet without windows)
fleet "$work/idle" "2026-11-20 00:00:00" 1 "${devices%,}"
add_all "$work/idle" "${macs[@]}"
/usr/bin/time -o "$work/idle.time" -f "%U %S %e %M" "$tool" serve --home "$work/idle" --seconds "$idle" >"$work/idle.out" &
timing=$!
sleep 1
# GNU time's child is serve
mapfile -t samples < <(sample_rss "$(pgrep -P "$timing" -x vitalbridge | head -1)" 10)
wait "$timing"
read -r user system wall peak <"$work/idle.time"
python3 - "$user" "$system" "$wall" "$peak" "${samples[@]}" <<'PY'
import sys
user, system, wall, peak = map(float, sys.argv[1:5])
samples = [int(s) / 1024 for s in sys.argv[5:] if s]
share = (user + system) / wall * 100
print(f"idle: {user + system:.2f} s CPU over {wall:.0f} s: {share:.3f} % of a core (goal <= 0.5 %: {'met' if share <= 0.5 else 'NOT met'})")
if samples:
    print(f"idle: resident {samples[0]:.1f} MiB at 1 s, {samples[-1]:.1f} MiB at the end, max {max(samples):.1f}; peak {peak / 1024:.1f} MiB "
          f"(goal flat, <= 40 MiB: {'met' if max(samples) <= 40 and samples[-1] <= samples[0] * 1.05 else 'NOT met'})")
PY

echo "== idle over BlueZ: the SIG devices out of range, $idle s, the simulated BlueZ on a private bus"
# the same home's SIG devices, served by `vitalbridge simulate --bus` (its own process, not measured) as bluetoothd
# serves real ones: serve scans 5 s, pauses 0.5 s, and asks BlueZ which devices connected by themselves, all the time
mkdir -p "$work/bus"
{ read -r bus; read -r bus_pid; } < <(dbus-daemon --session --print-address --fork --print-pid \
    --address="unix:path=$work/bus/socket")
"$tool" simulate --bus "$bus" --fleet "$work/idle/fleet.json" >/dev/null &
simulator=$!
# the bus and the simulator go with the script, however it ends
trap 'kill "$simulator" "$bus_pid" 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
DBUS_SYSTEM_BUS_ADDRESS="$bus" /usr/bin/time -o "$work/bluez.time" -f "%U %S %e %M" \
    "$tool" serve --home "$work/idle" --transport bluez --seconds "$idle" >"$work/bluez.out" &
timing=$!
sleep 1
mapfile -t samples < <(sample_rss "$(pgrep -P "$timing" -x vitalbridge | head -1)" 10)
wait "$timing"
kill "$simulator" "$bus_pid" 2>/dev/null || true
trap 'rm -rf "$work"' EXIT
read -r user system wall peak <"$work/bluez.time"
python3 - "$user" "$system" "$wall" "$peak" "$(grep -c . "$work/bluez.out" || true)" "${samples[@]}" <<'PY'
import sys
user, system, wall, peak = map(float, sys.argv[1:5])
lines = int(sys.argv[5])
samples = [int(s) / 1024 for s in sys.argv[6:] if s]
share = (user + system) / wall * 100
print(f"idle over BlueZ: {user + system:.2f} s CPU over {wall:.0f} s: {share:.3f} % of a core "
      f"(goal <= 0.5 %: {'met' if share <= 0.5 else 'NOT met'}); {lines} line(s) printed")
if samples:
    print(f"idle over BlueZ: resident {samples[0]:.1f} MiB at 1 s, {samples[-1]:.1f} MiB at the end, max {max(samples):.1f}; "
          f"peak {peak / 1024:.1f} MiB")
PY

echo "== first record: a monitor in range 3 s after serve starts"
# the world starts 3 s before the window; serve's first line is the sync
fleet "$work/first" "2026-11-20 06:59:57" 1 "$(device BPS 004D3208D314 '[{"at":"07:00","seconds":60}]')"
add_all "$work/first" 004D3208D314
start=$(date +%s.%N)
"$tool" serve --home "$work/first" --seconds 8 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$work/first.out"
python3 - "$start" "$work/first.out" <<'PY'
import sys
start = float(sys.argv[1])
for line in open(sys.argv[2]):
    stamp, text = line.split(" ", 1)
    if "synced" in text:
        latency = float(stamp) - start - 3
        print(f"first record: stored {latency:.3f} s after the window opened, {text.strip()} (goal <= 1 s: {'met' if latency <= 1 else 'NOT met'})")
        break
else:
    print("first record: NOT synced")
PY

echo "== twenty devices at once, 4 connections"
devices=""
twenty=()
for i in $(seq 0 19); do
    mac=$(printf '004D3208E%03X' "$i")
    twenty+=("$mac")
    kind=("BPS" "GLS" "WSS" "HTS")
    devices+="$(device "${kind[$((i % 4))]}" "$mac" '[{"at":"07:00","seconds":900}]'),"
done
fleet "$work/twenty" "2026-11-20 06:59:58" 1 "${devices%,}"
add_all "$work/twenty" "${twenty[@]}"
/usr/bin/time -o "$work/twenty.time" -f "%e %M" "$tool" serve --home "$work/twenty" --seconds 120 \
    | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$work/twenty.out"
start=$(head -1 "$work/twenty.out" | cut -d' ' -f1)
python3 - "$work/twenty.out" <<'PY'
import sys
lines = [line.split(" ", 1) for line in open(sys.argv[1])]
synced = [(float(stamp), text) for stamp, text in lines if "synced" in text]
if synced:
    print(f"twenty: {len(synced)} of 20 synced, the last {synced[-1][0] - synced[0][0]:.3f} s after the first")
PY
stored=$("$tool" records --home "$work/twenty" --format csv | tail -n +2 | wc -l)
echo "twenty: $stored readings stored (the 20 devices held 5 each: 100)"

echo "== a simulated day, unpaced: resident memory"
devices=""
for i in "${!macs[@]}"; do
    windows=$(python3 -c "import json; print(json.dumps([{'at': f'{h:02d}:{10 * $i:02d}', 'seconds': 60} for h in range(24)]))")
    devices+="$(device "${models[$i]}" "${macs[$i]}" "$windows"),"
done
fleet "$work/day" "2026-11-20 00:00:10" null "${devices%,}"
add_all "$work/day" "${macs[@]}"
"$tool" serve --home "$work/day" --seconds 86400 >"$work/day.out" &
serving=$!
mapfile -t samples < <(sample_rss "$serving" 0.1)
wait "$serving"
python3 - "$(grep -c synced "$work/day.out")" "${samples[@]}" <<'PY'
import sys
syncs = int(sys.argv[1])
samples = [int(s) / 1024 for s in sys.argv[2:] if s and int(s) > 0]
tenth = max(1, len(samples) // 10)
first, last = max(samples[:tenth]), max(samples[-tenth:])
flat = last <= first * 1.05
print(f"day: {syncs} syncs, {len(samples)} samples; resident max {first:.1f} MiB in the first tenth, {last:.1f} MiB in the last, "
      f"max {max(samples):.1f} MiB (goal flat within 5 %, <= 40 MiB: {'met' if flat and max(samples) <= 40 else 'NOT met'})")
PY
