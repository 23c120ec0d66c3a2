#!/usr/bin/env bash
# Runs every test with ThreadSanitizer: the package, its tests and the vitalbridge binary the CLI tests start are
# built with --sanitize=thread into .build-tsan, so the normal build is kept. Exits 1 if any test fails or TSan
# reports anything (a child vitalbridge with a report exits 66, which fails its test too).
#
# The whole suite is too slow for CI's budget (about 29 minutes here against a few for `swift test`), so CI runs
# the suites whose code shares state across threads (.ci/run names them) and the whole suite runs on demand:
#   bash Tests/tsan.sh            # the whole suite; the log is .build-tsan/tsan.log
#   bash Tests/tsan.sh 'BlueZ'    # the suites matching a filter (a regular expression over the tests' names)
#   bash Tests/tsan.sh --build    # the build alone (CI starts it beside the debug build)
#   TSAN_PREBUILT=1 bash Tests/tsan.sh 'BlueZ'   # run what --build made, without building
#
# Last whole run, 2026-11-28, at commit aa5df9d: 869 tests in 162 suites passed in 1,736 s (a fuzz run on the other
# core), no ThreadSanitizer report. The runs before: 2026-11-24 at c29dca7 (435 tests) clean; 029064d had 8 reports,
# all fixed since (DEVELOPERS.md, "Thread Sanitizer"): seven were accesses under one Synchronization.Mutex, whose
# futex TSan does not see (shared state is now Locking's Locked, a pthread mutex), and one a D-Bus reply handed to a
# task inside a continuation resumed before the task suspended (DBusConnection's Handoff now passes it under a lock).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-tsan
if [ "${TSAN_PREBUILT:-0}" != 1 ]; then
    # line tables only: a report still names each frame's file and line, and the build costs about 6 % less
    swift build --build-tests --sanitize=thread --scratch-path .build-tsan -Xswiftc -gline-tables-only
fi
[ "${1:-}" = --build ] && exit 0
filter=()
[ $# -gt 0 ] && filter=(--filter "$1")
set +e
TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}" .build-tsan/debug/VitalBridgePackageTests.xctest \
    --testing-library swift-testing "${filter[@]}" >.build-tsan/tsan.log 2>&1
status=$?
set -e
reports=$(grep -c 'WARNING: ThreadSanitizer' .build-tsan/tsan.log || true)
grep -E 'Test run with' .build-tsan/tsan.log | tail -1
echo "ThreadSanitizer reports: $reports (log: .build-tsan/tsan.log)"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
