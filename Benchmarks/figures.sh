#!/usr/bin/env bash
# Measures every figure of the table in Benchmarks/README.md and writes the table there, between its "figures"
# markers, each row with its goal (met or not), the command that produced it and the date:
#   - micro: the micro-benchmarks (ordo-one, wall clock), and beside each the instructions callgrind counts for one
#     iteration of the same work (Sources/instructions), against URLComponents;
#   - open, lean, tricks: open-latency.sh, lean-binary.sh, speed-tricks.sh and json-readers.sh, whole process,
#     against Foundation hello-worlds;
#   - scale: scale.sh, syncs of 4,000 to 65,000 records per family;
#   - history: history.sh, every command on homes of 5,000, 100,000 and 1,000,000 readings against an empty home,
#     and SQLite's own bulk insert of the same rows (python3's sqlite3 module, one transaction);
#   - sink: sink-push.sh, `sink push` of the same homes (history.sh's, reused) to a private PostgreSQL, and psql's
#     COPY of the same rows;
#   - push-cpu: push-cpu.sh, a push sync's CPU and fsync wait a record against the disk's fsync floor;
#   - fuzz: the last long fuzz runs, read from Fuzz/long-run.md whatever the parts (`bash Fuzz/fuzz.sh long` takes
#     about two hours; run it first); `figures.sh fuzz` measures nothing and rewrites only that row.
# About 12 minutes here once built (history and sink about 7 of them). Needs hyperfine, GNU time, valgrind and
# PostgreSQL (apt-get install hyperfine time valgrind postgresql). From the repository root:
#   bash Benchmarks/figures.sh                  # every part
#   bash Benchmarks/figures.sh history sink     # only these parts; the other rows stay as they are, with their date
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
all=(micro open lean tricks scale history sink push-cpu fuzz)
parts=("${@:-${all[@]}}")
for part in "${parts[@]}"; do
    [[ " ${all[*]} " == *" $part "* ]] || { echo "figures.sh: no part $part (${all[*]})" >&2; exit 2; }
done
wanted() { [[ " ${parts[*]} " == *" $1 "* ]]; }

if wanted micro; then
    echo "== micro-benchmarks, wall clock" >&2
    # each filter must match a benchmark's whole name
    micro=(
        'URLComponents.*' 'LayeredRequest.*' 'Decode a .*' '.*through the RACP driver .*\(radio timing off\)'
        'Sync 10,000 glucose records from the simulated BG5 into a store file.*' 'Store 10,000 readings.*'
    )
    (cd Benchmarks && swift package --disable-sandbox benchmark "${micro[@]/#/--filter=}" --format markdown \
        --path stdout --no-progress) >"$work/micro.md" 2>"$work/micro.log" || { cat "$work/micro.log" >&2; exit 1; }

    echo "== micro-benchmarks, instructions" >&2
    (cd Benchmarks && swift build -c release --product instructions >/dev/null)
    # one iteration's instructions: the difference of two runs over the difference of their counts
    for name in url-components layered-request decode-blood-pressure decode-glucose; do
        few=$(instructions Benchmarks/.build/release/instructions "$name" 1000)
        many=$(instructions Benchmarks/.build/release/instructions "$name" 3000)
        echo "$name $(((many - few) / 2000))"
    done >"$work/instructions.txt"
fi
if wanted open; then
    echo "== open-latency.sh" >&2
    bash Benchmarks/open-latency.sh >"$work/open.txt"
fi
if wanted lean; then
    echo "== lean-binary.sh" >&2
    bash Benchmarks/lean-binary.sh >"$work/lean.txt"
fi
if wanted tricks; then
    echo "== speed-tricks.sh, json-readers.sh" >&2
    bash Benchmarks/speed-tricks.sh >"$work/tricks.txt"
    bash Benchmarks/json-readers.sh >"$work/json.txt"
fi
if wanted scale; then
    echo "== scale.sh" >&2
    bash Benchmarks/scale.sh >"$work/scale.txt"
fi
# the homes of 5,000, 100,000 and 1,000,000 readings, made once for history.sh and sink-push.sh
if wanted history; then
    echo "== history.sh" >&2
    bash Benchmarks/history.sh "$work/homes" >"$work/history.txt"
