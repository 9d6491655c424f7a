#!/bin/bash
# The packages, used the way docs/packages.md says (make check-full; as
# root, a few minutes with the build chroots cached):
#   1. a copy of the Debian 13 build chroot stands for a fresh trixie
#      host with headers: `make deb` there (as root: it installs its
#      build's packages), both .debs built, lintian finds no error and
#      no warning;
#   2. apt installs them: DKMS builds and installs the five modules for
#      the chroot's 6.12 kernel in updates/dkms;
#   3. xfab-enable: refuses a kernel without the modules; backend and
#      frontend write their files with the stock modules redirected to
#      ours, and the initramfs gets xfab_blkfront and loads it; --off
#      removes them all;
#   4. the xfab-dkms .deb in a copy of the Debian 12 build chroot: DKMS
#      builds the five for 6.1.
# Prints PASS/FAIL per check and ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/xfab-pkg.XXXXXX)
. "$top"/tests/checks.sh
cleanup() {
	local d
	for d in "$work"/13 "$work"/12; do
		mountpoint -q "$d/proc" && umount -l "$d/proc"
	done
	rm -rf "$work"
}
trap cleanup EXIT
chroot_copy() { "$top"/tests/vm/chroot-copy.sh "$@"; }
in13() { chroot "$work/13" sh -c "$*"; }
in12() { chroot "$work/12" sh -c "$*"; }
# the five modules DKMS installed for kernel $2 in chroot $1
five_modules() {
	local n
	n=$(find "$1/lib/modules/$2/updates/dkms" -name 'xfab_*.ko*' 2>/dev/null | wc -l)
	echo "  $n xfab modules in $1/lib/modules/$2/updates/dkms"
	[ "$n" = 5 ]
}

echo "[pkg] chroots"
chroot_copy trixie "$work/13" || { bad "Debian 13 chroot"; finish; }
chroot_copy bookworm "$work/12" || { bad "Debian 12 chroot"; finish; }
git clone -q "$top" "$work/13/src/xfab" || { bad "clone into the chroot"; finish; }

echo "[pkg] make deb (Debian 13)"
in13 "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git lintian >/dev/null" ||
	{ bad "git and lintian in the chroot"; finish; }
check "make deb: both packages built, lintian without errors" \
	in13 "cd /src/xfab && make deb"
debs=$work/13/src/xfab/build/deb
ls "$debs"/xfab-dkms_*.deb "$debs"/xfab-utils_*_amd64.deb >/dev/null 2>&1 || finish
# make deb stops on lintian's errors only (a user's lintian may be newer);
# our own packages must not draw its warnings either (manual pages and all)
check "lintian: no warnings" \
	in13 "lintian --fail-on error,warning /src/xfab/build/deb/*.changes"

echo "[pkg] apt install (Debian 13)"
kver13=$(ls "$work/13/lib/modules" | head -n 1)
check "apt install of xfab-dkms and xfab-utils" \
	in13 "cd /src/xfab/build/deb && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./xfab-dkms_*.deb ./xfab-utils_*_amd64.deb >/tmp/apt.log 2>&1 || { tail -n 20 /tmp/apt.log; exit 1; }"
check "DKMS built the five modules for $kver13" five_modules "$work/13" "$kver13"

echo "[pkg] xfab-enable"
out=$(in13 "xfab-enable --kernel 0.0-none backend" 2>&1)
check "xfab-enable refuses a kernel without the modules" \
	grep -q "not installed for kernel 0.0-none" <<<"$out"
check "xfab-enable backend frontend" \
	in13 "xfab-enable --kernel $kver13 backend frontend >/dev/null"
check "modprobe.d: stock backend redirected to ours" \
	grep -qx "install xen_netback /sbin/modprobe xfab_netback" "$work/13/etc/modprobe.d/xfab.conf"
check "modprobe.d: stock frontend blacklisted" \
	grep -qx "blacklist xen_blkfront" "$work/13/etc/modprobe.d/xfab.conf"
check "modules-load.d: the four drivers" \
	test "$(grep -c '^xfab_' "$work/13/etc/modules-load.d/xfab.conf")" = 4
check "initramfs: xfab_blkfront in it, and loaded there" \
	sh -c "chroot '$work/13' lsinitramfs /boot/initrd.img-$kver13 | grep -q 'xfab_blkfront.ko' &&
		chroot '$work/13' sh -c 'unmkinitramfs /boot/initrd.img-$kver13 /tmp/ir && cat /tmp/ir/main/conf/modules /tmp/ir/conf/modules 2>/dev/null' | grep -qx xfab_blkfront"
check "xfab-enable --status" \
	sh -c "chroot '$work/13' xfab-enable --status | grep -qx 'xfab on for: backend frontend'"
check "xfab-enable --off removes its files" \
	sh -c "chroot '$work/13' xfab-enable --kernel $kver13 --off >/dev/null &&
		! ls '$work/13/etc/modprobe.d/xfab.conf' '$work/13/etc/modules-load.d/xfab.conf' '$work/13/etc/xfab/roles' 2>/dev/null"

echo "[pkg] xfab-dkms on Debian 12"
cp "$debs"/xfab-dkms_*.deb "$work/12/tmp/"
kver12=$(ls "$work/12/lib/modules" | head -n 1)
check "apt install of xfab-dkms (Debian 12)" \
	in12 "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/xfab-dkms_*.deb >/tmp/apt.log 2>&1 || { tail -n 20 /tmp/apt.log; exit 1; }"
check "DKMS built the five modules for $kver12" five_modules "$work/12" "$kver12"
finish
