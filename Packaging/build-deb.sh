#!/usr/bin/env bash
# Builds the Debian package of VitalBridge, vitalbridge_<version>_<arch>.deb, into OUTDIR:
#   bash Packaging/build-deb.sh OUTDIR           the release build: the package to ship
#   bash Packaging/build-deb.sh --debug OUTDIR   the debug build `swift test` made, its vitalbridge static in the
#                                                Swift runtime: CI's check of the package, with no build of its own
# From a checkout, with no network: the Swift packages come from SwiftPM's cache as for any build. It holds
#   /usr/bin/vitalbridge                                   the release build, static in the Swift runtime and
#                                                          Foundation, so it runs where no Swift is installed
#   /usr/share/man/man1/vitalbridge*.1.gz                  a page per command, from ArgumentParser's generate-manual
#   /usr/share/{bash-completion,zsh,fish}/…                the completion scripts ArgumentParser writes
#   /usr/share/applications/vitalbridge.desktop            the URL handler, as install-handler writes it per user
#   /usr/lib/systemd/user/vitalbridge.service              `serve`: the hub on its own, as a user service
#   /usr/lib/systemd/user/vitalbridge-follow@.service      `band follow` for one band, as a user service
#   /usr/lib/systemd/user/vitalbridge-sink.service         `sink follow` for the home's sinks, as a user service
# The version is what the built binary's --version says, the architecture dpkg's. Needs dpkg-dev (dpkg-shlibdeps
# works out Depends), desktop-file-utils and xdg-utils (install-handler validates and registers the entry).
# The package has no maintainer scripts: dpkg's triggers of man-db and desktop-file-utils index the pages and the
# entry, and nothing of it touches a user's home, so removing it leaves every home as it was.
set -euo pipefail

configuration=release
if [ "${1:-}" = --debug ]; then
    configuration=debug
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: bash Packaging/build-deb.sh [--debug] OUTDIR" >&2
    exit 2
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# what the build runs besides Swift, each named with its Debian package when missing
for need in dpkg-shlibdeps:dpkg-dev dpkg-deb:dpkg desktop-file-validate:desktop-file-utils xdg-mime:xdg-utils \
    objdump:binutils strip:binutils gzip:gzip; do
    command -v "${need%%:*}" >/dev/null 2>&1 || {
        echo "error: ${need%%:*} is missing: sudo apt-get install ${need#*:}" >&2
        exit 1
    }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the tree of the package laid out as in a source package (debian/<package>), where dpkg-shlibdeps expects it
root="$work/source/debian/vitalbridge"

echo "== the $configuration binary (static Swift runtime)" >&2
# The release build (Packaging/release-build.sh), in a scratch folder of its own: .build/release holds the dynamic
# release build of the benchmark scripts, and switching one folder between the two recompiles everything (4 minutes
# here). The folder is the one of Benchmarks/open-latency.sh's and lean-binary.sh's static build. The man pages'
# generation tool is built there with the same flags, so the two products share one configuration.
source Packaging/release-build.sh
build=("${release_build[@]}")
if [ "$configuration" = debug ]; then
    # the debug build with vitalbridge static in the Swift runtime (VITALBRIDGE_STATIC_DEBUG, Package.swift): after
    # CI's debug build, which links it so, nothing to do; after another, a link
    export VITALBRIDGE_STATIC_DEBUG=1
    build=(swift build --manifest-cache none)
fi
"${build[@]}" --product vitalbridge >&2
"${build[@]}" --product generate-manual >&2
bin=$("${build[@]}" --show-bin-path)
tool="$bin/vitalbridge"
# `--version` says `0.15.0 (store schema 12)`: the release is its first word
version=$("$tool" --version)
version=${version%% *}
arch=$(dpkg --print-architecture)
maintainer="VitalBridge maintainers <maintainers@users.noreply.a-seed-627ebe98.example>"
# what the package ships is the static binary: never the toolchain's dynamic runtime
if objdump -p "$tool" | grep -E 'NEEDED +lib(swift|Foundation|dispatch|BlocksRuntime|systemd)' >&2; then
    echo "error: $tool links the libraries above; the package needs a binary static in the Swift runtime" >&2
    exit 1
fi

install -d "$root/usr/bin"
# without the symbol table and debug information (40 % of the file); the Swift runtime finds its metadata in
# sections that strip keeps
strip --strip-unneeded -o "$root/usr/bin/vitalbridge" "$tool"
chmod 755 "$root/usr/bin/vitalbridge"
packaged="$root/usr/bin/vitalbridge"

