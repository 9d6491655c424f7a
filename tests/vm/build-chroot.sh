#!/bin/bash
# A build-only chroot of a Debian release with its kernel headers and
# sparse, for the compile check against kernels the testbed does not boot
# (Debian 12's 6.1) and for make sparse (Debian 13's 6.12).
# Cached like the image, keyed by this script, in $XFAB_CACHE/build-SUITE-KEY.
#
# Usage: tests/vm/build-chroot.sh SUITE      prints the chroot directory
set -euo pipefail
suite=${1:?usage: build-chroot.sh SUITE}
case $suite in
bookworm | trixie) ;;
*) echo "build-chroot.sh: unsupported suite '$suite' (bookworm, trixie)" >&2; exit 2 ;;
esac
cache=${XFAB_CACHE:-/var/cache/xfab}
mirror=${XFAB_MIRROR:-http://deb.debian.org/debian}
key=$(sha256sum "$0" | cut -c1-12)
out=$cache/build-$suite-$key
[ -f "$out/.done" ] && { echo "$out"; exit 0; }

mkdir -p "$cache"
exec 9>"$cache/.lock-$suite"
flock 9
[ -f "$out/.done" ] && { echo "$out"; exit 0; }
log=$cache/build-$suite-$key.log
t0=$SECONDS
echo "[chroot $suite] building $out (log: $log)" >&2
rm -rf "$out"
umounts() { mountpoint -q "$out/proc" && umount -l "$out/proc"; return 0; }
trap 'umounts; echo "build chroot failed; last lines of $log:" >&2; tail -n 20 "$log" >&2' ERR
debootstrap --variant=minbase "$suite" "$out" "$mirror" >"$log" 2>&1
echo "[chroot $suite] debootstrap done ($((SECONDS - t0))s); installing headers" >&2
mount -t proc proc "$out/proc"
# sparse: make sparse checks against this chroot's headers (trixie)
chroot "$out" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	--no-install-recommends linux-headers-amd64 make gcc libc6-dev sparse \
	>>"$log" 2>&1
chroot "$out" apt-get clean
umounts
touch "$out/.done"
echo "[chroot $suite] ready ($((SECONDS - t0))s): $(ls "$out/usr/src" | grep amd64 | tr '\n' ' ')" >&2
echo "$out"
