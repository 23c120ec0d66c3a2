#!/usr/bin/env bash
# Measures every figure of the table in Benchmarks/README.md and writes the table there, between its "figures"
# markers, each row with the command that produced it and the date:
#   - the micro-benchmarks (ordo-one, wall clock), and beside each the instructions callgrind counts for one
#     iteration of the same work (Sources/instructions);
#   - open-latency.sh, lean-binary.sh, speed-tricks.sh and scale.sh, whole process;
#   - the last long fuzz run, read from Fuzz/long-run.md (`bash Fuzz/fuzz.sh long` takes 75 minutes; run it first).
# About 3 minutes here once built. Needs hyperfine, GNU time and valgrind (apt-get install hyperfine time
# valgrind). From the repository root:
#   bash Benchmarks/figures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

echo "== open-latency.sh" >&2
bash Benchmarks/open-latency.sh >"$work/open.txt"
echo "== lean-binary.sh" >&2
bash Benchmarks/lean-binary.sh >"$work/lean.txt"
echo "== speed-tricks.sh, json-readers.sh" >&2
bash Benchmarks/speed-tricks.sh >"$work/tricks.txt"
bash Benchmarks/json-readers.sh >"$work/json.txt"
echo "== scale.sh" >&2
bash Benchmarks/scale.sh >"$work/scale.txt"

python3 - "$work" "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)" <<'PY'
import re, sys
work, date, commit = sys.argv[1:]