fi
if wanted sink; then
    echo "== sink-push.sh" >&2
    bash Benchmarks/sink-push.sh "$work/homes" >"$work/sink.txt"
fi
if wanted push-cpu; then
    echo "== push-cpu.sh" >&2
    bash Benchmarks/push-cpu.sh --instructions >"$work/push-cpu.txt"
fi

python3 - "$work" "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)" "${parts[@]}" <<'PY'
import re, sys, textwrap
work, date, commit, *parts = sys.argv[1:]

# the table's sections, in their order; a part not run keeps its rows from the table as it is
order = ["micro", "open", "lean", "tricks", "scale", "history", "sink", "push-cpu", "fuzz"]
sections = {}

def text(name):
    return open(f"{work}/{name}").read().splitlines()

def line(lines, start):
    [found] = [line for line in lines if line.startswith(start)]
    return found

def number(text, pattern):
    return float(re.search(pattern, text).group(1))

def goal(target, met):
    return f"{target}: {'met' if met else '**not met**'}"

bench = "`swift package --disable-sandbox benchmark --target {}` (in `Benchmarks/`)"
def counted(*works):
    return ", ".join(f"`instructions {work} N`" for work in works) + " under callgrind (`Benchmarks/callgrind.sh`)"

if "micro" in parts:
    # the ordo-one markdown: "### <benchmark>", then rows "| <metric> | p0 | p25 | p50 | ... |"
    micro, benchmark = {}, None
    for row in open(f"{work}/micro.md"):
        if row.startswith("### "):
            benchmark = row[4:].strip()
            micro[benchmark] = {}
        elif benchmark and row.startswith("| ") and not row.startswith("| Metric"):
            cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
            micro[benchmark][cells[0]] = {"p0": int(cells[1]), "p50": int(cells[3])}

    # the unit in a metric's last parentheses: a time unit, or the scale of a count
    scales = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "K": 1e3, "M": 1e6, "G": 1e9}

    def metric(benchmark_start, metric_start):
        """(p0, p50) of the one benchmark and metric named so, in nanoseconds for a time and units for a count."""
        [name] = [name for name in micro if name.startswith(benchmark_start)]
        [(label, values)] = [(label, values) for label, values in micro[name].items() if label.startswith(metric_start)]
        units = re.findall(r"\(([^)]*)\)", label)
        scale = scales[units[-1]] if units and units[-1] in scales else 1
        return values["p0"] * scale, values["p50"] * scale

    instructions = dict(row.split() for row in open(f"{work}/instructions.txt"))
    instructions = {name: int(count) for name, count in instructions.items()}
    rows = sections["micro"] = []
    request = metric("LayeredRequest: parse", "Time")
    components = metric("URLComponents", "Time")
    rows.append((
        "Request parsing against `URLComponents` (the measurement URL)",
        f"p50 {request[1]:,.0f} vs {components[1]:,.0f} ns: {request[1] / components[1]:.2f}×; "
        f"p0 {request[0]:,.0f} vs {components[0]:,.0f} ns: {request[0] / components[0]:.2f}×",
        f"{instructions['layered-request']:,} vs {instructions['url-components']:,} a parse: "
        f"{instructions['layered-request'] / instructions['url-components']:.2f}×",
        goal("instructions ≤ 1× URLComponents'", instructions["layered-request"] <= instructions["url-components"]),
        bench.format("LayeredProtocolBenchmarks") + "; " + counted("layered-request", "url-components"),
    ))
    pressure = metric("Decode a Blood Pressure", "Throughput")
    glucose = metric("Decode a Glucose", "Throughput")
    rows.append((
        "GATT decodes per second (Blood Pressure 19 bytes, Glucose 17 bytes, every field)",
        f"p50 {pressure[1]:,.0f} and {glucose[1]:,.0f} a second",
        f"{instructions['decode-blood-pressure']:,} and {instructions['decode-glucose']:,} a decode", "",
        bench.format("HealthGATTBenchmarks") + "; " + counted("decode-blood-pressure", "decode-glucose"),
    ))
    driver = metric("Sync 10,000 glucose records through the RACP driver", "records per second")
    rows.append((
        "Driver sync rate: 10,000 glucose records through the RACP driver from the simulator, no store",
        f"p50 {driver[1]:,.0f} records a second", "", "", bench.format("DeviceBenchmarks")))
    synced = metric("Sync 10,000 glucose records from the simulated BG5 into a store file", "records per second")
    stored = metric("Store 10,000 readings", "records per second")
    rows.append((
        "Store sync rate: the same sync into a store file; 10,000 readings stored alone in batches of 512",
        f"p50 {synced[1]:,.0f} and {stored[1]:,.0f} records a second", "", "", bench.format("StoreBenchmarks")))

