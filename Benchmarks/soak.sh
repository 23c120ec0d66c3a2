#!/usr/bin/env bash
# The soak (issues 38, 56): one simulated home of 21 devices run as a household would for 2 simulated days, whole processes,
# with 1 % link drops and random SIGKILLs of the hub, then a verdict. Run from the repository root:
#   bash Benchmarks/soak.sh            # release build; 2 simulated days in 25 minutes, 100 kills
#   bash Benchmarks/soak.sh --short    # CI: 2 simulated days in 150 s, 15 kills, under 5 minutes once built; uses
#                                      # .build/debug/vitalbridge when present (swift test made it), else builds debug
# Needs python3 and the Debian packages postgresql and postgresql-client (Tests/postgres.sh), mosquitto and
# mosquitto-clients, nothing else.
# SOAK_SECONDS and SOAK_KILLS override the length and the number of kills; SOAK_SEED the random choices;
# SOAK_KEEP=1 keeps the home and logs; SOAK_INJECT=redelivery hands one callback over again at the end, from an
# invocation that was not killed, to see the verdict fail (exit 1, "delivered twice"); SOAK_INJECT=wrong-person
# enrolls Ann as the family scale's user 2 and Bob as user 1, to see it fail "wrong person".
#
# The home (a fresh temporary one; nothing outside it and the private PostgreSQL is touched):
#   - 21 devices: 4 smartbands, 6 BP5 and 4 HS4 (push devices: a record is forgotten when its indication is
#     confirmed), 4 BG5 and 1 PO3 (Record Access Control Point: forgotten only on the delete after a whole
#     transfer), 1 heart-rate sensor, and a family scale (WSS with a User Data Service, issue 54): users 1 and 2 on it
#     are Ann and Bob, enrolled in the home (`people enroll --user-index --consent`) before the soak; user 3 is a
#     visitor nobody enrolled; some weighings are of an unknown user (255). Each history device holds a list of
#     records the script writes (so it knows every one): 300 on a BP5 or HS4, 60 on a BG5, 40 on the PO3, 120 on the
#     family scale (30 of each user). Every device has "failures": {"linkDrops": 0.01}.
#   - Devices on their schedules: the four HS4s and the family scale are in range only from 06:30 to 08:30 and from
#     19:00 to 20:00 of the world's time (the fleet's `presence`), the rest all the time; a caller's sync of a device
#     out of range fails as it would at home.
#   - The world's time: the fleet's `pace` makes 48 simulated hours last the soak's length, and the script moves the
#     fleet's `start` to the simulated time now before it starts any process, so a restarted process goes on where
#     the soak is.
#   - Running all along, restarted when it ends or is killed: `serve` (issue 53), which syncs every device as it is
#     in range (again each 2 minutes of the world's time: --period 2), follows the bands and pushes to a private
#     PostgreSQL (Tests/postgres.sh) and a private mosquitto (its MQTT sink, Home Assistant's discovery included,
#     read by a session the broker keeps for mosquitto_sub); 8 connections, as the 4 bands hold 4 for as long as they are followed. Beside them, two caller apps (org.soak.a, org.soak.b) sync a random
#     history device with `open --deliver` (cmd=2), two at a time (org.soak.a is Ann's app: `whitelist add --person
#     Ann`; org.soak.b names no person, so it gets no weighing of the family scale), and now and then a ShareVitalSigns BP request
#     (`svs request` + `svs open`) and a Welltory DDS measurement of the heart-rate sensor (`open vitalbridge://dds/`).
#   - At random times (uniform over the first 90 %), SOAK_KILLS SIGKILLs of a random running hub process: an `open`
#     sync or the `serve` (half each, as far as one of the kind runs). Half the kills of an
#     `open` land at the hand-off: the next handler to keep a callback then SIGKILLs the hub (its parent) before the
#     hub can journal that delivery, the moment that makes an at-least-once hub deliver again.
#   - Then: everything stopped (SIGTERM), every device in range, every history device drained by each caller with
#     syncs until it holds nothing and no callback says `remaining` (the family scale: until it holds only the
#     visitor's records, which it sends to no one who did not consent as them), and a final `sink push`.
#
# Deliveries: `open --deliver --opener "handler.sh ID"` hands each callback to handler.sh, which writes the URL to a
# file of its own named by the invocation ID and exits 0; the hub journals the delivery only after that. A reading
# (a device, the time it gave and its values: the script's records have distinct times, but a ShareVitalSigns
# measurement of the first BP5 may fall in the second of one of them) is DELIVERED TWICE when it is in
# the callbacks of two invocations for the same caller, except when the earlier is EXPLAINED: that invocation was
# killed by the soak (so its journal commit may be missing: the hub delivers at least once) and the store's delivery
# journal has no commit of that reading for that caller from before the later delivery, i.e. the journal holds at
# most one commit per reading and caller. So an unexplained re-delivery is one whose earlier invocation ended by
# itself (its journal was committed) or a journal with two commits of a reading for a caller.
#
# A record is known by its device and the time the device gave: the hub corrects a session's times by the offset it
# read of the device's clock, in whole seconds, so it may store a reading up to 2 s off that time (issue 35), keeping
# the given one as its device_time. A callback carries the corrected time, matched to the store's reading of it; a
# PostgreSQL row its reading's id, and must have that reading's device and corrected time.
#
# Verdict (exit 0 only when all hold; else exit 1 naming what failed):
#   time           no reading stored more than 2 s off the time its device gave (no soak device's clock is off)
#   lost           every record a history device forgot (acknowledged) is in the store; after the drain, that is
#                  every record of the fleet; and each is in PostgreSQL after the final push; every change of the
#                  final feed (its id and version) reached the MQTT broker at least once. A band (after one last
#                  follow of an hour without kills): every hour of heart rate it recorded since the soak's start and
#                  no longer holds has minutes in the store (when it still holds items, they are its newest: its
#                  last 3 hours are then left out). Its sleep, sports and day totals are not checked one by one.
#   delivered      no reading delivered twice to a caller (above); every stored history reading reached both callers
#   duplicated     no two readings of the store for one device, time given, kind and measured values (their
#                  status, user or corrected time aside); PostgreSQL has one row per reading id and
#                  as many rows as the store has readings out of quarantine
#   wrong person   every weighing of Ann (user 1) or Bob (user 2) is stored under their user index and is theirs (the
#                  store's enrolments) and in PostgreSQL as theirs; an unknown user's are stored in quarantine (no one's,
#                  never pushed); none of the visitor's (user 3) is stored, and the scale still holds all of them; of
#                  the scale's weighings a caller got only Ann's, and only Ann's app (and every one of hers)
#   RSS            of each `serve` process (a restarted one starts a new series): VmRSS from
#                  /proc/PID/status every second; after a warm-up (the first 30 s of the process's life, or 20 % of
#                  the soak when that is shorter), every sample within ±5 % of the series' median. A sample taken
#                  once the process was signalled (a kill, or the soak's end) is left out: a process being torn down
#                  gives its memory back (one such sample read 172 KiB). Series with fewer than 10 samples after
#                  warm-up (a process killed soon after its start) are listed, not judged.
# It prints a summary table: devices, simulated time covered, real time, syncs, kills, readings stored, PostgreSQL
# rows, MQTT messages (and how many arrived more than once, as QoS 1 allows across a kill), deliveries, explained
# re-deliveries, and the RSS range of each series.
set -euo pipefail
cd "$(dirname "$0")/.."

