# The release build the Debian package ships, defined once: sourced by Packaging/build-deb.sh and by the benchmarks
# that measure that binary (Benchmarks/lean-binary.sh, open-latency.sh, speed-tricks.sh). From the repository root:
#   source Packaging/release-build.sh && "${release_build[@]}" --product vitalbridge
#
# - `--static-swift-stdlib`: the Swift runtime and Foundation linked in, so that the binary runs where no Swift is
#   installed.
# - `-disable-concrete-type-metadata-mangled-name-accessors`, for every module, the dependencies too (which only
#   the command line reaches; Package.swift's settings stop at this package's targets): the code asks for a generic
#   type's metadata through its accessor, with the conformances it needs, instead of through its mangled name. A
#   mangled name makes the runtime check each conformance the type's requirements name (`Key: Hashable` for a
#   `Dictionary`) by scanning every conformance record of the binary, about 10,400, the first time each is met. That
#   was 16 scans in one `open`, 27 % of its instructions (callgrind, 2026-12-01: 21.2 M instructions before, 16.5 M
#   after; Benchmarks/README.md, "Metadata accessors"). The binary grows by 0.4 MB. Benchmarks/speed-tricks.sh puts it on
#   trial against the same sources built without it.
# - its own scratch folder: a folder switched between builds of other flags recompiles everything.
static_flags=(--static-swift-stdlib)
accessor_flags=(-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
release_flags=("${static_flags[@]}" "${accessor_flags[@]}")
release_scratch=.build-static
release_build=(swift build -c release "${release_flags[@]}" --scratch-path "$release_scratch")
