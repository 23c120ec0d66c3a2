#!/usr/bin/env bash
# The one lean binary, whole process: `vitalbridge open` for a measurement on the built-in fleet, against an existing
# home, built as the release is (Packaging/release-build.sh, what Packaging/build-deb.sh ships),
# beside a Swift program that imports Foundation and prints one line, built the same way (`swiftc -O
# -static-stdlib`) and dynamically (`swiftc -O`). For each: the median wall time of runs taken in turns (target of
# issue 33: static open <= 2.5x the static hello-world), the peak resident memory (the kernel's getrusage of each
# run), the size of the file, the shared libraries it loads (ldd, and those the loader opened during a run,
# dlopen included) and the relocations the loader processed (LD_DEBUG=statistics). Then where open's extra time goes:
# its system calls (strace -c) beside the static hello-world's.
# Needs strace (apt-get install strace). Run from the repository root (about a minute once built):
#   bash Benchmarks/lean-binary.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# the build Packaging/build-deb.sh ships (Packaging/release-build.sh)
source Packaging/release-build.sh
static=("${release_build[@]}")
"${static[@]}" --product vitalbridge >/dev/null
tool="$("${static[@]}" --show-bin-path)/vitalbridge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hello=Benchmarks/Sources/foundation-hello/main.swift
# (the static link warns that Foundation uses mktemp: kept out of the way unless the build fails)
swiftc -O -static-stdlib "$hello" -o "$work/hello-static" -module-cache-path "$work/cache" 2>"$work/swiftc.log" ||
    { cat "$work/swiftc.log" >&2; exit 1; }
swiftc -O "$hello" -o "$work/hello-dynamic" -module-cache-path "$work/cache"
# the binary the package installs: the same, without its symbol table and debug information
strip --strip-unneeded -o "$work/vitalbridge-stripped" "$tool"

source Benchmarks/homes.sh
request='ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=vitalbridge-demo'
# an existing home, each run of open on a fresh copy of it (existing_home in homes.sh)
existing_home "$tool" "$work" "$request"
home="$work/run"

echo "== wall time and peak memory, whole process"
python3 - "$tool" "$work" "$home" "$request" <<'PY'
import os, statistics, subprocess, sys, time
tool, work, home, request = sys.argv[1:]
commands = {
    "open, static": [tool, "open", "--home", home, request],
    "open, static, stripped": [f"{work}/vitalbridge-stripped", "open", "--home", home, request],
    "hello, static": [f"{work}/hello-static"],
    "hello, dynamic": [f"{work}/hello-dynamic"],
}
null = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    """(wall seconds, peak resident KiB) of one run, its output thrown away; an open on a fresh copy of the home."""
    if argv[1:2] == ["open"]:
        subprocess.run([f"{work}/reset"], check=True)
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv[0]} exited {status}")
    return wall, usage.ru_maxrss

times = {name: [] for name in commands}
peaks = {name: [] for name in commands}
# ten rounds of 20 runs of each, the programs taking turns (after 3 warm-up runs each), so that the machine's drift
# touches them alike
for name, argv in commands.items():
    for _ in range(3):
        run(argv)
for _ in range(10):
    for name, argv in commands.items():
        for _ in range(20):
            wall, kib = run(argv)
            times[name].append(wall)
            peaks[name].append(kib)
median = {name: statistics.median(values) * 1000 for name, values in times.items()}
for name in commands:
    # the largest peak of all runs, and the usual one (a run that checkpoints the store's log takes more)
    print(f"median {name}: {median[name]:.2f} ms over {len(times[name])} runs; peak {max(peaks[name]) / 1024:.1f} MiB"
          f" (median of the runs' peaks {statistics.median(peaks[name]) / 1024:.1f} MiB)")
print(f"ratio open/hello, both static: {median['open, static'] / median['hello, static']:.2f} (target <= 2.5)")
print(f"ratio open static / hello dynamic: {median['open, static'] / median['hello, dynamic']:.2f}")
print(f"ratio hello static / hello dynamic: {median['hello, static'] / median['hello, dynamic']:.2f}")
PY

echo
echo "== files, shared libraries, relocations"
for name in vitalbridge hello-static hello-dynamic; do
    case $name in
    vitalbridge) binary=$tool arguments=(open --home "$home" "$request") ;;
    *) binary="$work/$name" arguments=() ;;
    esac
    # every object ldd lists but the kernel's vDSO: the libraries themselves and the loader
    linked=$(ldd "$binary" | grep -vc linux-vdso)
    libraries=$(ldd "$binary" | grep -v linux-vdso | sed 's/^[[:space:]]*//; s/ (0x.*//' | tr '\n' ' ')
    # the objects the loader opened during a run (dlopen included), and its own statistics
    "$work/reset"
    LD_DEBUG=files,statistics LD_DEBUG_OUTPUT="$work/ld" "$binary" "${arguments[@]}" >/dev/null
    opened=$(grep -ho 'file=[^ ]*' "$work"/ld.* | sort -u | wc -l)
    relocations=$(grep -h 'number of relocations:' "$work"/ld.* | head -1 | sed 's/.*: *//')
    relative=$(grep -h 'number of relative relocations:' "$work"/ld.* | head -1 | sed 's/.*: *//')
    rm -f "$work"/ld.*
    echo "$name: $(stat -c %s "$binary") bytes; $linked shared objects linked (ldd), $opened loaded by a run;" \
        "$relocations relocations by symbol and $relative relative ones; links $libraries"
done
echo "vitalbridge, stripped (as packaged): $(stat -c %s "$work/vitalbridge-stripped") bytes"
echo "libsystemd linked: $(objdump -p "$tool" | grep -c 'NEEDED.*libsystemd' || true) (it is dlopened only to reach BlueZ)"
echo "symbols vitalbridge exports: $(nm -D --defined-only "$tool" | wc -l) (Package.swift links it with --no-export-dynamic)"

echo
echo "== system calls of one open, against the static hello-world (strace -c -f)"
"$work/reset"
strace -f -c -o "$work/open.strace" "$tool" open --home "$home" "$request" >/dev/null
strace -f -c -o "$work/hello.strace" "$work/hello-static" >/dev/null
for name in open hello; do
    total=$(awk '$NF == "total" {print $4}' "$work/$name.strace")
    echo "$name: $total system calls; most frequent: $(sort -k4 -n -r "$work/$name.strace" |
        awk '$NF != "total" && $NF != "syscall" && $4 ~ /^[0-9]+$/ {printf "%s %s, ", $NF, $4}' | head -c 300)"
done
