#!/usr/bin/env bash
# The outbox to PostgreSQL, whole process, release build, against a private cluster (Tests/postgres.sh) on this
# machine's loopback socket:
#   1. `sink push` of a home of 100,000 readings (batches of 1,000): wall time, VitalBridge's own CPU time (user +
#      system) beside it, and its peak resident memory (target: <= 10 s);
#   2. the same rows loaded by psql's COPY into a table of the same columns: the server's own floor;
#   3. `sink push` of a home of 1,000,000 readings: peak resident memory (target: <= 40 MiB), wall and CPU time;
#   4. `changes` of the 1,000,000-reading home in pages of 1,000 (`--limit`), and whole: peak memory.
# Needs the Debian packages postgresql, postgresql-client, openssl and time. Run from the repository root:
#   bash Benchmarks/sink-push.sh           # about 3 minutes once built
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
chmod 755 "$work"
trap 'bash Tests/postgres.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
bash Tests/postgres.sh start "$work/pg" >/dev/null
# shellcheck disable=SC1091
source "$work/pg/cluster.env"
psql() { "$BIN/psql" -X -q -h "$SOCKET_DIR" -p "$PORT" -U "$SUPERUSER" "$@"; }

# home <dir> <count>: a home whose BG5s synced <count> generated readings, 50,000 a device (a fleet device holds at
# most 65,000): bulk syncs of the simulator
home() {
    local devices=$(($2 / 50000)) fleet="" index
    mkdir -m 700 "$1"
    for index in $(seq 1 "$devices"); do
        fleet+="${fleet:+,}$(printf '{"model":"BG5","mac":"004D3208E%03X","records":{"generate":{"count":50000,"from":"2000-01-01 00:00:00","to":"2026-11-19 00:00:00"}}}' "$index")"
    done
    printf '{"devices":[%s]}' "$fleet" >"$1/fleet.json"
    chmod 600 "$1/fleet.json"
    for index in $(seq 1 "$devices"); do
        "$tool" open --home "$1" "$(printf 'ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208E%03X&unit=1&ver=100&scheme=vitalbridge-demo' "$index")" >/dev/null
    done
}

# push <home> <database>: sink push, timed; prints wall, user + system CPU and peak memory
push() {
    psql -d postgres -c "CREATE DATABASE $2"
    "$tool" sink add --home "$1" lab "postgresql://$SUPERUSER@${SOCKET_DIR//\//%2F}:$PORT/$2" >/dev/null
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$tool" sink push --home "$1" >"$work/push.out"
    read -r wall user system kib <"$work/time"
    rows=$(psql -d "$2" -A -t -c "SELECT count(*) FROM vitalbridge.readings")
    echo "$(cat "$work/push.out")"
    python3 -c "import sys; w, u, s, k, n = map(float, sys.argv[1:6]); \
print(f'{int(n)} rows in the database; wall {w:.2f} s, VitalBridge CPU {u + s:.2f} s ({(u + s) / w * 100:.0f} % of wall, '
      f'{(u + s) / n * 1e6:.1f} µs a reading), peak {int(k) // 1024} MiB')" "$wall" "$user" "$system" "$kib" "$rows"
}

echo "== sink push of 100,000 readings"
home "$work/h100k" 100000
push "$work/h100k" bench100k

echo
echo "== psql COPY of the same 100,000 rows into a table of the same columns (the server's floor)"
psql -d bench100k -c "CREATE TABLE copied (LIKE vitalbridge.readings)"
psql -d bench100k -c "\\copy vitalbridge.readings TO '$work/rows.csv' CSV"
/usr/bin/time -o "$work/time" -f "%e" "$BIN/psql" -X -q -h "$SOCKET_DIR" -p "$PORT" -U "$SUPERUSER" -d bench100k \
    -c "\\copy copied FROM '$work/rows.csv' CSV"
echo "COPY of $(psql -d bench100k -A -t -c "SELECT count(*) FROM copied") rows: $(cat "$work/time") s"

echo
echo "== sink push of 1,000,000 readings"
home "$work/h1m" 1000000
push "$work/h1m" bench1m

echo
echo "== changes of the 1,000,000-reading home"
/usr/bin/time -o "$work/time" -f "%e %M" "$tool" changes --home "$work/h1m" --limit 1000 >/dev/null
read -r seconds kib <"$work/time"
echo "changes --limit 1000: $seconds s (the whole process), peak $((kib / 1024)) MiB"
/usr/bin/time -o "$work/time" -f "%e %M" "$tool" changes --home "$work/h1m" >"$work/all"
read -r seconds kib <"$work/time"
echo "changes, all $(wc -l <"$work/all") lines: $seconds s, peak $((kib / 1024)) MiB (target <= 40 MiB)"
