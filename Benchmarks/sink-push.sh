#!/usr/bin/env bash
# The outbox to PostgreSQL, whole process, release build, against a private cluster (Tests/postgres.sh) on this
# machine's loopback socket, on homes of 5,000, 100,000 and 1,000,000 glucose readings (Benchmarks/homes.sh):
#   1. `sink push` of each home (batches of 1,000): wall time, VitalBridge's own CPU time (user + system) beside it,
#      and its peak resident memory (targets: 100,000 in <= 10 s; <= 40 MiB for 1,000,000);
#   2. the same rows loaded by psql's COPY into a table of the same columns: the server's own floor.
# Each push goes to a copy of its home (`sink add` writes the sink into the home). Needs the Debian packages
# postgresql, postgresql-client, openssl and time. Run from the repository root:
#   bash Benchmarks/sink-push.sh [HOMES]   # about 2 minutes once built; HOMES: history.sh's homes, reused
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

source Benchmarks/homes.sh
homes=${1:-$work/homes}
mkdir -p "$homes"

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
      f'{(u + s) / n * 1e6:.1f} µs a reading), peak {k / 1024:.1f} MiB')" "$wall" "$user" "$system" "$kib" "$rows"
}

for size in 5000 100000 1000000; do
    bulk_home "$homes/$size" "$size"
    rm -rf "$work/home"
    cp -a "$homes/$size" "$work/home"
    echo "== sink push of $size readings"
    push "$work/home" "bench$size"
    rm -rf "$work/home"
    echo "== psql COPY of the same rows into a table of the same columns (the server's floor)"
    psql -d "bench$size" -c "CREATE TABLE copied (LIKE vitalbridge.readings)"
    psql -d "bench$size" -c "\\copy vitalbridge.readings TO '$work/rows.csv' CSV"
    /usr/bin/time -o "$work/time" -f "%e" "$BIN/psql" -X -q -h "$SOCKET_DIR" -p "$PORT" -U "$SUPERUSER" \
        -d "bench$size" -c "\\copy copied FROM '$work/rows.csv' CSV"
    echo "COPY of $(psql -d "bench$size" -A -t -c "SELECT count(*) FROM copied") rows: $(cat "$work/time") s"
    rm -f "$work/rows.csv"
    echo
done
