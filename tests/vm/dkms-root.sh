#!/bin/bash
# dom0's root as a user's Xen host has it after docs/packages.md: the
# testbed image with xfab-dkms and xfab-utils of HEAD installed by apt,
# so DKMS built the modules against the image's own kernel headers into
# /lib/modules/VERSION/updates/dkms. run.py --dkms boots it, with no
# modules on the per-run disk, for the scenarios numbered 300-399.
#
# Usage: tests/vm/dkms-root.sh      build if missing, print its directory
#
# Steps: `make deb` of HEAD in a copy of the Debian 13 build chroot (as
# tests/pkg.sh does), `apt install` of both .debs in a copy of the image's
# chroot, then rootfs.img made from that copy. Cached in
# $XFAB_CACHE/dkms-root-KEY, keyed by this script, the image and HEAD (what
# make deb packages); one is kept, older ones are dropped (each is a
# root filesystem). Progress on stderr; stdout carries only the path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${XFAB_CACHE:-/var/cache/xfab}
t0=$SECONDS
say() { printf '[dkms-root %4ds] %s\n' $((SECONDS - t0)) "$*" >&2; }

image=$("$here"/image.sh | tail -n 1)
head=$(git -C "$top" rev-parse HEAD)
key=$({ cat "$0"; echo "$image $head"; } | sha256sum | cut -c1-16)
out=$cache/dkms-root-$key
[ -f "$out/done" ] && { echo "$out"; exit 0; }
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	say "uncommitted changes are not in it: make deb packages HEAD ($(git -C "$top" log -1 --format=%h))"

work=$(mktemp -d /tmp/xfab-dkms.XXXXXX)
cleanup() {
	local d
	for d in "$work"/build "$work"/root; do
		mountpoint -q "$d/proc" && umount -l "$d/proc"
	done
	rm -rf "$work"
}
trap cleanup EXIT
log=$work/log
fail() {
	say "failed: $*; last lines of its log:"
	tail -n 25 "$log" >&2
	exit 1
}
in_build() { chroot "$work/build" sh -c "$*" >>"$log" 2>&1; }
in_root() { chroot "$work/root" sh -c "$*" >>"$log" 2>&1; }

say "make deb of $(git -C "$top" log -1 --format=%h) in a copy of the Debian 13 build chroot"
"$here"/chroot-copy.sh trixie "$work/build"
git clone -q "$top" "$work/build/src/xfab"
in_build "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends git" || fail "git in the build chroot"
in_build "cd /src/xfab && make deb" || fail "make deb"

say "apt install of both in a copy of the image's root: DKMS builds the modules"
cp -a "$image/chroot" "$work/root"
mount -t proc proc "$work/root/proc"
cp "$work"/build/src/xfab/build/deb/xfab-dkms_*.deb \
	"$work"/build/src/xfab/build/deb/xfab-utils_*_amd64.deb "$work/root/tmp/"
in_root "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	/tmp/xfab-dkms_*.deb /tmp/xfab-utils_*.deb && apt-get clean && rm /tmp/xfab-*.deb" ||
	fail "apt install in the image's root"
kver=$(cat "$image/kver")
n=$(find "$work/root/lib/modules/$kver/updates/dkms" -name 'xfab_*.ko*' 2>/dev/null | wc -l)
[ "$n" = 5 ] || fail "DKMS installed $n of the 5 modules for $kver"
umount -l "$work/root/proc"

say "rootfs.img from it"
rm -rf "$cache"/dkms-root-*
mkdir -p "$out"
mkfs.ext4 -q -F -L xfabroot -d "$work/root" "$out/rootfs.img" 6G >&2
cp "$log" "$out/build.log"
touch "$out/done"
say "ready: $(ls "$work/root/lib/modules/$kver/updates/dkms" | tr '\n' ' ')"
echo "$out"
