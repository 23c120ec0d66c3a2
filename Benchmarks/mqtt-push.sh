#!/usr/bin/env bash
# The outbox to MQTT, whole process, release build, against a private mosquitto on this machine's loopback, on homes
# of SIZES glucose readings (Benchmarks/homes.sh; default 50,000, 200,000 and 1,000,000):
#   1. `sink push` of each home (batches of 1,000, each published at QoS 1 within a window of 64 messages in flight,
#      with the home's latest glucose retained for Home Assistant, the position recorded once the broker acknowledged
#      the batch): wall time, changes a second, VitalBridge's own CPU time (user + system) and its peak resident
#      memory (goal: >= 5,000 changes a second, memory flat across the sizes);
#   2. mosquitto_pub publishing 100,000 messages of the changes' mean length at QoS 1 from one connection: the
#      broker's floor;
#   3. a subscriber's session (mosquitto_sub) counts what arrived of each.
# Needs the Debian packages mosquitto, mosquitto-clients and time. Run from the repository root:
#   bash Benchmarks/mqtt-push.sh [HOMES]   # about 10 minutes once built and the homes made; HOMES: homes reused
#   SIZES="100000" bash Benchmarks/mqtt-push.sh  # one size
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product vitalbridge >/dev/null
tool="$PWD/.build/release/vitalbridge"
work=$(mktemp -d)
chmod 755 "$work"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous false
password_file $work/passwd
persistence false
max_queued_messages 0
log_dest none
CONF
if [ "$(id -u)" = 0 ]; then echo "user root" >>"$work/mosquitto.conf"; fi
mosquitto_passwd -c -b "$work/passwd" hub hub-secret
printf 'hub-secret' >"$work/password"
chmod 600 "$work/password"
mosquitto -c "$work/mosquitto.conf" &
broker=$!
trap 'kill $broker 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done
client=(-h 127.0.0.1 -p "$port" -u hub -P hub-secret)
# a session kept for the counter: what is published while it is away is queued for it
session=(-c -i counter -q 1 -t 'bench/#' -t 'vitalbridge/+/changes')
mosquitto_sub "${client[@]}" "${session[@]}" -E

source Benchmarks/homes.sh
homes=${1:-$work/homes}
mkdir -p "$homes"
for size in ${SIZES:-50000 200000 1000000}; do
    bulk_home "$homes/$size" "$size"
    rm -rf "$work/home"
    cp -a "$homes/$size" "$work/home"
    echo "== sink push of $size readings to mosquitto"
    "$tool" sink add --home "$work/home" ha "mqtt://hub@127.0.0.1:$port" --password-file "$work/password" >/dev/null
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$tool" sink push --home "$work/home" >"$work/push.out"
    cat "$work/push.out"
    read -r wall user system kib <"$work/time"
    arrived=$(mosquitto_sub "${client[@]}" "${session[@]}" -C "$size" -W 120 | wc -l)
    python3 -c "import sys; w, u, s, k, n = map(float, sys.argv[1:6]); \
print(f'{int(n)} changes arrived; wall {w:.2f} s = {n / w:,.0f} changes a second; VitalBridge CPU {u + s:.2f} s '
      f'({(u + s) / n * 1e6:.1f} µs a change), peak {k / 1024:.1f} MiB')" "$wall" "$user" "$system" "$kib" "$arrived"
done
size=100000

# mosquitto_pub -l (a line a message) exits at the end of its input before every QoS 1 message is sent (Debian 12's
# 2.0.11 delivered 34,476 of 100,000 here), so the floor publishes one message of the lines' mean length, repeated
echo "== mosquitto_pub of $size messages of the changes' mean length at QoS 1 (the broker's floor)"
"$tool" changes --home "$work/home" | head -n "$size" >"$work/lines" || true
length=$(awk '{ total += length($0) } END { printf "%d", total / NR }' "$work/lines")
message=$(head -c "$length" /dev/zero | tr '\0' x)
/usr/bin/time -o "$work/time" -f "%e %U %S %M" mosquitto_pub "${client[@]}" -q 1 -t bench/changes -m "$message" \
    --repeat "$size"
read -r wall user system kib <"$work/time"
arrived=$(mosquitto_sub "${client[@]}" "${session[@]}" -C "$size" -W 60 | wc -l)
python3 -c "import sys; w, u, s, k, n = map(float, sys.argv[1:6]); \
print(f'{int(n)} messages of {sys.argv[6]} bytes arrived; wall {w:.2f} s = {n / w:,.0f} a second; mosquitto_pub CPU {u + s:.2f} s, '
      f'peak {k / 1024:.1f} MiB')" "$wall" "$user" "$system" "$kib" "$arrived" "$length"
