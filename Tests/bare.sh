#!/usr/bin/env bash
# Runs the README's test command as on a machine with only the Swift toolchain: in a private mount namespace, the
# programs and the library some tests need (dbus-daemon, strace, Chromium, Python, xdg-utils, gio,
# desktop-file-utils, libsystemd) are covered by /dev/null, and the oracles' virtual environment by an empty folder.
# Every test must pass or be skipped saying what it needs; CI's own run (VITALBRIDGE_TESTS_REQUIRE_ALL=1) skips none.
# Needs root (unshare -m). Arguments go to swift test (e.g. --skip-build).
set -euo pipefail
cd "$(dirname "$0")/.."
exec unshare -m bash -s -- "$@" <<'INNER'
set -euo pipefail
for program in dbus-daemon strace chromium python3 xdg-mime xdg-open gio desktop-file-validate; do
    for found in /usr/bin/$program /usr/local/bin/$program; do
        [ -e "$found" ] && mount --bind /dev/null "$found"
    done
done
for library in /usr/lib/*/libsystemd.so.0 /lib/*/libsystemd.so.0; do
    [ -e "$library" ] && mount --bind /dev/null "$(readlink -f "$library")"
done
mkdir -p .oracles
mount -t tmpfs none .oracles
# Python found elsewhere on PATH (pyenv, a venv) is left out with it
PATH=$(printf '%s\n' "$PATH" | tr ':' '\n' | while read -r folder; do
    [ -x "$folder/python3" ] || printf '%s:' "$folder"
done)
export PATH=${PATH%:}
unset VITALBRIDGE_TESTS_REQUIRE_ALL
swift test "$@" 2>&1 | tee .build/bare-test.log
INNER
