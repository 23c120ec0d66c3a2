#!/usr/bin/env bash
# Builds VitalBridge's libFuzzer targets with AddressSanitizer and runs them over the committed seed corpus.
#
#   bash Fuzz/fuzz.sh ci                 every target for FUZZ_SECONDS (default 25) seconds: what CI runs
#   bash Fuzz/fuzz.sh long [RUNS]        every target for RUNS executions (default 10,000,000), a release build;
#                                        writes the figures to Fuzz/long-run.md
#   bash Fuzz/fuzz.sh run TARGET [ARGS]  one target, with libFuzzer's own arguments (e.g. -max_total_time=60)
#   bash Fuzz/fuzz.sh replay TARGET FILE… the target on these inputs alone (a crash it saved, to check a fix)
#
# New inputs go to .build/fuzz-corpus/<target>, never into the committed Fuzz/Corpus. A crash stops the run with
# exit 1 and leaves the input as .build/fuzz-crashes/<target>/crash-<sha1>; turn it into a regression test in the
# main package (DEVELOPERS.md, "Fuzzing").
set -euo pipefail
origin=$PWD
cd "$(dirname "$0")"
export SWIFT_BACKTRACE=enable=no

targets=(FuzzRequest FuzzCallback FuzzHealthGATT FuzzJSON FuzzFleet FuzzWhitelist FuzzSmartband FuzzSealedBox FuzzDDS
    FuzzFeedCursor FuzzSinkAddress FuzzDBus)
mode=${1:-ci}
configuration=debug
[ "$mode" = long ] && configuration=release

# swiftc passes only the last -sanitize= flag it is given to the compiler: `--sanitize=fuzzer --sanitize=address`
# alone builds Swift code without coverage (libFuzzer then warns "Is the code instrumented for coverage?" and finds
# nothing). The combined flag after them is the one the compiler sees; SwiftPM's own flags still link both runtimes
# and instrument the C code (swift-crypto's BoringSSL).
sanitize=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)

build() {
    local log
    log=$(mktemp)
    # ld.gold warns once per ASan symbol it cannot export; keep the log for a failure only
    if ! swift build -c "$configuration" "${sanitize[@]}" >"$log" 2>&1; then
        grep -v 'ld.gold: warning' "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
    binaries=$(swift build -c "$configuration" "${sanitize[@]}" --show-bin-path)
}

# Runs target $1 with libFuzzer arguments $2…; prints "target executions seconds" on success.
run() {
    local target=$1
    shift
    local scratch=.build/fuzz-corpus/$target crashes=.build/fuzz-crashes/$target log
    mkdir -p "$scratch" "$crashes"
    log=$(mktemp)
    local start=$SECONDS
    if ! "$binaries/$target" "$scratch" "Corpus/$target" -artifact_prefix="$crashes/" -print_final_stats=1 \
        -max_len=4096 "$@" >"$log" 2>&1; then
        echo "error: $target crashed or broke a property; its input is in Fuzz/$crashes:" >&2
        grep -E 'property broken|Fatal error|ERROR: AddressSanitizer|SUMMARY|Test unit written|Base64' "$log" >&2 || tail -40 "$log" >&2
        rm -f "$log"
        exit 1
    fi
    local executions
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rm -f "$log"
    echo "$target $executions $((SECONDS - start))"
}

case "$mode" in
ci)
    build
    for target in "${targets[@]}"; do run "$target" -max_total_time="${FUZZ_SECONDS:-25}"; done
    ;;
long)
    runs=${2:-10000000}
    # the commit the binaries are built from, taken now: the run lasts an hour and the tree may move on meanwhile
    commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- .. || echo ' (with uncommitted changes)')
    build
    {
        echo "| Target | Executions | Seconds | Executions/s |"
        echo "| --- | ---: | ---: | ---: |"
        for target in "${targets[@]}"; do
            read -r name executions seconds < <(run "$target" -runs="$runs" -fork=0)
            echo "| $name | $executions | $seconds | $((executions / (seconds > 0 ? seconds : 1))) |"
        done
    } | tee .build/long-run.partial
    {
        echo "Last long run: \`bash Fuzz/fuzz.sh long $runs\` at commit $commit, $(date -u +%Y-%m-%d),"
        echo "$(nproc) cores, release build with AddressSanitizer: no crash, no broken property."
        echo
        cat .build/long-run.partial
    } >long-run.md
    rm -f .build/long-run.partial
    ;;
run)
    target=${2:?usage: fuzz.sh run TARGET [libFuzzer arguments]}
    shift 2
    build
    run "$target" "$@"
    ;;
replay)
    target=${2:?usage: fuzz.sh replay TARGET FILE...}
    shift 2
    [ $# -gt 0 ] || { echo "usage: fuzz.sh replay TARGET FILE..." >&2; exit 2; }
    inputs=()
    for input in "$@"; do
        case "$input" in /*) inputs+=("$input") ;; *) inputs+=("$origin/$input") ;; esac
    done
    build
    "$binaries/$target" "${inputs[@]}"
    ;;
*)
    echo "usage: fuzz.sh ci | long [RUNS] | run TARGET [ARGS] | replay TARGET FILE..." >&2
    exit 2
    ;;
esac
