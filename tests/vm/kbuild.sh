#!/bin/bash
# Build the kernel modules and the testbed helpers inside a Debian chroot,
# against that chroot's own linux-headers, so that the kernel a module is
# loaded into and the headers it was built against never drift apart.
#
# Usage: tests/vm/kbuild.sh CHROOT OUTDIR [--no-helpers]
# Leaves OUTDIR/modules/*.ko and OUTDIR/helpers/* (helpers need the image).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ch=$1 out=$2 helpers=${3:-}
kdir=$(cd "$ch/usr/src" && ls -d linux-headers-*-amd64 | sort -V | tail -n 1)
src=$ch/tmp/xfab-build
# one build per chroot at a time: they share the build directory and the
# /proc mount (two at once overwrote each other's modules, and the first
# to finish unmounted /proc under the other)
exec 9>"$ch/tmp/.xfab-kbuild.lock"
flock 9
rm -rf "$src"
mkdir -p "$src" "$out/modules" "$out/helpers"
(cd "$top" && tar cf - Makefile common toolstack tests/peer tests/hostile tests/wnprobe tests/vm/helpers \
	$(ls -d netfront netback blkfront blkback window 2>/dev/null)) | tar xf - -C "$src"
mountpoint -q "$ch/proc" || mount -t proc proc "$ch/proc"
trap 'umount -l "$ch/proc" 2>/dev/null || true' EXIT
# XFAB_KMAKE_ARGS: extra kbuild variables (make sparse passes C=2)
chroot "$ch" make -s -C /tmp/xfab-build modules test-modules XFAB_WERROR=y KDIR="/usr/src/$kdir" ${XFAB_KMAKE_ARGS:-}
find "$src" -name '*.ko' -exec cp {} "$out/modules/" \;
if [ "$helpers" != --no-helpers ]; then
	chroot "$ch" make -s -C /tmp/xfab-build helpers XFAB_WERROR=y HELPERS_OUT=/tmp/xfab-build/helpers-out
	cp "$src"/helpers-out/* "$out/helpers/"
fi
echo "built against $kdir: $(cd "$out/modules" && ls | tr '\n' ' ')"
