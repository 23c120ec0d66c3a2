#!/usr/bin/env python3
"""Fails naming every Swift file that imports a module its target does not declare.

A target that imports a module it does not depend on builds only when another target happens to build that module
first: `swift test` then fails on a fresh clone and passes on the second run. For each package given (a folder with
a Package.swift), this reads the targets and their dependencies from `swift package dump-package` and compares them
with the `import` lines of each target's Swift files. The platform's modules (Foundation, Glibc, Testing, …) need
no declaration.
"""
import json
import pathlib
import re
import subprocess
import sys

PLATFORM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl",
    "Darwin", "Android", "WinSDK", "Testing", "XCTest", "Synchronization", "_Concurrency", "Observation", "os",
    "RegexBuilder", "Distributed", "_StringProcessing", "CoreFoundation", "PackagePlugin", "PackageDescription",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
    r"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def declared(dependency):
    """The module names a dependency entry of dump-package makes importable."""
    for kind in ("byName", "target"):
        if kind in dependency:
            return {dependency[kind][0]}
    if "product" in dependency:
        return {dependency["product"][0]}
    return set()


def check(package_dir):
    package_dir = pathlib.Path(package_dir)
    dump = json.loads(
        subprocess.run(["swift", "package", "dump-package"], cwd=package_dir, check=True, capture_output=True).stdout)
    problems = []
    for target in dump["targets"]:
        if target["type"] in ("plugin", "binary", "system"):
            continue
        default = "Tests" if target["type"] == "test" else "Sources"
        folder = package_dir / (target.get("path") or f"{default}/{target['name']}")
        allowed = {target["name"]} | PLATFORM
        for dependency in target["dependencies"]:
            allowed |= declared(dependency)
        for source in sorted(folder.rglob("*.swift")):
            in_string = False  # inside a multi-line string literal (a Python script a test runs, say)
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                match = None if in_string else IMPORT.match(line)
                in_string ^= line.count('"""') % 2 == 1
                if match and match.group(1) not in allowed:
                    problems.append(
                        f"{source.relative_to(package_dir)}:{number}: imports {match.group(1)}, "
                        f"which the target {target['name']} does not declare in Package.swift")
    return problems


problems = [problem for package in (sys.argv[1:] or ["."]) for problem in check(package)]
for problem in problems:
    print("error: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print("ok: every target declares every module it imports")