short=0
for argument in "$@"; do
    case "$argument" in
    --short) short=1 ;;
    *)
        echo "usage: $0 [--short]" >&2
        exit 2
        ;;
    esac
done

if [ "$short" = 1 ]; then
    if [ ! -x .build/debug/vitalbridge ]; then swift build --product vitalbridge >/dev/null; fi
    tool="$PWD/.build/debug/vitalbridge"
    seconds=${SOAK_SECONDS:-150}
    kills=${SOAK_KILLS:-15}
else
    swift build -c release --product vitalbridge >/dev/null
    tool="$PWD/.build/release/vitalbridge"
    seconds=${SOAK_SECONDS:-1500}
    kills=${SOAK_KILLS:-100}
fi

work=$(mktemp -d)
chmod 755 "$work"
keep=${SOAK_KEEP:-}
broker=
cleanup() {
    bash Tests/postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    if [ -n "$broker" ]; then kill "$broker" 2>/dev/null || true; fi
    if [ -n "$keep" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
bash Tests/postgres.sh start "$work/pg" >/dev/null
# shellcheck disable=SC1091
source "$work/pg/cluster.env"
"$BIN/psql" -X -q -h "$SOCKET_DIR" -p "$PORT" -U "$SUPERUSER" -d postgres -c "CREATE DATABASE soak"

# the MQTT sink's broker: private, on a free port of the loopback, its sessions' queues unbounded; a session kept for
# the reader (mosquitto_sub) queues every change the sink publishes, read back after the final push
mqtt_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mosquitto_passwd -c -b "$work/mqtt.passwd" hub soak-secret
printf 'soak-secret' >"$work/mqtt.pw"
chmod 600 "$work/mqtt.pw"
cat >"$work/mosquitto.conf" <<CONF
listener $mqtt_port 127.0.0.1
allow_anonymous false
password_file $work/mqtt.passwd
persistence false
max_queued_messages 0
log_dest none
CONF
if [ "$(id -u)" = 0 ]; then echo "user root" >>"$work/mosquitto.conf"; fi
mosquitto -c "$work/mosquitto.conf" &
broker=$!
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$mqtt_port") 2>/dev/null && break
    sleep 0.05
done
reader="mosquitto_sub -h 127.0.0.1 -p $mqtt_port -u hub -P soak-secret -c -i soak-reader -q 1 -t vitalbridge/+/changes"
$reader -E

cat >"$work/handler.sh" <<'EOF'
#!/usr/bin/env bash
# a caller app's URL handler: keeps the callback, one file per hand-off, named by the invocation; when the soak
# asked for a kill at the hand-off (the file kill-at-handoff), it takes the request and SIGKILLs the hub, its parent
set -euo pipefail
dir=$(dirname "$0")
printf '%s\n' "$2" >"$dir/deliveries/$1.$$"
if mv "$dir/kill-at-handoff" "$dir/handoff-kills/$1" 2>/dev/null; then kill -KILL "$PPID"; fi
EOF
chmod 755 "$work/handler.sh"
mkdir "$work/deliveries" "$work/handoff-kills"

python3 - "$tool" "$work" "$seconds" "$kills" "$short" \
    "postgresql://$SUPERUSER@${SOCKET_DIR//\//%2F}:$PORT/soak" \
    "$BIN/psql -X -q -A -t -h $SOCKET_DIR -p $PORT -U $SUPERUSER -d soak" "mqtt://hub@127.0.0.1:$mqtt_port" \
    "$work/mqtt.pw" "$reader" <<'PY'
import calendar, glob, json, math, os, random, signal, sqlite3, statistics, subprocess, sys, threading, time
import urllib.parse

tool, work, seconds, kills, short, sink_url, psql, mqtt_url, mqtt_password, mqtt_reader = sys.argv[1:11]
seconds, kills, short = float(seconds), int(kills), short == "1"
home = work + "/home"
SEED = int(os.environ.get("SOAK_SEED", "38"))
random.seed(SEED)
T0 = calendar.timegm((2026, 11, 20, 0, 0, 0))
SPAN = 48 * 3600
pace = SPAN / seconds
run_dir = work + "/run"
os.makedirs(run_dir, mode=0o700)
env = dict(os.environ, XDG_RUNTIME_DIR=run_dir, VITALBRIDGE_LOG_LEVEL="notice")
env.pop("VITALBRIDGE_HOME", None)

def stamp(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))

# ---- the fleet: 20 devices, the records of each written here, so every one is known
bands = [("FitPro9614N", 700, "004D3208E010"), ("FitPro9614N", 700, "004D3208E011"),
         ("FitPulse9615N", 701, "004D3208E012"), ("SmarteeTraining9616N", 702, "004D3208E013")]
history = []  # (model, devicemodel, unit, mac, count)
for i in range(6): history.append(("BP5", 100, 2, "004D3208E1%02X" % i, 300))
for i in range(4): history.append(("HS4", 500, 4, "004D3208E2%02X" % i, 300))
for i in range(4): history.append(("BG5", 400, 1, "004D3208E3%02X" % i, 60))
history.append(("PO3", 300, 0, "004D3208E400", 40))
sensor = "004D3208E500"
scale = "004D3208E600"
# the family scale's users: index -> (consent code, the person of the home it is, or None)
scale_users = {1: (1111, "Ann"), 2: (2222, "Bob"), 3: (3333, None), 255: (None, None)}
scale_records = {}  # measured epoch -> user index
# the HS4s and the family scale: in range each morning and evening of the world, the rest all the time
schedule = [{"at": "06:30", "seconds": 7200}, {"at": "19:00", "seconds": 3600}]
records = {}  # mac -> {measured epoch}
devices = []
for number, (model, _, _, mac, count) in enumerate(history):
    rng = random.Random(number)
    step = (SPAN + 86400) // count
    listed, times = [], set()
    for k in range(count):
        t = T0 - 86400 + k * step + rng.randrange(0, 60)
        times.add(t)
        r = {"measuredAt": stamp(t)}
        if model == "BP5":
            s = rng.randrange(105, 150)
            r.update(systolic=s, diastolic=s - rng.randrange(30, 45), pulse=rng.randrange(55, 95))
        elif model == "HS4":
            r["weight"] = round(rng.randrange(12000, 18000) * 0.005, 3)
        elif model == "BG5":
            r["glucose"] = rng.randrange(70, 180)
        else:
            r.update(spo2=rng.randrange(92, 100), pulse=rng.randrange(55, 95), pi=rng.randrange(10, 90) / 10)
        listed.append(r)
    records[mac] = times
    devices.append({"model": model, "mac": mac, "records": {"list": listed}, "failures": {"linkDrops": 0.01}}
                   | ({"scheduled": True} if model == "HS4" else {}))
for model, _, mac in bands:
    devices.append({"model": model, "mac": mac, "recordingSince": stamp(T0), "failures": {"linkDrops": 0.01}})
devices.append({"model": "HRS", "mac": sensor, "failures": {"linkDrops": 0.01}})
rng = random.Random(54)
listed = []
for k in range(120):
    t = T0 - 86400 + k * ((SPAN + 86400) // 120) + rng.randrange(0, 60)
    user = [1, 2, 3, 255][k % 4]
    scale_records[t] = user
    listed.append({"measuredAt": stamp(t), "weight": round(rng.randrange(10000, 19000) * 0.005, 3), "user": user})
devices.append({"model": "WSS", "mac": scale, "records": {"list": listed}, "scheduled": True,
                "failures": {"linkDrops": 0.01},
                "userData": {"slots": 4, "users": [{"index": index, "consent": consent}
                                                   for index, (consent, _) in scale_users.items() if consent]}})
assert len(devices) == 21
fleet_lock = threading.Lock()
scheduled = [device for device in devices if device.pop("scheduled", False)]

def schedules(on):
    """The scheduled devices on their schedules (on), or in range all the time (for the set-up and the drain)."""
    with fleet_lock:
        for device in scheduled:
            if on: device["presence"] = schedule
            else: device.pop("presence", None)
fleet = {"pace": pace, "user": {"chooseDevice": history[0][3]}, "devices": devices}

started = None
def sim_now():
    return T0 if started is None else T0 + int((time.monotonic() - started) * pace)

def write_fleet():
    """The fleet with `start` at the simulated time now, renamed into place (a process reads it once)."""
    with fleet_lock:
        fleet["start"] = stamp(sim_now())
        path = home + "/.fleet.soak.tmp"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, json.dumps(fleet).encode())
        os.close(fd)
        os.rename(path, home + "/fleet.json")

def run(args, **kw):
    write_fleet()
    return subprocess.run([tool] + args, env=env, capture_output=True, text=True, **kw)

os.mkdir(home, 0o700)
write_fleet()
for step in (["init", "--home", home],
             ["people", "add", "--home", home, "Ann"],
             ["people", "add", "--home", home, "Bob"],
             ["whitelist", "add", "--home", home, "org.soak.a", "soaka://", "--person", "Ann"],
             ["whitelist", "add", "--home", home, "org.soak.b", "soakb://"],
             ["dds", "sources", "add", "--home", home, "SoakDDS", "https://dds.example.org/soak/"],
             ["sink", "add", "--home", home, "lab", sink_url],
             ["sink", "add", "--home", home, "ha", mqtt_url, "--password-file", mqtt_password]):
    out = run(step)
    if out.returncode != 0: sys.exit(f"setup {step[:2]} failed: {out.stderr}")
for model, number, mac in bands + [("HRS", 905, sensor), ("WSS", 902, scale)]:
    out = run(["open", "--home", home, "--scan-qr", mac,
               f"ihealth-layer://?cmd=1&addtype=1&devicemodel={number}&scheme=soaka&appid=org.soak.a"])
    if "status=0" not in out.stdout: sys.exit(f"adding {mac} failed: {out.stdout} {out.stderr}")
# Ann and Bob enrolled as users 1 and 2 of the family scale (it is in range: the world has not started its days yet)
swapped = os.environ.get("SOAK_INJECT") == "wrong-person"
for index, (consent, person) in scale_users.items():
    if person is None: continue
    if swapped: person = {"Ann": "Bob", "Bob": "Ann"}[person]
    out = run(["people", "enroll", "--home", home, person, "--mac", scale, "--user-index", str(index),
               "--consent", str(consent)])
    if out.returncode != 0: sys.exit(f"enrolling {person} failed: {out.stdout} {out.stderr}")

schedules(True)

# ---- the run
log = open(work + "/soak.log", "w")
lock = threading.Lock()
invocations = {}   # id -> dict(kind, args, pid, killed, rc)
live = {}          # pid -> (kind, Popen, id)
kill_log = []      # (real seconds, kind, pid, invocation)
rss = {}           # pid -> [kind, start monotonic, [(t, kib)]]: t is taken after the sample is read
signalled = {}     # pid -> monotonic time, taken before the process is sent SIGKILL or SIGTERM
stats = {"syncs": 0, "svs": 0, "dds": 0, "restarts": 0}
stopping = threading.Event()
next_id = [0]

def spawn(kind, args, stdin=None):
    with lock:
        next_id[0] += 1
        ident = next_id[0]
    if kind == "open":
        args = args[:1] + ["--home", home, "--deliver", "--opener", f"{work}/handler.sh {ident}"] + args[1:]
    write_fleet()
    process = subprocess.Popen([tool] + args, env=env, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with lock:
        invocations[ident] = {"kind": kind, "args": args, "pid": process.pid, "killed": False, "rc": None}
        live[process.pid] = (kind, process, ident)
        signalled.pop(process.pid, None)  # a number used again is a new process
        if kind in ("band", "sink", "serve") and not stopping.is_set():
            rss[process.pid] = [kind + (" " + args[args.index("--mac") + 1] if kind == "band" else ""),
                                time.monotonic(), []]
    return ident, process

def finish(ident, process, stdin=None):
    out, err = process.communicate(stdin)
    with lock:
        invocations[ident]["rc"] = process.returncode
        invocations[ident]["stdout"] = out
        live.pop(process.pid, None)
        if os.path.exists(f"{work}/handoff-kills/{ident}"):
            invocations[ident]["killed"] = True
            kill_log.append((time.monotonic() - started, "open at hand-off", process.pid, ident))
    if process.returncode not in (0, -9) and invocations[ident]["kind"] not in ("band", "sink", "serve"):
        log.write(f"{invocations[ident]['kind']} {ident} exit {process.returncode}: {err.strip()[:300]}\n")
    return out, err

def keep_running(kind, args):
    while not stopping.is_set():
        ident, process = spawn(kind, args)
        out, err = finish(ident, process)
        if not stopping.is_set():
            log.write(f"{kind} {args[-1]} ended ({process.returncode}): {err.strip()[-300:]}\n")
            with lock: stats["restarts"] += 1
            time.sleep(0.2)

def sync_request(model, number, unit, mac, caller):
    return (f"ihealth-layer://?cmd=2&devicemodel={number}&mac={mac}&unit={unit}&ver=100"
            f"&scheme=soak{caller}&appid=org.soak.{caller}")

def syncer():
    rng = random.Random(SEED * 1000 + threading.get_ident())
    while not stopping.is_set():
        model, number, unit, mac, _ = rng.choice(history)
        ident, process = spawn("open", ["open", sync_request(model, number, unit, mac, rng.choice("ab"))])
        finish(ident, process)
        with lock: stats["syncs"] += 1

def requests():
    rng = random.Random(SEED + 7)
    while not stopping.is_set():
        time.sleep(rng.uniform(1, 4))
        if rng.random() < 0.5:
            out = run(["svs", "request", "--home", home, "--sign", "BP", "--requester", "org.soak.a"])
            if out.returncode == 0:
                ident, process = spawn("svs", ["svs", "open", "--home", home, "-"], stdin=True)
                finish(ident, process, out.stdout)
                with lock: stats["svs"] += 1
        else:
            link = ("vitalbridge://dds/measurement?source=SoakDDS&callback="
                    + urllib.parse.quote("https://dds.example.org/soak/", safe="") + "&duration=120")
            ident, process = spawn("dds", ["open", "--home", home, link])
            finish(ident, process)
            with lock: stats["dds"] += 1

def sampler():
    while not stopping.is_set():
        with lock: pids = [pid for pid in rss if pid in live]
        for pid in pids:
            try:
                with open(f"/proc/{pid}/status") as status:
                    kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
                rss[pid][2].append((time.monotonic(), kib))
            except (OSError, StopIteration):
                pass
        time.sleep(1)

def killer():
    rng = random.Random(SEED + 99)
    moments = sorted(rng.uniform(0.03, 0.9) * seconds for _ in range(kills))
    for moment in moments:
        while time.monotonic() - started < moment:
            if stopping.wait(0.05): return
        for _ in range(200):
            kind = rng.choice(["open", "serve"])
            with lock: candidates = [(pid, entry) for pid, entry in live.items() if entry[0] == kind]
            if candidates: break
            time.sleep(0.01)
        else:
            continue
        if kind == "open" and not os.path.exists(f"{work}/kill-at-handoff") and rng.random() < 0.5:
            # the next hand-off's handler kills its hub (finish() logs the kill)
            with open(f"{work}/kill-at-handoff", "w"): pass
            continue
        pid, (kind, process, ident) = rng.choice(candidates)
        with lock: signalled[pid] = time.monotonic()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        with lock:
            invocations[ident]["killed"] = True
            kill_log.append((time.monotonic() - started, kind, pid, ident))

started = time.monotonic()
threads = [threading.Thread(
    target=keep_running,
    args=("serve", ["serve", "--home", home, "--period", "2", "--connections", "8"]))]
threads += [threading.Thread(target=syncer) for _ in range(2)]
threads += [threading.Thread(target=requests), threading.Thread(target=sampler)]
killing = threading.Thread(target=killer)
for thread in threads + [killing]: thread.start()
killing.join(timeout=seconds)
time.sleep(max(0, seconds - (time.monotonic() - started)))
covered = sim_now() - T0
stopping.set()
with lock: running = list(live.items())
for pid, (kind, process, ident) in running:
    if kind in ("band", "sink", "serve"):
        with lock: signalled[pid] = time.monotonic()
        process.send_signal(signal.SIGTERM)
for thread in threads + [killing]: thread.join()
if os.path.exists(f"{work}/kill-at-handoff"): os.remove(f"{work}/kill-at-handoff")  # not taken: the drain runs unkilled
real = time.monotonic() - started
print(f"soak ran {real:.0f} s; draining", flush=True)

# ---- the drain: every device in range; each caller syncs each history device until it holds nothing and nothing
# remains for it, and the family scale until it holds only the visitor's records
schedules(False)
def device_holds(mac):
    path = f"{home}/world/{mac}.json"
    if not os.path.exists(path): return None
    with open(path) as f: return json.loads(f.readline())["recordCount"]

for model, number, unit, mac, count in history:
    for caller in "ab":
        for attempt in range(200):
            ident, process = spawn("open", ["open", sync_request(model, number, unit, mac, caller)])
            finish(ident, process)
            with lock: stats["syncs"] += 1
            urls = [open(path).read() for path in glob.glob(f"{work}/deliveries/{ident}.*")]
            done = any("status=0" in url and "remaining=" not in url for url in urls)
            if done and device_holds(mac) == 0: break
        else:
            print(f"error: {mac} still holds {device_holds(mac)} records for {caller} after 200 syncs")
visitors = sum(1 for user in scale_records.values() if user == 3)
for caller in "ab":
    for attempt in range(50):
        ident, process = spawn("open", ["open", sync_request("WSS", 902, 4, scale, caller)])
        finish(ident, process)
        with lock: stats["syncs"] += 1
        urls = [open(path).read() for path in glob.glob(f"{work}/deliveries/{ident}.*")]
        if any("status=0" in url and "remaining=" not in url for url in urls) and device_holds(scale) == visitors:
            break
    else:
        print(f"error: the family scale still holds {device_holds(scale)} records after 50 syncs by {caller}")
# each band: one more follow without kills, one simulated hour past the soak, so that it hands over what it holds
for _, _, mac in bands:
    ident, process = spawn("band", ["band", "follow", "--home", home, "--mac", mac, "--hours", "1"])
    out, err = finish(ident, process)
    if process.returncode != 0: print(f"error: the last follow of {mac} failed: {err.strip()[-300:]}")
out = run(["sink", "push", "--home", home])
final_push = out.returncode
if final_push != 0: print(f"error: the final sink push failed: {out.stdout} {out.stderr}")

# SOAK_INJECT=redelivery checks the check: one callback handed over again by an invocation that was not killed
if os.environ.get("SOAK_INJECT") == "redelivery":
    first = next(path for path in sorted(glob.glob(f"{work}/deliveries/*"), key=os.path.getmtime)
                 if "status=0" in open(path).read() and "result=" in open(path).read())
    next_id[0] += 1
    invocations[next_id[0]] = {"kind": "open", "args": [], "pid": 0, "killed": False, "rc": 0}
    with open(f"{work}/deliveries/{next_id[0]}.0", "w") as copy: copy.write(open(first).read())

# ---- the verdict
failures = []
store = sqlite3.connect(f"file:{home}/vitalbridge.sqlite?mode=ro", uri=True)
integrity = store.execute("PRAGMA integrity_check").fetchone()[0]
if integrity != "ok": failures.append(f"store: integrity_check says {integrity}")
def normal(mac): return mac.replace(":", "").upper()
# A reading's true time: the hub corrects each session's times by the offset it read of the device's clock, in whole
# seconds, so a reading may be stored up to 2 s off the time the device gave (issue 35), which it keeps as device_time.
# No device of the soak has a clock off: the time it gave is the script's, and a correction of more than 2 s is wrong.
# A reading is its device, kind, true time and measured values: a ShareVitalSigns measurement of a BP5 may fall in the
# second of one of its scripted records, and is then another reading of that second, not a duplicate; what the device
# says of a value (status, unavailable, user) or the second the hub corrected it to does not make a second reading.
stored, duplicates, true_time, by_id = {}, {}, {}, {}
columns = [row[1] for row in store.execute("PRAGMA table_info(reading)") if row[1] not in
           ("id", "revision", "device_mac", "measured_at", "status", "unavailable", "user_index", "device_time",
            "deleted_at")]
retimed = []
for row in store.execute(f"SELECT device_mac, measured_at, device_time, id, {', '.join(columns)} FROM reading"):
    mac, measured, given, ident = normal(row[0]), row[1], row[2], row[3]
    t = measured if given is None else given
    if abs(measured - t) > 2: retimed.append((mac, stamp(t), stamp(measured)))
    stored.setdefault((mac, t), []).append(ident)
    duplicates.setdefault((mac, t) + tuple(row[4:]), []).append(ident)
    true_time.setdefault((mac, measured), set()).add(t)
    by_id[ident] = (mac, t, measured)
def truth(mac, measured):
    """The true time of the stored reading of `mac` the hub dated `measured` (as it is when none or two are)."""
    times = true_time.get((mac, measured), set())
    return next(iter(times)) if len(times) == 1 else measured
if retimed:
    failures.append(f"time: {len(retimed)} readings stored more than 2 s off the time their device gave, e.g. "
                    f"{retimed[:3]}")
reading_count = store.execute("SELECT count(*) FROM reading").fetchone()[0]
missing = [(mac, t) for mac, times in records.items() for t in times if (mac, t) not in stored]
if missing:
    failures.append(f"lost: {len(missing)} acknowledged records are not in the store, e.g. {missing[:3]}")
held = {mac: device_holds(mac) for mac in records}
if any(held.values()):
    failures.append(f"lost: devices still hold records after the drain: {held}")
# a band's heart rate: every hour it recorded and was acknowledged has minutes in the store (an hour misses about
# one minute in thirty, never all); what it still holds is its newest items, so the last 3 hours it recorded are
# left out when it still holds any
band_hours = {}
for _, _, mac in bands:
    with open(f"{home}/world/{mac}.json") as f: band = json.loads(f.readline())["band"]
    through = calendar.timegm(time.strptime(band["recordedThrough"], "%Y-%m-%d %H:%M:%S"))
    last = through - (3 * 3600 if band["itemCount"] else 0)
    out = run(["records", "--home", home, "--heart-rate-minutes", "--device", mac, "--format", "csv"])
    hours = set()
    for line in out.stdout.splitlines()[1:]:
        minute = calendar.timegm(time.strptime(line.split(",")[2], "%Y-%m-%d %H:%M:%S"))
        hours.add(minute - minute % 3600)
    expected = range(T0, last - last % 3600, 3600)
    lacking = [stamp(h) for h in expected if h not in hours]
    band_hours[mac] = (len(expected), band["itemCount"], stamp(through))
    if lacking:
        failures.append(f"lost: band {mac} acknowledged {len(lacking)} hours of heart rate the store lacks, e.g. "
                        f"{lacking[:3]}")
# the family scale: whose each weighing is, by the User Data Service's user index and the home's enrolments
people = dict(store.execute("SELECT id, name FROM person"))
spans = [(index, people[person], since, until) for mac, index, person, since, until in
         store.execute("SELECT device_mac, user_index, person_id, since, until FROM assignment")
         if normal(mac) == scale]
def whose(index, t):
    return next((name for i, name, since, until in spans
                 if i == index and (since is None or since <= t) and (until is None or t < until)), None)
wrong, quarantined = [], 0
scale_stored = [(by_id[ident][1], index, by_id[ident][2])
                for ident, index in store.execute("SELECT id, user_index FROM reading") if by_id[ident][0] == scale]
for t, index, measured in scale_stored:
    user = scale_records.get(t)
    person = whose(index, measured)
    quarantined += person is None
    if user is None or user == 3 or index != user or person != scale_users[user][1]:
        wrong.append((stamp(t), f"user {user} stored as index {index}, {person or 'no one'}'s"))
stored_times = {t for t, _, _ in scale_stored}
scale_missing = [stamp(t) for t, user in scale_records.items() if user != 3 and t not in stored_times]
if scale_missing:
    failures.append(f"lost: {len(scale_missing)} weighings of the family scale are not in the store, e.g. "
                    f"{scale_missing[:3]}")
if device_holds(scale) != visitors:
    failures.append(f"lost or wrong person: the family scale holds {device_holds(scale)} records after the drain, "
                    f"not the visitor's {visitors}")
doubles = {key[:2]: ids for key, ids in duplicates.items() if len(ids) > 1}
if doubles:
    failures.append(f"duplicated: {len(doubles)} readings stored more than once, e.g. {list(doubles.items())[:3]}")

def pg(query):
    return subprocess.run(psql.split() + ["-c", query], capture_output=True, text=True, check=True).stdout.strip()
pg_rows = int(pg("SELECT count(*) FROM vitalbridge.readings"))
pg_ids = int(pg("SELECT count(DISTINCT reading_id) FROM vitalbridge.readings"))
if pg_rows != pg_ids: failures.append(f"duplicated: PostgreSQL has {pg_rows} rows for {pg_ids} reading ids")
if pg_rows != reading_count - quarantined:
    failures.append(f"duplicated or lost: PostgreSQL has {pg_rows} rows, the store {reading_count} readings "
                    f"({quarantined} in quarantine)")
# each row is the store's reading of its id, as the store has it: its device and corrected time
pg_scale, pg_times, pg_astray = 0, set(), []
for line in pg("SELECT reading_id, device_mac, extract(epoch FROM measured_at)::bigint, coalesce(person, '') "
               "FROM vitalbridge.readings").splitlines():
    ident, row_mac, epoch, person = line.split("|")
    mac, t, measured = by_id.get(int(ident), (None, None, None))
    if (mac, measured) != (normal(row_mac), int(epoch)):
        pg_astray.append((ident, row_mac, stamp(int(epoch))))
        continue
    pg_times.add((mac, t))
    if mac != scale: continue
    pg_scale += 1
    user = scale_records.get(t)
    if user not in (1, 2) or person != scale_users[user][1]:
        wrong.append((stamp(t), f"user {user} in PostgreSQL as {person or 'no one'}'s"))
if pg_scale != sum(1 for user in scale_records.values() if user in (1, 2)):
    failures.append(f"lost or duplicated: PostgreSQL has {pg_scale} weighings of the family scale, not Ann's and "
                    f"Bob's {sum(1 for user in scale_records.values() if user in (1, 2))}")
if pg_astray:
    failures.append(f"wrong: {len(pg_astray)} PostgreSQL rows are not the store's reading of their id (device and "
                    f"time), e.g. {pg_astray[:3]}")
pg_missing = [(mac, t) for mac, times in records.items() for t in times if (mac, t) not in pg_times]
if pg_missing: failures.append(f"lost: {len(pg_missing)} records are not in PostgreSQL, e.g. {pg_missing[:3]}")

# MQTT: every change of the final feed reached the broker at least once (what its reader's session was sent)
mqtt_lines = subprocess.run(mqtt_reader.split() + ["-W", "10"], capture_output=True, text=True).stdout.splitlines()
mqtt_got = [(change["id"], change["version"]) for change in map(json.loads, mqtt_lines)]
feed_changes = {(change["id"], change["version"])
                for change in map(json.loads, run(["changes", "--home", home]).stdout.splitlines())}
mqtt_missing = sorted(feed_changes - set(mqtt_got))
if mqtt_missing:
    failures.append(f"lost: {len(mqtt_missing)} changes never reached MQTT, e.g. {mqtt_missing[:3]}")

# deliveries: (caller, mac, the time the device gave, values) -> [invocation ids, in hand-off order]
handed = {}
delivery_files = sorted(glob.glob(f"{work}/deliveries/*"), key=os.path.getmtime)
for path in delivery_files:
    ident = int(os.path.basename(path).split(".")[0])
    url = open(path).read().strip()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    caller = url.split(":", 1)[0]
    mac = query.get("mac", [""])[0].replace(":", "").upper()
    for reading in json.loads(query.get("result", ["[]"])[0]) if "result" in query else []:
        if "measured_at" not in reading: continue
        t = truth(mac, calendar.timegm(time.strptime(reading["measured_at"], "%Y-%m-%d %H:%M:%S")))
        values = json.dumps({k: v for k, v in reading.items() if k != "measured_at"}, sort_keys=True)
        handed.setdefault((caller, mac, t, values), []).append(ident)
journal = {}
for caller, reading_id in store.execute("SELECT caller, reading_id FROM delivery_reading"):
    journal[(caller, reading_id)] = journal.get((caller, reading_id), 0) + 1
twice, explained = [], 0
for (caller, mac, t, _), idents in handed.items():
    for earlier in idents[:-1]:
        if invocations[earlier]["killed"]:
            explained += 1
        else:
            twice.append((caller, mac, stamp(t), idents))
callers = {"soaka": "org.soak.a", "soakb": "org.soak.b"}
for (caller, reading_id), count in journal.items():
    if count > 1: twice.append((caller, "journal", reading_id, count))
reached = {key[:3] for key in handed}
undelivered = [(scheme, mac, t) for mac, times in records.items() for t in times for scheme in callers
               if (scheme, mac, t) not in reached]
# the family scale's weighings: Ann's to Ann's app, every one; nothing else of the scale to any caller
scale_handed = {(caller, t) for caller, mac, t, _ in handed if mac == scale}
for caller, t in scale_handed:
    if caller != "soaka" or scale_records.get(t) != 1:
        wrong.append((stamp(t), f"user {scale_records.get(t)}'s weighing delivered to {caller}"))
ann_missing = [stamp(t) for t, user in scale_records.items() if user == 1 and ("soaka", t) not in scale_handed]
if ann_missing:
    failures.append(f"delivered: {len(ann_missing)} of Ann's weighings never reached her app, e.g. {ann_missing[:3]}")
if twice: failures.append(f"delivered twice: {len(twice)} unexplained, e.g. {twice[:3]}")
if wrong: failures.append(f"wrong person: {len(wrong)} weighings of the family scale, e.g. {wrong[:3]}")
if undelivered: failures.append(f"delivered: {len(undelivered)} stored readings never reached their caller, e.g. {undelivered[:3]}")

# RSS series
rows = []
warm_up = min(30, 0.2 * seconds)
for pid, (name, begun, samples) in sorted(rss.items(), key=lambda item: item[1][1]):
    after = [kib for t, kib in samples if begun + warm_up <= t < signalled.get(pid, math.inf)]
    if len(after) < 10:
        rows.append((name, pid, len(samples), "-", "-", "not judged (short series)"))
        continue
    median = statistics.median(after)
    low, high = min(after), max(after)
    flat = low >= 0.95 * median and high <= 1.05 * median
    rows.append((name, pid, len(samples), f"{low / 1024:.1f}", f"{high / 1024:.1f}",
                 f"{(low / median - 1) * 100:+.1f} % / {(high / median - 1) * 100:+.1f} % of median"
                 + ("" if flat else "  NOT FLAT")))
    if not flat: failures.append(f"RSS: {name} (pid {pid}) ranged {low}–{high} KiB around {median:.0f} KiB")

reasons = {}
for path in delivery_files:
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(open(path).read().strip()).query)
    if query.get("status", ["0"])[0] != "0":
        reason = query.get("reason", ["?"])[0]
        reasons[reason] = reasons.get(reason, 0) + 1
band_drops = sum((entry.get("stdout") or "").count("the link dropped")
                 for entry in invocations.values() if entry["kind"] in ("band", "serve"))
kinds = {}
for _, kind, _, _ in kill_log: kinds[kind] = kinds.get(kind, 0) + 1
deliveries = len(delivery_files)
print()
print(f"{'devices':32} {len(devices)} (4 bands, 6 BP5, 4 HS4, 4 BG5, 1 PO3, 1 HRS, 1 family scale), linkDrops 0.01 "
      "each; the HS4s and the scale on schedules")
print(f"{'simulated time covered':32} {covered / 3600:.1f} h ({stamp(T0)} to {stamp(T0 + covered)}), pace {pace:.0f}")
print(f"{'real time':32} {real:.0f} s of soak ({'debug' if short else 'release'} build, {tool})")
print(f"{'syncs (open cmd=2)':32} {stats['syncs']} (drain included); SVS {stats['svs']}, DDS {stats['dds']}")
print(f"{'link drops seen':32} band links {band_drops}; failed callbacks "
      + (", ".join(f"{r} {n}" for r, n in sorted(reasons.items())) or "none"))
print(f"{'kills (SIGKILL)':32} {len(kill_log)}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
      + f"; serve restarts {stats['restarts']}")
print(f"{'history records (fleet)':32} {sum(len(t) for t in records.values())}; missing from store {len(missing)}")
print(f"{'band hours checked':32} " + "; ".join(f"{mac[-4:]} {n} h to {through}, {held} held"
                                              for mac, (n, held, through) in band_hours.items()))
print(f"{'readings stored':32} {reading_count} ({quarantined} in quarantine)")
print(f"{'family scale':32} {len(scale_stored)} weighings stored (Ann's, Bob's and an unknown user's), "
      f"{pg_scale} in PostgreSQL, {device_holds(scale)} of the visitor's left on it; under a wrong person: {len(wrong)}")
print(f"{'PostgreSQL rows':32} {pg_rows} ({pg_ids} reading ids); final push exit {final_push}")
print(f"{'MQTT changes received':32} {len(mqtt_got)} ({len(mqtt_got) - len(set(mqtt_got))} more than once); "
      f"the feed's {len(feed_changes)} all there: {not mqtt_missing}")
print(f"{'callbacks delivered':32} {deliveries} ({sum(len(v) for v in handed.values())} readings)")
print(f"{'re-deliveries explained':32} {explained} (earlier invocation killed); unexplained {len(twice)}")
print()
print(f"{'RSS series':22} {'pid':>8} {'samples':>8} {'min MiB':>8} {'max MiB':>8}  after warm-up")
for name, pid, count, low, high, note in rows:
    print(f"{name:22} {pid:>8} {count:>8} {low:>8} {high:>8}  {note}")
with open(work + "/rss.log", "w") as f:
    for pid, (name, begun, samples) in rss.items():
        f.write(f"{name} {pid} " + " ".join(f"{t - started:.0f}:{kib}" for t, kib in samples) + "\n")
with open(work + "/kills.log", "w") as f:
    for entry in kill_log: f.write("%.2f %s %d %d\n" % entry)
log.close()
print()
if failures:
    for failure in failures: print("FAILED " + failure)
    print(f"(logs: {work}/soak.log, kills.log, rss.log and deliveries/; SOAK_KEEP=1 keeps them)")
    sys.exit(1)
print("ok: 0 lost, 0 delivered twice, 0 duplicated, 0 under a wrong person, every change on MQTT, RSS flat")
PY
