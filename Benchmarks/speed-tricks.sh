#!/usr/bin/env bash
# Puts the speed tricks of `vitalbridge open` on trial (issue 34: keep one only if it saves more than 2 % of
# `open`):
#   - the fast argv path, which reads `open`'s documented form without building ArgumentParser's command tree: the
#     same request is opened two ways by the same binary, `open --home H URL`, which the fast path reads, and
#     `open --home H -- URL`, which it leaves to ArgumentParser (a `--` is not part of the form it reads) and which
#     then runs the same `run()`;
#   - the release's metadata accessors (Packaging/release-build.sh): the same sources built without that flag, in a
#     scratch folder of their own (.build-static-mangled, a second whole release build the first time), open the
#     same request. (CallingThreadExecutor, a second trick that ran each command on the main thread, saved 1.1 %
# of the wall time and cost 1.5 % more instructions on 2026-11-28, under the 2 % rule: it was removed.)
# The binary is a release build as the Debian package builds them (static Swift runtime). Wall time is
# hyperfine's median over ten alternating rounds; instructions are callgrind's count of one run of each.
# Needs hyperfine and valgrind (apt-get install hyperfine valgrind). Run from the repository root:
#   bash Benchmarks/speed-tricks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/callgrind.sh

source Packaging/release-build.sh
"${release_build[@]}" --product vitalbridge >/dev/null
tool=$("${release_build[@]}" --show-bin-path)/vitalbridge
mangled=(swift build -c release "${static_flags[@]}" --scratch-path .build-static-mangled)
"${mangled[@]}" --product vitalbridge >/dev/null
mangled_tool=$("${mangled[@]}" --show-bin-path)/vitalbridge

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source Benchmarks/homes.sh
request='ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=vitalbridge-demo'
# an existing home, each run on a fresh copy of it (existing_home in homes.sh)
existing_home "$tool" "$work" "$request"
home=$work/run
# both forms answer the same
fast=$("$tool" open --home "$home" "$request")
"$work/reset"
parsed=$("$tool" open --home "$home" -- "$request")
[ "${fast%%&result=*}" = "${parsed%%&result=*}" ] || { echo "the two forms answer differently" >&2; exit 1; }

for round in 1 2 3 4 5 6 7 8 9 10; do
    hyperfine -N --warmup 3 --runs 20 --style none --export-json "$work/round-$round.json" --prepare "$work/reset" \
        -n "fast argv path" "$tool open --home $home $request" \
        -n "ArgumentParser" "$tool open --home $home -- $request" \
        -n "mangled names" "$mangled_tool open --home $home $request" >/dev/null
done
"$work/reset"
fast_instructions=$(instructions "$tool" open --home "$home" "$request")
"$work/reset"
parsed_instructions=$(instructions "$tool" open --home "$home" -- "$request")
"$work/reset"
mangled_instructions=$(instructions "$mangled_tool" open --home "$home" "$request")
python3 - "$work" "$fast_instructions" "$parsed_instructions" "$mangled_instructions" <<'PY'
import glob, json, statistics, sys
times = {}
for path in sorted(glob.glob(sys.argv[1] + "/round-*.json")):
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
median = {name: statistics.median(values) * 1000 for name, values in times.items()}
for name, value in median.items():
    print(f"median {name}: {value:.2f} ms over {len(times[name])} runs")
fast, parsed = median["fast argv path"], median["ArgumentParser"]
print(f"fast argv path saves {parsed - fast:.2f} ms, {(parsed - fast) / parsed * 100:.1f} % of open (keep if > 2 %)")
fast_count, parsed_count = int(sys.argv[2]), int(sys.argv[3])
print(f"instructions, fast argv path: {fast_count}; ArgumentParser: {parsed_count}; "
      f"saved: {(parsed_count - fast_count) / parsed_count * 100:.1f} %")
mangled, mangled_count = median["mangled names"], int(sys.argv[4])
print(f"metadata accessors save {mangled - fast:.2f} ms, {(mangled - fast) / mangled * 100:.1f} % of open (keep if > 2 %)")
print(f"instructions, metadata accessors: {fast_count}; mangled names: {mangled_count}; "
      f"saved: {(mangled_count - fast_count) / mangled_count * 100:.1f} %")
PY