if "open" in parts:
    open_lines = text("open.txt")
    rows = sections["open"] = []
    hello = line(open_lines, "median hello, dynamic")
    opened = line(open_lines, "median open, dynamic")
    ratio = number(line(open_lines, "ratio open/hello, both built the default way"), r": ([0-9.]+)")
    counts = line(open_lines, "instructions, open")
    rows.append((
        "`vitalbridge open` (a measurement) against a Foundation hello-world, whole process, release, dynamic",
        f"median {number(opened, r': ([0-9.]+) ms')} vs {number(hello, r': ([0-9.]+) ms')} ms: {ratio}×",
        f"{int(number(counts, r'open: ([0-9]+)')):,} vs {int(number(counts, r'hello: ([0-9]+)')):,}: "
        f"{number(counts, r'ratio open/hello: ([0-9.]+)')}×",
        goal("≤ 2× hello-world", ratio <= 2), "`bash Benchmarks/open-latency.sh`"))
    peak_open = number(line(open_lines, "peak resident memory of .build open"), r": ([0-9]+) MiB")
    rows.append((
        "Peak resident memory of `open` (a measurement), release, dynamic", f"{peak_open:.0f} MiB", "",
        goal("≤ 40 MiB", peak_open <= 40), "`bash Benchmarks/open-latency.sh`"))

if "lean" in parts:
    lean_lines = text("lean.txt")
    rows = sections["lean"] = []
    lean = {name: line(lean_lines, f"median {name}:") for name in ("open, static", "hello, static", "hello, dynamic")}
    lean_ms = {name: number(text, r": ([0-9.]+) ms") for name, text in lean.items()}
    lean_peak = {name: number(text, r"peak ([0-9.]+) MiB") for name, text in lean.items()}
    lean_ratio = number(line(lean_lines, "ratio open/hello, both static"), r": ([0-9.]+)")
    rows.append((
        "`vitalbridge open` (a measurement) as released (static Swift runtime) against a Foundation hello-world built "
        "the same way, and one linked dynamically; whole process",
        f"median {lean_ms['open, static']} vs {lean_ms['hello, static']} ms: {lean_ratio}×; "
        f"dynamic hello-world {lean_ms['hello, dynamic']} ms", "",
        goal("≤ 2.5× static hello-world", lean_ratio <= 2.5),
        "`bash Benchmarks/lean-binary.sh`"))
    files = {name: line(lean_lines, name + ":") for name in ("vitalbridge", "hello-static", "hello-dynamic")}
    size = {name: int(number(text, r": ([0-9]+) bytes")) for name, text in files.items()}
    linked = {name: int(number(text, r"([0-9]+) shared objects linked")) for name, text in files.items()}
    stripped = int(number(line(lean_lines, "vitalbridge, stripped"), r": ([0-9]+) bytes"))
    megabytes = lambda bytes: f"{bytes / 1e6:.1f} MB" if bytes >= 1e6 else f"{bytes / 1e3:.0f} kB"
    rows.append((
        "The release binary against the hello-worlds: file size, shared objects it links (`ldd`), peak resident "
        "memory",
        f"{megabytes(size['vitalbridge'])} ({megabytes(stripped)} stripped, as packaged), {linked['vitalbridge']}, "
        f"{lean_peak['open, static']:.0f} MiB; static hello-world {megabytes(size['hello-static'])}, "
        f"{linked['hello-static']}, {lean_peak['hello, static']:.0f} MiB; dynamic {megabytes(size['hello-dynamic'])}, "
        f"{linked['hello-dynamic']}, {lean_peak['hello, dynamic']:.0f} MiB", "", "",
        "`bash Benchmarks/lean-binary.sh`"))

