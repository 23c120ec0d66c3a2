#!/usr/bin/env bash
# Builds VitalBridge's libFuzzer targets with AddressSanitizer and runs them over the committed seed corpus.
#
#   bash Fuzz/fuzz.sh build              the targets' build alone (CI starts it beside the tests)
#   bash Fuzz/fuzz.sh ci                 every target for FUZZ_SECONDS (default 25) seconds, FUZZ_JOBS (default: the
#                                        cores) at once: what CI runs
#                                        (FUZZ_PREBUILT=1: run what `fuzz.sh build` made, without building)
#   bash Fuzz/fuzz.sh long [RUNS [T…]]   every target (or the targets T…) for RUNS executions (default 10,000,000), a
#                                        release build; writes each target's row of Fuzz/long-run.md (the rows of
#                                        targets not run stay, with their own commit and date)
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
    FuzzFeedCursor FuzzSinkAddress FuzzDBus FuzzMQTT)
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
    local executions corpus
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    # the last status line: "#N DONE cov: C ft: F corp: INPUTS/SIZE … rss: MMb"
    corpus=$(grep -E '^#[0-9]+\s+DONE' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+).* corp: ([0-9]+)\/([0-9a-zA-Z]+).* rss: ([0-9]+Mb).*/\2 \3 \1 \4/')
    rm -f "$log"
    echo "$target $executions $((SECONDS - start)) ${corpus:-? ? ? ?}"
}

case "$mode" in
build)
    build
    ;;
ci)
    # FUZZ_PREBUILT=1: the targets `fuzz.sh build` just made, as CI builds them beside its tests (a second `swift
    # build` here found work to redo each time, about two minutes on two cores, with no source changed)
    if [ "${FUZZ_PREBUILT:-0}" = 1 ]; then
        binaries=$(swift build -c "$configuration" "${sanitize[@]}" --show-bin-path)
    else
        build
    fi
    # one target a core at a time (libFuzzer runs on one thread); each still gets its whole FUZZ_SECONDS
    jobs=${FUZZ_JOBS:-$(nproc)}
    running=0
    failed=0
    for target in "${targets[@]}"; do
        if [ "$running" -ge "$jobs" ]; then
            wait -n || failed=1
            running=$((running - 1))
        fi
        run "$target" -max_total_time="${FUZZ_SECONDS:-25}" &
        running=$((running + 1))
    done
    while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    exit "$failed"
    ;;
long)
    runs=${2:-10000000}
    [ $# -gt 2 ] && targets=("${@:3}")
    # the commit the binaries are built from, taken now: the run lasts an hour and the tree may move on meanwhile
    commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- .. ':(exclude)long-run.md' || echo '+')
    build
    header="| Target | Executions | Seconds | Executions/s | Corpus at the end (inputs, size) | Coverage (edges) | Peak RSS | Commit | Date |"
    for target in "${targets[@]}"; do
        read -r name executions seconds inputs size edges rss < <(run "$target" -runs="$runs" -fork=0)
        row="| $name | $executions | $seconds | $((executions / (seconds > 0 ? seconds : 1))) | $inputs, $size | $edges | $rss | $commit | $(date -u +%Y-%m-%d) |"
        echo "$row"
        # this target's row replaces its last one; the others stay
        {
            grep -E '^\| Fuzz' long-run.md 2>/dev/null | grep -v "^| $name |" || true
            echo "$row"
        } | sort >.build/long-run.rows
        {
            echo "Each row is the last \`bash Fuzz/fuzz.sh long RUNS [TARGET…]\` of its target on $(nproc) cores: a release"
            echo "build with AddressSanitizer (LeakSanitizer on), the committed seeds (\`Fuzz/Corpus/TARGET\`) and what the"
            echo "target's earlier runs found (\`Fuzz/.build/fuzz-corpus/TARGET\`), libFuzzer's defaults otherwise (1,200 s"
            echo "per input before a timeout, 2,048 MB of memory): no crash, no leak, no timeout, no broken property. A commit"
            echo "ending in + had uncommitted changes besides this file."
            echo
            echo "$header"
            echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
            cat .build/long-run.rows
        } >long-run.md
    done
    rm -f .build/long-run.rows
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
    echo "usage: fuzz.sh build | ci | long [RUNS] | run TARGET [ARGS] | replay TARGET FILE..." >&2
    exit 2
    ;;
esac
