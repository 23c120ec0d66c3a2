# Sourced by the benchmark scripts.
#
#   instructions PROGRAM [ARGS…]   prints how many instructions callgrind counts in one run of PROGRAM
#
# Instruction counts do not depend on what else the machine runs, so they stand beside wall-clock ratios that swing
# from run to run. The program runs with deterministic hashing (Swift seeds its hashes per process otherwise), as a
# copy without debug information: valgrind 3.19 gives up on the DWARF 5 that swiftc writes. Needs valgrind
# (apt-get install valgrind).
instructions() {
    local program=$1 scratch
    shift
    scratch=$(mktemp -d)
    objcopy --strip-debug "$program" "$scratch/program"
    if ! SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$scratch/out" \
        "$scratch/program" "$@" >/dev/null 2>"$scratch/log"; then
        cat "$scratch/log" >&2
        rm -rf "$scratch"
        return 1
    fi
    sed -n 's/^summary: //p' "$scratch/out"
    rm -rf "$scratch"
}
