# Sourced by the benchmark scripts that make simulated homes (history.sh, sink-push.sh, scale.sh, push-cpu.sh, and
# open-latency.sh, lean-binary.sh and speed-tricks.sh for an existing home).
#
#   fleet_home DIR FLEET_JSON                 makes DIR a private home (0700) with that fleet.json (0600)
#   generated_device MODEL MAC COUNT [FROM]   prints a fleet device holding COUNT records generated from FROM
#                                             (2016-01-01 00:00:00 unless given) to 2026-11-19 00:00:00
#   bulk_home DIR COUNT   makes DIR a private home holding COUNT generated glucose readings (COUNT 5,000, or a
#                         multiple of 50,000), unless DIR already holds one made so (a file DIR.count says how many)
#
# The readings come from bulk syncs of the simulator: BG5s of 50,000 records each (a fleet device holds at most
# 65,000), or one of COUNT if COUNT is smaller; one `open` a device, each timed (wall, CPU, peak resident memory) in
# DIR.syncs, one line a sync: "READINGS_BEFORE WALL_S USER_S SYSTEM_S PEAK_KIB". The fleet also holds a BP5 with no
# records (004D3208D2F4, for measurements) and a BG5 of 5,000 records never synced here (004D3208EFFF, the probe:
# a sync into the finished home). Homes made from one COUNT hold the same readings, as the generator is
# deterministic.

# bulk_home needs $tool (the vitalbridge binary) and GNU time.
#
#   existing_home TOOL WORK REQUEST   makes WORK/home an existing home (TOOL opens REQUEST in a new one) and the
#                                     executable WORK/reset, which makes WORK/run a fresh copy of it (hyperfine's
#                                     --prepare, run before each measured `open`, not timed)
# The scripts that time `open` again and again open a copy each time, as a home is between two measurements. Into
# one home, hundreds of runs would store hundreds of readings within a few seconds: then more than four readings of
# the device lie within 2 s of each new one, so the store stops looking up the times of a batch at once and reads
# each of them (ReadingWriter.lookUp), which no device measuring in real time brings about. On 2026-12-01 that was
# 24.9 M instructions for a release `open` against 14.8 M on a copy.

existing_home() {
    local tool=$1 work=$2 request=$3
    "$tool" open --home "$work/home" "$request" >/dev/null
    printf '#!/bin/sh\nrm -rf "%s/run" && exec cp -a "%s/home" "%s/run"\n' "$work" "$work" "$work" >"$work/reset"
    chmod 755 "$work/reset"
    "$work/reset"
}

fleet_home() {
    rm -rf "$1"
    mkdir -m 700 "$1"
    printf '%s' "$2" >"$1/fleet.json"
    chmod 600 "$1/fleet.json"
}

generated_device() {
    printf '{"model":"%s","mac":"%s","records":{"generate":{"count":%d,"from":"%s","to":"2026-11-19 00:00:00"}}}' \
        "$1" "$2" "$3" "${4:-2016-01-01 00:00:00}"
}

# the request that bulk-syncs the BG5 of that MAC
bulk_sync_request() {
    echo "ihealth-layer://?cmd=2&devicemodel=400&mac=$1&unit=1&ver=100&scheme=vitalbridge-demo"
}

bulk_home() {
    local dir=$1 count=$2 per=50000 devices index fleet mac before=0
    if [ -f "$dir.count" ] && [ "$(cat "$dir.count")" = "$count" ]; then return 0; fi
    if [ "$count" -lt "$per" ]; then
        per=$count
    elif [ $((count % per)) -ne 0 ]; then
        echo "bulk_home: $count is not a multiple of $per" >&2
        return 1
    fi
    devices=$((count / per))
    rm -rf "$dir.count" "$dir.syncs"
    fleet='{"model":"BP5","mac":"004D3208D2F4"}'
    fleet+=",$(generated_device BG5 004D3208EFFF 5000 "2026-01-01 00:00:00")"
    for index in $(seq 1 "$devices"); do
        fleet+=",$(generated_device BG5 "$(printf '004D3208E%03X' "$index")" "$per" "2000-01-01 00:00:00")"
    done
    fleet_home "$dir" "{\"devices\":[$fleet]}"
    for index in $(seq 1 "$devices"); do
        mac=$(printf '004D3208E%03X' "$index")
        /usr/bin/time -o "$dir.time" -f "%e %U %S %M" "$tool" open --home "$dir" "$(bulk_sync_request "$mac")" \
            >"$dir.callback"
        grep -q "status=0" "$dir.callback" || {
            echo "bulk_home: the sync of $mac failed: $(cat "$dir.callback")" >&2
            return 1
        }
        echo "$before $(cat "$dir.time")" >>"$dir.syncs"
        before=$((before + per))
    done
    rm -f "$dir.time" "$dir.callback"
    echo "$count" >"$dir.count"
}