if "tricks" in parts:
    trick_lines, json_lines = text("tricks.txt"), text("json.txt")
    rows = sections["tricks"] = []
    def trial(what, trick, other, saves, counts):
        """The row of a trick on trial: speed-tricks.sh's medians of `trick` and `other`, its line `saves`, and its
        instructions ("instructions, <counts>: N; <other>: M; saved: P %")."""
        saved = number(line(trick_lines, saves), r", (-?[0-9.]+) %")
        counted = line(trick_lines, "instructions, " + counts)
        return (
            "A speed trick on trial: " + what,
            f"median {number(line(trick_lines, 'median ' + trick), r': ([0-9.]+) ms')} vs "
            f"{number(line(trick_lines, 'median ' + other), r': ([0-9.]+) ms')} ms: saves {saved} %",
            f"{int(number(counted, counts + r': ([0-9]+)')):,} vs {int(number(counted, other + r': ([0-9]+)')):,}: "
            f"saves {number(counted, r'saved: (-?[0-9.]+) %')} %",
            goal("kept if it saves > 2 %", saved > 2), "`bash Benchmarks/speed-tricks.sh`")
    rows.append(trial(
        "`open` read by the fast argv path against the same `open` through ArgumentParser, release, static",
        "fast argv path", "ArgumentParser", "fast argv path saves", "fast argv path"))
    rows.append(trial(
        "`open` built with the release's metadata accessors (Packaging/release-build.sh) against the same sources "
        "built without them, release, static",
        "fast argv path", "mangled names", "metadata accessors save", "metadata accessors"))
    readers = [line(json_lines, name + ":") for name in ("fleet.json", "small.json", "full.json")]
    rows.append((
        "A speed trick on trial: VitalBridge's JSON reader against JSONDecoder (a floor: synthesized mirrors), first "
        "read in a fresh process: the built-in fleet; a 20-record device state; a 65,000-record one",
        "; ".join(
            f"{re.search(r'reader ([0-9,]+) µs', text).group(1)} vs "
            f"{re.search(r'JSONDecoder ([0-9,]+) µs', text).group(1)} µs" for text in readers),
        "", "", "`bash Benchmarks/json-readers.sh`"))

if "scale" in parts:
    rows = sections["scale"] = []
    for sync in [row for row in text("scale.txt") if re.match(r"^\w+ +65000 records", row)]:
        family = sync.split()[0]
        seconds, peak = number(sync, r"records: +([0-9.]+) s"), number(sync, r"peak ([0-9.]+) MiB")
        bulk = family in ("BG5", "PO3", "AM4")
        target = goal("≤ 2 s, ≤ 40 MiB", seconds <= 2 and peak <= 40) if bulk else goal("≤ 40 MiB", peak <= 40)
        rows.append((
            f"Sync of 65,000 records, {family}, one `open`, whole process, release, dynamic",
            sync.split("records: ")[1].strip(), "", target, "`bash Benchmarks/scale.sh`"))

sizes = ["5000", "100000", "1000000"]
short = {"5000": "5 K", "100000": "100 K", "1000000": "1 M"}

