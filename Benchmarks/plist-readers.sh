#!/usr/bin/env bash
# The cost of reading AppWhiteList.plist once in a fresh process, as `vitalbridge open` does on every request:
# swift-foundation's PropertyListDecoder against VitalBridge's own reader (the first decode in the process, which
# includes each reader's first-use costs), medians of 200 alternated runs. Run from the repository root:
#   bash Benchmarks/plist-readers.sh
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product plist-foundation >/dev/null
swift build -c release --product plist-vitalbridge >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/AppWhiteList.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>com.example.diary</key>
	<string>diary://</string>
	<key>org.vitalbridge.demo</key>
	<string>vitalbridge-demo://</string>
</dict>
</plist>
PLIST
for _ in $(seq 1 200); do
    echo "foundation $(.build/release/plist-foundation "$work/AppWhiteList.plist" 2>&1 >/dev/null)"
    echo "vitalbridge $(.build/release/plist-vitalbridge "$work/AppWhiteList.plist" 2>&1 >/dev/null)"
done >"$work/times"
python3 - "$work/times" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    reader, value, _ = line.split()
    times.setdefault(reader, []).append(int(value))
for reader, values in times.items():
    print(f"{reader:11} first decode: median {statistics.median(values):.0f} µs over {len(values)} processes")
PY
