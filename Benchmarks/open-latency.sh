#!/usr/bin/env bash
# The wall time and peak memory of `vitalbridge open` for a measurement on the built-in fleet, against an existing
# home, beside a Swift program that imports Foundation and prints one line. Both are built for release twice: the
# default way (`swift build`, the Swift runtime and Foundation linked dynamically), which the 2x target compares, and
# statically, for reference: `vitalbridge` as the package ships it (Packaging/release-build.sh), the hello-world with
# `--static-swift-stdlib`.
# Then the instructions callgrind counts in one run of each, built the default way.
# Needs hyperfine, GNU time and valgrind (apt-get install hyperfine time valgrind). Run from the repository root:
#   bash Benchmarks/open-latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh

build() { # build <package dir> <product> <scratch> [flags]: prints the binary's path
    local dir=$1 product=$2 scratch=$3
    shift 3
    (cd "$dir" && swift build -c release --product "$product" --scratch-path "$scratch" "$@" >/dev/null &&
        echo "$PWD/$scratch/release/$product")
}
source Packaging/release-build.sh
static_tool=$(build . vitalbridge "$release_scratch" "${release_flags[@]}")
dynamic_tool=$(build . vitalbridge .build)
static_hello=$(build Benchmarks foundation-hello .build-static --static-swift-stdlib)
dynamic_hello=$(build Benchmarks foundation-hello .build)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source Benchmarks/homes.sh
request='ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=vitalbridge-demo'
# an existing home, its files, store and device state made by a first request; each measured run opens a fresh copy
# of it (made before the run, not timed), as a home is between two measurements (see existing_home in homes.sh)
existing_home "$static_tool" "$work" "$request"
home=$work/run

# ten rounds of 20 runs each, the four programs taking turns, so that the machine's drift touches them alike; the
# medians are over all 200 runs of each
for round in 1 2 3 4 5 6 7 8 9 10; do
    hyperfine -N --warmup 3 --runs 20 --style none --export-json "$work/round-$round.json" --prepare "$work/reset" \
        -n "open, static" "$static_tool open --home $home $request" \
        -n "open, dynamic" "$dynamic_tool open --home $home $request" \
        -n "hello, static" "$static_hello" \
        -n "hello, dynamic" "$dynamic_hello" >/dev/null
done
python3 - "$work" <<'PY'
import glob, json, statistics, sys
times = {}
for path in sorted(glob.glob(sys.argv[1] + "/round-*.json")):
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
median = {name: statistics.median(values) * 1000 for name, values in times.items()}
for name, value in median.items():
    print(f"median {name}: {value:.2f} ms over {len(times[name])} runs")
ratio = lambda open_linking, hello_linking: median["open, " + open_linking] / median["hello, " + hello_linking]
print(f"ratio open/hello, both built the default way (dynamic): {ratio('dynamic', 'dynamic'):.2f} (target <= 2)")
print(f"ratio open/hello, both static: {ratio('static', 'static'):.2f} (for reference)")
print(f"ratio open static / hello dynamic: {ratio('static', 'dynamic'):.2f} (for reference)")
PY

for tool in "$static_tool" "$dynamic_tool"; do
    peak=0
    for _ in 1 2 3 4 5; do
        "$work/reset"
        kib=$(/usr/bin/time -f %M "$tool" open --home "$home" "$request" 2>&1 >/dev/null | tail -1)
        [ "$kib" -gt "$peak" ] && peak=$kib
    done
    echo "peak resident memory of $(basename "$(dirname "$(dirname "$tool")")") open over 5 runs: $((peak / 1024)) MiB (target <= 40 MiB)"
done

"$work/reset"
open_instructions=$(instructions "$dynamic_tool" open --home "$home" "$request")
hello_instructions=$(instructions "$dynamic_hello")
echo "instructions, open: $open_instructions; hello: $hello_instructions;" \
    "ratio open/hello: $(python3 -c "print(f'{$open_instructions / $hello_instructions:.2f}')")"