if "history" in parts:
    history = text("history.txt")
    rows = sections["history"] = []
    latency = {size: line(history, f"open, {size} readings:") for size in sizes}
    ratio = {size: number(latency[size], r"ratio ([0-9.]+)") for size in sizes}
    counted_open = {size: line(history, f"instructions of open, {size} readings:") for size in sizes}
    rows.append((
        "Latency of a measurement `open` on homes of 5,000, 100,000 and 1,000,000 readings against an empty home, "
        "whole process, release, dynamic",
        "; ".join(f"{short[size]}: median {number(latency[size], r'median ([0-9.]+) ms')} vs "
                  f"{number(latency[size], r'against ([0-9.]+) ms')} ms, {ratio[size]}×" for size in sizes),
        "; ".join(f"{short[size]}: {int(number(counted_open[size], r': ([0-9]+) against')):,} vs "
                  f"{int(number(counted_open[size], r'against ([0-9]+) empty')):,}, "
                  f"{number(counted_open[size], r'ratio ([0-9.]+)')}×" for size in sizes),
        goal("1 M ≤ 1.1× empty", ratio["1000000"] <= 1.1), "`bash Benchmarks/history.sh`"))
    commands = [
        ("records --format table", "`records` as a table"),
        ("records --format csv", "`records --format csv`"),
        ("records --format json", "`records --format json`"),
        ("records --format fhir", "`records --format fhir` (a collection)"),
        ("records --format fhir --transaction", "`records --format fhir --transaction`"),
        ("changes --limit 1000", "`changes --limit 1000` (one page)"),
        ("changes", "`changes` (the whole feed)"),
        ("report", "`report`"),
        ("sync open of 5,000 records", "A sync `open` of 5,000 records (BG5) into a copy of each home"),
    ]
    for label, figure in commands:
        runs = {size: line(history, f"{label}, {size} readings:") for size in sizes}
        cpu = {size: number(runs[size], r"([0-9.]+) s CPU") for size in sizes}
        wall = {size: number(runs[size], r"([0-9.]+) s wall") for size in sizes}
        peak = {size: number(runs[size], r"peak ([0-9.]+) MiB") for size in sizes}
        anon = {size: number(runs[size], r"RssAnon ([0-9.]+)") for size in sizes}
        mapped = {size: number(runs[size], r"RssFile ([0-9.]+)") for size in sizes}
        growth = (f"5 K → 1 M: CPU ×{cpu['1000000'] / max(cpu['5000'], 0.01):.0f} (0.01 s the clock's step), "
                  f"peak {peak['1000000'] - peak['5000']:+.1f} MiB, heap (RssAnon) {anon['5000']:.1f} → "
                  f"{anon['1000000']:.1f} MiB, mapped files (RssFile) {mapped['1000000']:.1f} MiB at 1 M")
        rows.append((
            f"{figure}, homes of 5,000, 100,000 and 1,000,000 readings, whole process, release, dynamic",
            "; ".join(f"{short[size]}: {cpu[size]:.2f} s CPU ({wall[size]:.2f} s wall), peak {peak[size]:.1f} MiB"
                      for size in sizes) + "; " + growth,
            "", goal("≤ 40 MiB at 1 M", peak["1000000"] <= 40), "`bash Benchmarks/history.sh`"))
    first = line(history, "bulk sync of 50,000 records, the first")
    last = line(history, "bulk sync of 50,000 records, the last")
    total = line(history, "bulk syncs of the 1,000,000-reading home")
    sqlite = line(history, "SQLite bulk insert")
    largest = number(total, r"the largest peak ([0-9.]+) MiB")
    sqlite_version = re.search(r"SQLite ([0-9.]+)\)", sqlite).group(1)
    rows.append((
        "The bulk syncs that made the 1,000,000-reading home (20 BG5s of 50,000 records, one `open` each) against "
        "SQLite's own bulk insert of the same rows (their `reading` and `feed` rows, same tables and indexes, WAL, "
        "`synchronous = FULL`, python3's sqlite3 module, one transaction)",
        f"the first, into 0 readings: {number(first, r'([0-9.]+) s CPU'):.2f} s CPU, peak "
        f"{number(first, r'peak ([0-9.]+) MiB')} MiB; the last, into 950,000: {number(last, r'([0-9.]+) s CPU'):.2f} s "
        f"CPU, peak {number(last, r'peak ([0-9.]+) MiB')} MiB; all 20: {number(total, r'([0-9.]+) s CPU'):.2f} s CPU "
        f"({number(total, r': ([0-9.]+) s wall'):.2f} s wall) against SQLite's "
        f"{number(sqlite, r'([0-9.]+) s CPU'):.2f} s CPU ({number(sqlite, r': ([0-9.]+) s wall'):.2f} s wall, SQLite "
        f"{sqlite_version})",
        "", goal("≤ 40 MiB", largest <= 40), "`bash Benchmarks/history.sh`"))