# the ordo-one markdown: "### <benchmark>", then rows "| <metric> | p0 | p25 | p50 | ... |"
micro, benchmark = {}, None
for line in open(f"{work}/micro.md"):
    if line.startswith("### "):
        benchmark = line[4:].strip()
        micro[benchmark] = {}
    elif benchmark and line.startswith("| ") and not line.startswith("| Metric"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
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

instructions = dict(line.split() for line in open(f"{work}/instructions.txt"))
instructions = {name: int(count) for name, count in instructions.items()}
open_lines = open(f"{work}/open.txt").read().splitlines()
lean_lines = open(f"{work}/lean.txt").read().splitlines()
trick_lines = open(f"{work}/tricks.txt").read().splitlines()
json_lines = open(f"{work}/json.txt").read().splitlines()
scale_lines = open(f"{work}/scale.txt").read().splitlines()

def line(lines, start):
    [found] = [line for line in lines if line.startswith(start)]
    return found

def number(text, pattern):
    return float(re.search(pattern, text).group(1))

bench = "`swift package --disable-sandbox benchmark --target {}` (in `Benchmarks/`)"
def counted(*works):
    return ", ".join(f"`instructions {work} N`" for work in works) + " under callgrind (`Benchmarks/callgrind.sh`)"
rows = []

request = metric("LayeredRequest: parse", "Time")
components = metric("URLComponents", "Time")
rows.append((
    "Request parsing against `URLComponents` (the measurement URL)",
    f"p50 {request[1]:,.0f} vs {components[1]:,.0f} ns: {request[1] / components[1]:.2f}×; "
    f"p0 {request[0]:,.0f} vs {components[0]:,.0f} ns: {request[0] / components[0]:.2f}×",
    f"{instructions['layered-request']:,} vs {instructions['url-components']:,} a parse: "
    f"{instructions['layered-request'] / instructions['url-components']:.2f}×",
    bench.format("LayeredProtocolBenchmarks") + "; " + counted("layered-request", "url-components"),
))
pressure = metric("Decode a Blood Pressure", "Throughput")
glucose = metric("Decode a Glucose", "Throughput")
rows.append((
    "GATT decodes per second (Blood Pressure 19 bytes, Glucose 17 bytes, every field)",
    f"p50 {pressure[1]:,.0f} and {glucose[1]:,.0f} a second",
    f"{instructions['decode-blood-pressure']:,} and {instructions['decode-glucose']:,} a decode",
    bench.format("HealthGATTBenchmarks") + "; " + counted("decode-blood-pressure", "decode-glucose"),
))
driver = metric("Sync 10,000 glucose records through the RACP driver", "records per second")
rows.append((
    "Driver sync rate: 10,000 glucose records through the RACP driver from the simulator, no store",
    f"p50 {driver[1]:,.0f} records a second", "", bench.format("DeviceBenchmarks")))
synced = metric("Sync 10,000 glucose records from the simulated BG5 into a store file", "records per second")
stored = metric("Store 10,000 readings", "records per second")
rows.append((
    "Store sync rate: the same sync into a store file; 10,000 readings stored alone in batches of 512",
    f"p50 {synced[1]:,.0f} and {stored[1]:,.0f} records a second", "", bench.format("StoreBenchmarks")))

hello = line(open_lines, "median hello, dynamic")
opened = line(open_lines, "median open, dynamic")
ratio = line(open_lines, "ratio open/hello, both built the default way")
counts = line(open_lines, "instructions, open")
rows.append((
    "`vitalbridge open` (a measurement) against a Foundation hello-world, whole process, release, dynamic",
    f"median {number(opened, r': ([0-9.]+) ms')} vs {number(hello, r': ([0-9.]+) ms')} ms: "
    f"{number(ratio, r': ([0-9.]+)')}× (target ≤ 2)",
    f"{int(number(counts, r'open: ([0-9]+)')):,} vs {int(number(counts, r'hello: ([0-9]+)')):,}: "
    f"{number(counts, r'ratio open/hello: ([0-9.]+)')}×",
    "`bash Benchmarks/open-latency.sh`"))
lean = {name: line(lean_lines, f"median {name}:") for name in ("open, static", "hello, static", "hello, dynamic")}
lean_ms = {name: number(text, r": ([0-9.]+) ms") for name, text in lean.items()}
lean_peak = {name: number(text, r"peak ([0-9.]+) MiB") for name, text in lean.items()}
lean_ratio = number(line(lean_lines, "ratio open/hello, both static"), r": ([0-9.]+)")
rows.append((
    "`vitalbridge open` (a measurement) as released (static Swift runtime) against a Foundation hello-world built "
    "the same way, and one linked dynamically; whole process",
    f"median {lean_ms['open, static']} vs {lean_ms['hello, static']} ms: {lean_ratio}× (target ≤ 2.5); "
    f"dynamic hello-world {lean_ms['hello, dynamic']} ms", "", "`bash Benchmarks/lean-binary.sh`"))
files = {name: line(lean_lines, name + ":") for name in ("vitalbridge", "hello-static", "hello-dynamic")}
size = {name: int(number(text, r": ([0-9]+) bytes")) for name, text in files.items()}
linked = {name: int(number(text, r"([0-9]+) shared objects linked")) for name, text in files.items()}
stripped = int(number(line(lean_lines, "vitalbridge, stripped"), r": ([0-9]+) bytes"))
megabytes = lambda bytes: f"{bytes / 1e6:.1f} MB" if bytes >= 1e6 else f"{bytes / 1e3:.0f} kB"
rows.append((
    "The release binary against the hello-worlds: file size, shared objects it links (`ldd`), peak resident memory",
    f"{megabytes(size['vitalbridge'])} ({megabytes(stripped)} stripped, as packaged), {linked['vitalbridge']}, "
    f"{lean_peak['open, static']:.0f} MiB; static hello-world {megabytes(size['hello-static'])}, "
    f"{linked['hello-static']}, {lean_peak['hello, static']:.0f} MiB; dynamic {megabytes(size['hello-dynamic'])}, "
    f"{linked['hello-dynamic']}, {lean_peak['hello, dynamic']:.0f} MiB", "", "`bash Benchmarks/lean-binary.sh`"))
fast = line(trick_lines, "median fast argv path")
parsed = line(trick_lines, "median ArgumentParser")
saved = line(trick_lines, "fast argv path saves")
trick_counts = line(trick_lines, "instructions, fast argv path")
rows.append((
    "A speed trick on trial: `open` read by the fast argv path against the same `open` through ArgumentParser, "
    "release, static (kept if it saves more than 2 %)",
    f"median {number(fast, r': ([0-9.]+) ms')} vs {number(parsed, r': ([0-9.]+) ms')} ms: saves "
    f"{number(saved, r', ([0-9.]+) %')} %",
    f"{int(number(trick_counts, r'path: ([0-9]+)')):,} vs {int(number(trick_counts, r'ArgumentParser: ([0-9]+)')):,}: "
    f"saves {number(trick_counts, r'saved: ([0-9.]+) %')} %",
    "`bash Benchmarks/speed-tricks.sh`"))
pool = line(trick_lines, "median thread pool")
pool_saved = line(trick_lines, "CallingThreadExecutor saves")
pool_counts = line(trick_lines, "instructions, CallingThreadExecutor")
rows.append((
    "A speed trick on trial: `open` run on the main thread by CallingThreadExecutor against the same `open` built "
    "with `-DVITALBRIDGE_THREAD_POOL` (the concurrency runtime's thread pool), release, static (kept if it saves "
    "more than 2 %)",
    f"median {number(fast, r': ([0-9.]+) ms')} vs {number(pool, r': ([0-9.]+) ms')} ms: saves "
    f"{number(pool_saved, r', (-?[0-9.]+) %')} %",
    f"{int(number(pool_counts, r'CallingThreadExecutor: ([0-9]+)')):,} vs "
    f"{int(number(pool_counts, r'thread pool: ([0-9]+)')):,}: saves {number(pool_counts, r'saved: (-?[0-9.]+) %')} %",
    "`bash Benchmarks/speed-tricks.sh`"))
readers = [line(json_lines, name + ":") for name in ("fleet.json", "small.json", "full.json")]
rows.append((
    "A speed trick on trial: VitalBridge's JSON reader against JSONDecoder (a floor: synthesized mirrors), first "
    "read in a fresh process: the built-in fleet; a 20-record device state; a 65,000-record one",
    "; ".join(
        f"{re.search(r'reader ([0-9,]+) µs', text).group(1)} vs {re.search(r'JSONDecoder ([0-9,]+) µs', text).group(1)} µs"
        for text in readers),
    "", "`bash Benchmarks/json-readers.sh`"))
peak_open = line(open_lines, "peak resident memory of .build open")
syncs = [line for line in scale_lines if re.match(r"^\w+ +65000 records", line)]
peak_sync = max(int(number(line, r"peak ([0-9]+) MiB")) for line in syncs)
rows.append((
    "Peak resident memory: `open` (a measurement); the largest of the 65,000-record syncs below",
    f"{int(number(peak_open, r': ([0-9]+) MiB'))} MiB; {peak_sync} MiB (target ≤ 40 MiB)", "",
    "`bash Benchmarks/open-latency.sh`; `bash Benchmarks/scale.sh`"))
for sync in syncs:
    family = sync.split()[0]
    rows.append((
        f"Sync of 65,000 records, {family}, one `open`, whole process",
        sync.split("records: ")[1].strip(), "", "`bash Benchmarks/scale.sh`"))
large = line(scale_lines, "median open, large history")
large_ratio = line(scale_lines, "ratio large/empty")
large_counts = line(scale_lines, "instructions, large")
readings = int(number(line(scale_lines, "readings in the large home"), r": ([0-9]+)"))
rows.append((
    f"Latency of a measurement `open` on a home of {readings:,} readings against an empty home",
    f"median {number(large, r'large history: ([0-9.]+) ms')} vs {number(large, r'empty home: ([0-9.]+) ms')} ms: "
    f"{number(large_ratio, r': ([0-9.]+)')}× (target ≤ 1.1)",
    f"{int(number(large_counts, r'large: ([0-9]+)')):,} vs {int(number(large_counts, r'empty: ([0-9]+)')):,}: "
    f"{number(large_counts, r'ratio large/empty: ([0-9.]+)')}×",
    "`bash Benchmarks/scale.sh`"))

fuzz = open("Fuzz/long-run.md").read()
fuzz_date = re.search(r"(\d{4}-\d\d-\d\d)", fuzz).group(1)
runs = [re.match(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \|", line) for line in fuzz.splitlines()]
runs = [(m.group(1), int(m.group(2)), int(m.group(4))) for m in runs if m]
slowest = min(runs, key=lambda run: run[2])
fastest = max(runs, key=lambda run: run[2])
rows.append((
    "Fuzz executions, release build with AddressSanitizer, no crash ([Fuzz/long-run.md](../Fuzz/long-run.md))",
    f"{len(runs)} targets, at least {min(run[1] for run in runs):,} executions each; from {slowest[2]:,}/s "
    f"({slowest[0]}) to {fastest[2]:,}/s ({fastest[0]})", "",
    "`bash Fuzz/fuzz.sh long`", fuzz_date))

table = [
    f"Regenerated by `bash Benchmarks/figures.sh` at commit {commit}, {date}, on this 2-core machine. Instructions are",
    "callgrind's count of one iteration (micro-benchmarks) or one whole process, the same from run to run; the wall",
    "figures swing with the machine's load.",
    "",
    "| Figure | Wall clock, memory | Instructions | Command | Date |",
    "| --- | --- | --- | --- | --- |",
]
for row in rows:
    figure, value, count, command, *when = row
    table.append(f"| {figure} | {value} | {count or '–'} | {command} | {when[0] if when else date} |")

readme = open("Benchmarks/README.md").read()
begin, end = "<!-- figures: begin -->\n", "<!-- figures: end -->\n"
before, rest = readme.split(begin)
_, after = rest.split(end)
open("Benchmarks/README.md", "w").write(before + begin + "\n".join(table) + "\n" + end + after)
print("\n".join(table))
PY
