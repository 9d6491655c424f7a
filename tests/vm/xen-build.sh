#!/bin/bash
# Build (or find in the cache) the hypervisor with xen-patches/ applied:
# Xen 4.20.4's xen/ only (Debian's tools stay), with Debian's own config
# (/boot/xen-4.20-amd64.config of the testbed image), in the image chroot.
#
# Usage: tests/vm/xen-build.sh            build if missing, print the dir
#        tests/vm/xen-build.sh --path     print the dir, build nothing
#
# Output, in $XFAB_CACHE/xen-<key>/: xen (the multiboot ELF QEMU boots),
# config, build.log. The key hashes every input: the tarball's sha256,
# the series and its patches, Debian's config, this script.
#
# The source: Debian's mirror serves no source packages, so the tarball
# is looked for in $XFAB_XEN_TARBALL, then in the cache ($XFAB_CACHE/src/,
# where a tarball found elsewhere is kept), then in ../shared/src/ beside
# the repo; or fetch it from https://downloads.xenproject.org/release/xen/4.20.4/.
# xen-patches/SOURCE names the one tested: a cached build of it is used
# without the tarball. Exit 2: no source and no cached build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${XFAB_CACHE:-/var/cache/xfab}
patches=$top/xen-patches
read -r src_name _ src_sha < <(grep -v '^#' "$patches/SOURCE")
tarball=
for t in "${XFAB_XEN_TARBALL:-}" "$cache/src/$src_name" "$top/../shared/src/$src_name"; do
	[ -n "$t" ] && [ -f "$t" ] && { tarball=$t; break; }
done

say() { printf '[xen %4ds] %s\n' $((SECONDS - t0)) "$*" >&2; }
t0=$SECONDS

[ -f "$patches/series" ] || { echo "xen-build.sh: $patches/series missing" >&2; exit 1; }
sha=$src_sha
if [ -n "$tarball" ]; then
	sha=$(sha256sum "$tarball" | cut -c1-64)
	[ "$sha" = "$src_sha" ] ||
		say "note: $tarball is not the tested $src_name (sha256 $src_sha)"
fi
image=$("$here/image.sh")
ch=$image/chroot
config=$(ls "$ch"/boot/xen-4.20*.config 2>/dev/null | head -n 1)
[ -n "$config" ] || { echo "xen-build.sh: no Xen config in $ch/boot" >&2; exit 1; }

series=$(grep -v '^#' "$patches/series" | sed '/^\s*$/d')
key=$( { echo "$sha"; echo "$series"
	for p in $series; do cat "$patches/$p"; done
	cat "$config" "$0"; } | sha256sum | cut -c1-16)
out=$cache/xen-$key
# --path builds nothing; a finished build is reused
if [ "${1:-}" = --path ] || [ -f "$out/done" ]; then
	echo "$out"
	exit 0
fi

[ -n "$tarball" ] || {
	echo "xen-build.sh: no Xen source ($src_name) and no cached build; set XFAB_XEN_TARBALL to Xen 4.20.4's tarball (https://downloads.xenproject.org/release/xen/4.20.4/)" >&2
	exit 2
}
mkdir -p "$cache/src"
[ "$sha" = "$src_sha" ] && [ ! -f "$cache/src/$src_name" ] && cp "$tarball" "$cache/src/$src_name"
exec 9>"$cache/.xen-lock"
flock 9
[ -f "$out/done" ] && { echo "$out"; exit 0; }

src=$ch/tmp/xfab-xen
log=$cache/xen-$key.log
rm -rf "$src" "$out"
mkdir -p "$src" "$out"
say "unpacking $(basename "$tarball") (xen/ only)"
topdir=$(tar taf "$tarball" 2>/dev/null | head -n 1 | cut -d/ -f1 || true)
tar xaf "$tarball" -C "$src" --strip-components=1 \
	"$topdir/xen" "$topdir/Config.mk" "$topdir/config" "$topdir/scripts" "$topdir/version.sh"
for p in $series; do
	say "applying $p"
	patch -d "$src" -p1 --quiet --no-backup-if-mismatch <"$patches/$p" || {
		echo "xen-build.sh: $p does not apply to $(basename "$tarball")" >&2
		exit 1
	}
done
cp "$config" "$src/xen/.config"
mountpoint -q "$ch/proc" || mount -t proc proc "$ch/proc"
trap 'umount -l "$ch/proc" 2>/dev/null || true' EXIT
say "building with Debian's config (2 jobs; log: $log)"
# XEN_VENDORVERSION marks the build: `xl info` shows it in xen_extra.
chroot "$ch" make -C /tmp/xfab-xen/xen olddefconfig >"$log" 2>&1
chroot "$ch" make -C /tmp/xfab-xen/xen -j2 XEN_VENDORVERSION=-xfab \
	>>"$log" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	sleep 20
	kill -0 $pid 2>/dev/null &&
		say "... $(grep -c '^\s*CC' "$log") files compiled"
done
wait $pid || { tail -n 30 "$log" >&2; echo "xen-build.sh: build failed (log: $log)" >&2; exit 1; }
cp "$src/xen/xen" "$out/xen"
cp "$src/xen/.config" "$out/config"
cp "$log" "$out/build.log"
rm -rf "$src"
touch "$out/done"
say "hypervisor ready: $out/xen"
echo "$out"