if "sink" in parts:
    sink = text("sink.txt")
    rows = sections["sink"] = []
    pushes = [row for row in sink if " rows in the database; " in row]
    copies = [row for row in sink if row.startswith("COPY of ")]
    pushed = dict(zip(sizes, pushes))
    copied = dict(zip(sizes, copies))
    wall = {size: number(pushed[size], r"wall ([0-9.]+) s") for size in sizes}
    peak = {size: number(pushed[size], r"peak ([0-9.]+) MiB") for size in sizes}
    rows.append((
        "`sink push` of homes of 5,000, 100,000 and 1,000,000 readings to a local PostgreSQL (socket, batches of "
        "1,000), whole process, release, dynamic; beside each, psql's `COPY` of the same rows into a table of the "
        "same columns (the server's floor)",
        "; ".join(f"{short[size]}: wall {wall[size]:.2f} s, VitalBridge's CPU "
                  f"{number(pushed[size], r'CPU ([0-9.]+) s'):.2f} s ({number(pushed[size], r'([0-9.]+) µs')} µs a "
                  f"reading), peak {peak[size]:.1f} MiB, COPY {number(copied[size], r': ([0-9.]+) s'):.2f} s"
                  for size in sizes) + f"; 5 K → 1 M: peak {peak['1000000'] - peak['5000']:+.1f} MiB",
        "", goal("100 K ≤ 10 s", wall["100000"] <= 10) + "; " + goal("≤ 40 MiB at 1 M", peak["1000000"] <= 40),
        "`bash Benchmarks/sink-push.sh`"))

if "push-cpu" in parts:
    pushed = text("push-cpu.txt")
    fields = lambda row: dict(item.split("=", 1) for item in row.split()[1:])
    families = [fields(row) for row in pushed if row.startswith("push-cpu family=")]
    floor = fields(line(pushed, "push-cpu-floor "))
    counted = fields(line(pushed, "push-cpu-instructions "))
    besides = max(float(family["cpu_besides_sync_us"]) for family in families)
    # issue 56: the wall time a record against the floor of appending (SQLite's log grows), and the user CPU
    appending = float(floor["append_fdatasync_us"])
    over_floor = max(float(family["wall_us"]) / appending for family in families)
    user = max(float(family["user_us"]) for family in families)
    sections["push-cpu"] = [(
        f"A push sync's cost a record (BP5, HS4, THV3, {int(families[0]['records']):,} records each, one transaction "
        "a record committed before the device is acknowledged), whole process, release: wall time; the hub's CPU "
        "(user + sys, the simulated device included); that CPU less what a program doing only as many write + "
        "fdatasync calls spends (the hub's own work); the wait in fsync/fdatasync; beside it the disk's floor, "
        "write + fdatasync of one 4,096-byte block",
        "; ".join(f"{family['family']}: wall {float(family['wall_us']):.0f} µs "
                  f"({float(family['wall_us']) / appending:.2f}× the floor), CPU {float(family['cpu_us']):.0f} µs "
                  f"(user {float(family['user_us']):.0f}, sys {float(family['sys_us']):.0f}), besides the syncs "
                  f"{float(family['cpu_besides_sync_us']):.0f} µs, fsync wait {float(family['sync_wait_us']):.0f} µs "
                  f"({float(family['syncs']):.2f} syncs)" for family in families)
        + f"; floor {float(floor['append_fdatasync_us']):.0f} µs a call appending, "
          f"{float(floor['inplace_fdatasync_us']):.0f} µs in place",
        f"{int(counted['per_record']):,} a BP5 record",
        goal("wall ≤ 1.25× the floor appending", over_floor <= 1.25) + "; " + goal("user CPU ≤ 90 µs", user <= 90)
        + "; " + goal("hub's own CPU ≤ 75 µs a record", besides <= 75), "`bash Benchmarks/push-cpu.sh --instructions`")]