echo "== man pages (ArgumentParser's generate-manual, a page per command)" >&2
# The tool behind ArgumentParser's generate-manual plugin, run on the binary shipped. The plugin itself
# (`swift package generate-manual --multi-page`) makes the same pages, offline too, but first builds every product
# of the package in release without --static-swift-stdlib: a second whole release build. lintian warns about these
# pages (bad-whatis-entry: a subcommand's NAME is several words, which lexgrog cannot index; groff's empty input
# lines): that is the generator's mdoc, left as it is; `man vitalbridge.band.follow` reads them fine.
install -d "$work/man" "$root/usr/share/man/man1"
# dated by the commit, so that two builds of one commit make the same pages
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
"$bin/generate-manual" "$packaged" --multi-page --date "$date" --output-directory "$work/man" >&2
for page in "$work/man"/*.1; do
    gzip -9n <"$page" >"$root/usr/share/man/man1/$(basename "$page").gz"
done

echo "== shell completions" >&2
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# bash-completion sources the script, so ArgumentParser's #! line would only mislead
"$packaged" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/vitalbridge"
"$packaged" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_vitalbridge"
"$packaged" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/vitalbridge.fish"

echo "== the URL handler's desktop entry" >&2
# install-handler's own entry (its schemes stay the ones the code handles), written under a scratch user, with the
# packaged path as its command and without the defaults it keeps for uninstall-handler, which a system entry has not
# replaced. A user's own install-handler entry has the same name and takes precedence over this one.
user="$work/user"
mkdir -p "$user"
HOME="$user" XDG_DATA_HOME="$user/data" XDG_CONFIG_HOME="$user/config" "$packaged" install-handler >&2
install -d "$root/usr/share/applications"
entry="$root/usr/share/applications/vitalbridge.desktop"
sed -e 's|^Exec=.*|Exec=/usr/bin/vitalbridge open --deliver %u|' -e '/^X-VitalBridge-Previous-Defaults=/d' \
    "$user/data/applications/vitalbridge.desktop" >"$entry"
grep -q '^MimeType=x-scheme-handler/ihealth-layer;' "$entry"
desktop-file-validate "$entry"

echo "== the systemd user units" >&2
install -d "$root/usr/lib/systemd/user"
install -m 644 Packaging/vitalbridge.service Packaging/vitalbridge-follow@.service Packaging/vitalbridge-sink.service \
    "$root/usr/lib/systemd/user/"

echo "== copyright and changelog" >&2
install -d "$root/usr/share/doc/vitalbridge"
install -m 644 Packaging/copyright "$root/usr/share/doc/vitalbridge/copyright"
# Debian wants a changelog in every package; the history itself is the repository's
stamp=$(git log -1 --format=%aD 2>/dev/null || date -R)
printf 'vitalbridge (%s) unstable; urgency=medium\n\n  * Release %s from commit %s: see the repository'"'"'s history.\n\n -- %s  %s\n' \
    "$version" "$version" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$maintainer" "$stamp" |
    gzip -9n >"$root/usr/share/doc/vitalbridge/changelog.gz"

echo "== DEBIAN/control" >&2
# Depends: what the binary's shared libraries need, with the lowest versions their symbols say (libc6, libsqlite3-0,
# libstdc++6, libgcc-s1); dpkg-shlibdeps reads a source package's debian/control, so it runs in a scratch one.
install -d "$root/DEBIAN"
printf 'Source: vitalbridge\n\nPackage: vitalbridge\nArchitecture: any\n' >"$work/source/debian/control"
depends=$(cd "$work/source" && dpkg-shlibdeps -O "${packaged#"$work/source/"}" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "error: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# libsystemd0: sd-bus, loaded at run time only to reach BlueZ; bluez: the real devices. Everything else works
# without them.
cat >"$root/DEBIAN/control" <<EOF
Package: vitalbridge
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: libsystemd0, bluez
Section: utils
Priority: optional
Description: open hub for vital signs between health apps and measuring devices
 VitalBridge speaks the iHealth layered-app protocol: a health app opens an
 ihealth-layer:// URL, and the hub adds the device, measures or syncs its
 records, keeps what it read in a private home, and answers with the caller's
 callback URL. It is also a ShareVitalSigns provider and requester and a
 Welltory DDS provider, and follows smartbands' pushes.
 .
 Devices are reached through BlueZ (with libsystemd0's sd-bus), or simulated.
EOF
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"

deb="$out/vitalbridge_${version}_${arch}.deb"
# owned by root whoever builds it, without fakeroot
# (a debug binary is three times the size, and xz takes a minute on it: CI's check packs it fast instead)
compression=(-Zxz)
[ "$configuration" = debug ] && compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$deb" >&2
echo "$deb"
