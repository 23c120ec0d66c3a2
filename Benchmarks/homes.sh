# Sourced by the benchmark scripts that measure a large history (history.sh, sink-push.sh); needs $tool (the
# vitalbridge binary) and GNU time.
#
#   bulk_home DIR COUNT   makes DIR a private home holding COUNT generated glucose readings (COUNT 5,000, or a
#                         multiple of 50,000), unless DIR already holds one made so (a file DIR.count says how many)
#
# The readings come from bulk syncs of the simulator: BG5s of 50,000 records each (a fleet device holds at most
# 65,000), or one of COUNT if COUNT is smaller; one `open` a device, each timed (wall, CPU, peak resident memory) in
# DIR.syncs, one line a sync: "READINGS_BEFORE WALL_S USER_S SYSTEM_S PEAK_KIB". The fleet also holds a BP5 with no
# records (004D3208D2F4, for measurements) and a BG5 of 5,000 records never synced here (004D3208EFFF, the probe:
# a sync into the finished home). Homes made from one COUNT hold the same readings, as the generator is
# deterministic.

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
    rm -rf "$dir" "$dir.count" "$dir.syncs"
    mkdir -m 700 "$dir"
    fleet='{"model":"BP5","mac":"004D3208D2F4"}'
    fleet+=',{"model":"BG5","mac":"004D3208EFFF","records":{"generate":{"count":5000,"from":"2026-01-01 00:00:00","to":"2026-11-19 00:00:00"}}}'
    for index in $(seq 1 "$devices"); do
        fleet+=",$(printf '{"model":"BG5","mac":"004D3208E%03X","records":{"generate":{"count":%d,"from":"2000-01-01 00:00:00","to":"2026-11-19 00:00:00"}}}' "$index" "$per")"
    done
    printf '{"devices":[%s]}' "$fleet" >"$dir/fleet.json"
    chmod 600 "$dir/fleet.json"
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