fuzz = open("Fuzz/long-run.md").read()
fuzz_date = min(re.findall(r"\| (\d{4}-\d\d-\d\d) \|", fuzz))
runs = [re.match(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \|", row) for row in fuzz.splitlines()]
runs = [(m.group(1), int(m.group(2)), int(m.group(4))) for m in runs if m]
slowest = min(runs, key=lambda run: run[2])
fastest = max(runs, key=lambda run: run[2])
# every target fuzz.sh builds must have its row
declared = re.search(r"^targets=\(([^)]*)\)", open("Fuzz/fuzz.sh").read(), re.M).group(1).split()
unrun = [target for target in declared if target not in {run[0] for run in runs}]
sections["fuzz"] = [(
    "Fuzz executions, release build with AddressSanitizer, no crash ([Fuzz/long-run.md](../Fuzz/long-run.md))",
    f"{len(runs)} of {len(declared)} targets, at least {min(run[1] for run in runs):,} executions each; from "
    f"{slowest[2]:,}/s ({slowest[0]}) to {fastest[2]:,}/s ({fastest[0]})"
    + (f"; no long run yet: {', '.join(unrun)}" if unrun else ""), "",
    goal("≥ 10,000,000 executions each", min(run[1] for run in runs) >= 10_000_000 and not unrun),
    "`bash Fuzz/fuzz.sh long`", fuzz_date)]

# the rows of the parts not run, from the table as it is: a row's part is the first whose script its command names
readme = open("Benchmarks/README.md").read()
begin, end = "<!-- figures: begin -->\n", "<!-- figures: end -->\n"
before, rest = readme.split(begin)
current, after = rest.split(end)
scripts = {
    "micro": "benchmark --target", "open": "open-latency.sh", "lean": "lean-binary.sh", "tricks": "speed-tricks.sh",
    "scale": "scale.sh", "history": "history.sh", "sink": "sink-push.sh", "push-cpu": "push-cpu.sh",
}
scripts["tricks"] = ("speed-tricks.sh", "json-readers.sh")
kept = {}
for row in current.splitlines():
    if not row.startswith("| ") or row.startswith("| Figure") or row.startswith("| ---"):
        continue
    cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
    if len(cells) == 5:  # a row from before the Goal column: its "(target …)" moves there, unjudged
        figure, value, count, command, when = cells
        target = re.search(r"([0-9.]+)(?:×| MiB)? \(target ≤ ([0-9.]+)( MiB)?\)", value)
        if target:
            value = value.replace(target.group(0), target.group(0).split(" (target")[0])
            mark = f"≤ {target.group(2)}{'×' if '×' in target.group(0) else ' MiB'}"
            cells = [figure, value, count, goal(mark, float(target.group(1)) <= float(target.group(2))), command, when]
        else:
            cells = [figure, value, count, "–", command, when]
    named = [part for part, marks in scripts.items()
             if any(mark in cells[4] for mark in ([marks] if isinstance(marks, str) else marks))]
    # a row that also names a part run now is made again by it, or was moved (scale.sh's 500,000-reading home)
    if named and not any(part in parts for part in named):
        kept.setdefault(named[0], []).append(cells)

table = textwrap.wrap(
    f"Regenerated by `bash Benchmarks/figures.sh {' '.join(parts)}` at commit {commit}, {date}, on this 2-core "
    "machine; rows of the parts not run then keep their own date. Instructions are callgrind's count of one "
    "iteration (micro-benchmarks) or one whole process, the same from run to run; the wall figures swing with the "
    "machine's load, CPU times (user + system) less so. Peak memory is GNU time's `%M`.", 116) + [
    "",
    "| Figure | Wall clock, memory | Instructions | Goal | Command | Date |",
    "| --- | --- | --- | --- | --- | --- |",
]
for part in order:
    if part in sections:
        for figure, value, count, target, command, *when in sections[part]:
            table.append(f"| {figure} | {value} | {count or '–'} | {target or '–'} | {command} | "
                         f"{when[0] if when else date} |")
    for cells in kept.get(part, []):
        table.append("| " + " | ".join(cells) + " |")

open("Benchmarks/README.md", "w").write(before + begin + "\n".join(table) + "\n" + end + after)
print("\n".join(table))
PY
