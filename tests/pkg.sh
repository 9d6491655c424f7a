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
#   3b. a second installed kernel without our modules (a copy of the
#      chroot's 6.12 with updates/dkms removed: a kernel whose DKMS build
#      failed): xfab-enable and --status name it; modprobe's dry run of
#      every stock name and alias (udev's way too, blacklist applied)
#      gives ours on 6.12 and the stock module on it; its initramfs has
#      the stock frontends and the modprobe.d file, and the redirection
#      run inside that initramfs loads the stock xen-blkfront;
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
# a second installed kernel without our modules, as a kernel upgrade
# whose DKMS build failed leaves it: 6.12's own tree (hard links) without
# updates/dkms, its depmod index, its config (mkinitramfs reads it)
nox=$kver13-noxfab
in13 "cp -al /lib/modules/$kver13 /lib/modules/$nox && rm -rf /lib/modules/$nox/updates /lib/modules/$nox/build /lib/modules/$nox/source &&
	depmod $nox && cp /boot/config-$kver13 /boot/config-$nox" ||
	{ bad "a second kernel $nox without xfab modules"; finish; }
# would-load VERSION [-b] NAME: the module files `modprobe NAME` (a module
# or an alias; -b applies the blacklist, as udev's loads do) inserts on
# kernel VERSION: modprobe's dry run, and each install command it prints
# run as a dry run for VERSION too (a real load runs it as it is, for the
# running kernel). POSIX sh and kmod only, and no /dev/null: it runs in
# an unpacked initramfs too.
cat >"$work/13/usr/local/bin/would-load" <<'SH'
#!/bin/sh
v=$1
shift
# $1 with each /sbin/modprobe in it a dry run for kernel $v
dry() {
	s=$1 out=""
	while :; do
		case $s in
		*/sbin/modprobe*)
			out="$out${s%%/sbin/modprobe*}/sbin/modprobe -n -v -S $v"
			s=${s#*/sbin/modprobe}
			;;
		*) echo "$out$s"; return ;;
		esac
	done
}
/sbin/modprobe -n -v -S "$v" "$@" | while read -r what file rest; do
	case $what in
	insmod) echo "$file" ;;
	install) /bin/sh -c "$(dry "$file $rest")" |
		while read -r w f r; do [ "$w" = insmod ] && echo "$f"; done ;;
	esac
done
SH
chmod 755 "$work/13/usr/local/bin/would-load"
# loads ROOT VERSION WANT NAME...: `modprobe NAME` and `modprobe -b NAME`
# on kernel VERSION in chroot ROOT each insert one file, WANT.ko*
loads() {
	local root=$1 v=$2 want=$3 name b got
	shift 3
	for name in "$@"; do
		for b in "" -b; do
			got=$(chroot "$root" /bin/sh /usr/local/bin/would-load "$v" $b "$name" 2>/dev/null | sort -u)
			case $got in
			*/"$want".ko*) [ "$(wc -l <<<"$got")" = 1 ] && continue ;;
			esac
			echo "  modprobe${b:+ $b} $name on $v would insert: ${got:-nothing}; wanted .../$want.ko only"
			return 1
		done
	done
}
# has TEXT LINE-REGEX...: each matches a whole line of TEXT
has() {
	local text=$1 re
	shift
	for re in "$@"; do
		grep -qxE -- "$re" <<<"$text" && continue
		echo "  no line matching '$re' in ($(wc -l <<<"$text") lines):"
		head -n 12 <<<"$text" | sed 's/^/    /'
		return 1
	done
}
# lacks TEXT REGEX: no line of TEXT matches
lacks() {
	local hit
	hit=$(grep -E -- "$2" <<<"$1")
	[ -z "$hit" ] || { sed 's/^/  unexpected: /' <<<"$hit"; return 1; }
}
# exit0_and RC CMD...: RC is 0 and CMD succeeds
exit0_and() {
	[ "$1" = 0 ] || { echo "  exit status $1"; return 1; }
	shift
	"$@"
}
r13=$work/13
# the two versions as regular expressions (6.12.117+deb13-amd64)
q13=$(sed 's/[].*^$+?(){}|[]/\\&/g' <<<"$kver13")
qnox=$q13-noxfab
out=$(in13 "xfab-enable --kernel 0.0-none backend" 2>&1)
check "xfab-enable refuses a kernel without the modules" \
	grep -q "not installed for kernel 0.0-none" <<<"$out"
out=$(in13 "xfab-enable --kernel $nox frontend" 2>&1)
rc=$?
check "xfab-enable refuses an installed kernel without the modules, exit 1" \
	has "exit $rc: $out" "exit 1: xfab-enable: module xfab_netfront is not installed for kernel $qnox .*"
out=$(in13 "xfab-enable --kernel $kver13 backend frontend" 2>&1)
rc=$?
sed 's/^/  /' <<<"$out"
check "xfab-enable backend frontend, exit 0 with a kernel lacking ours; it names each kernel" \
	exit0_and "$rc" has "$out" "kernel $q13( \(running\))?: xfab_netback xfab_blkback xfab_netfront xfab_blkfront" \
	"xfab-enable: warning: kernel $qnox has no xfab modules: it will use the stock drivers .*"
conf=$(cat "$r13/etc/modprobe.d/xfab.conf")
check "modprobe.d: each stock module redirected to ours, the stock one the fallback" \
	has "$conf" 'install xen_netback /sbin/modprobe xfab_netback \|\| /sbin/modprobe --ignore-install xen_netback \$CMDLINE_OPTS' \
	'install xen_blkback /sbin/modprobe xfab_blkback \|\| /sbin/modprobe --ignore-install xen_blkback \$CMDLINE_OPTS' \
	'install xen_netfront /sbin/modprobe xfab_netfront \|\| /sbin/modprobe --ignore-install xen_netfront \$CMDLINE_OPTS' \
	'install xen_blkfront /sbin/modprobe xfab_blkfront \|\| /sbin/modprobe --ignore-install xen_blkfront \$CMDLINE_OPTS'
# udev loads by alias with the blacklist applied: a blacklisted stock
# module is skipped there even on a kernel without ours
check "modprobe.d: no blacklist line (it would keep udev's loads from the fallback)" \
	sh -c "! grep -n '^[[:space:]]*blacklist' '$r13/etc/modprobe.d/xfab.conf'"
check "modules-load.d: the four drivers, by their stock names (redirected)" \
	has "$(grep -v '^#' "$r13/etc/modules-load.d/xfab.conf")" xen_netback xen_blkback xen_netfront xen_blkfront
check "modprobe on $kver13 (ours there): xen_blkfront, xen-blkfront, xen:vbd load xfab_blkfront" \
	loads "$r13" "$kver13" updates/dkms/xfab_blkfront xen_blkfront xen-blkfront xen:vbd
check "modprobe on $kver13 (ours there): xen_netfront, xen:vif load xfab_netfront" \
	loads "$r13" "$kver13" updates/dkms/xfab_netfront xen_netfront xen:vif
check "modprobe on $kver13 (ours there): xen_netback, xen-netback, xen-backend:vif load xfab_netback" \
	loads "$r13" "$kver13" updates/dkms/xfab_netback xen_netback xen-netback xen-backend:vif
check "modprobe on $kver13 (ours there): xen_blkback, xen-backend:vbd load xfab_blkback" \
	loads "$r13" "$kver13" updates/dkms/xfab_blkback xen_blkback xen-backend:vbd
check "modprobe on $nox (no xfab modules): xen_blkfront, xen-blkfront, xen:vbd load the stock xen-blkfront" \
	loads "$r13" "$nox" kernel/drivers/block/xen-blkfront xen_blkfront xen-blkfront xen:vbd
check "modprobe on $nox (no xfab modules): xen_netfront, xen:vif load the stock xen-netfront" \
	loads "$r13" "$nox" kernel/drivers/net/xen-netfront xen_netfront xen:vif
check "modprobe on $nox (no xfab modules): xen_netback, xen-netback, xen-backend:vif load the stock xen-netback" \
	loads "$r13" "$nox" kernel/drivers/net/xen-netback/xen-netback xen_netback xen-netback xen-backend:vif
check "modprobe on $nox (no xfab modules): xen_blkback, xen-backend:vbd load the stock xen-blkback" \
	loads "$r13" "$nox" kernel/drivers/block/xen-blkback/xen-blkback xen_blkback xen-backend:vbd
check "initramfs: xfab_blkfront in it, and loaded there" \
	sh -c "chroot '$work/13' lsinitramfs /boot/initrd.img-$kver13 | grep -q 'xfab_blkfront.ko' &&
		chroot '$work/13' sh -c 'unmkinitramfs /boot/initrd.img-$kver13 /tmp/ir && cat /tmp/ir/main/conf/modules /tmp/ir/conf/modules 2>/dev/null' | grep -qx xfab_blkfront"
check "initramfs of $kver13: the stock frontends too (the fallback if ours fails to load)" \
	has "$(chroot "$r13" lsinitramfs "/boot/initrd.img-$kver13")" \
	"(usr/)?lib/modules/$q13/kernel/drivers/block/xen-blkfront\.ko.*" \
	"(usr/)?lib/modules/$q13/kernel/drivers/net/xen-netfront\.ko.*" 'etc/modprobe.d/xfab\.conf'
# what a kernel upgrade whose DKMS build failed gets: its postinst builds
# the initramfs (update-initramfs -c) with xfab's config in place
out=$(in13 "update-initramfs -c -k $nox" 2>&1)
rc=$?
grep -E '^(E|W: xfab)' <<<"$out" | sed 's/^/  /'
check "initramfs of $nox built; the hook says it has none of ours" \
	exit0_and "$rc" has "$out" "W: xfab: kernel $qnox has no xfab_blkfront: its initramfs loads the stock xen_blkfront"
out=$(chroot "$r13" lsinitramfs "/boot/initrd.img-$nox" 2>&1)
check "initramfs of $nox: the stock frontends and the modprobe.d file" \
	has "$out" "(usr/)?lib/modules/$qnox/kernel/drivers/block/xen-blkfront\.ko.*" \
	"(usr/)?lib/modules/$qnox/kernel/drivers/net/xen-netfront\.ko.*" 'etc/modprobe.d/xfab\.conf'
check "initramfs of $nox: none of ours" lacks "$out" 'xfab_[a-z]*\.ko'
# inside that initramfs, with its own sh, modprobe and modprobe.d: what
# its module list (conf/modules) and udev's alias load insert
ir=$r13/tmp/ir-$nox
in13 "unmkinitramfs /boot/initrd.img-$nox /tmp/ir-$nox" || bad "unmkinitramfs of $nox's initramfs"
[ -d "$ir/main" ] && ir=$ir/main
mkdir -p "$ir/usr/local/bin" && cp "$r13/usr/local/bin/would-load" "$ir/usr/local/bin/"
check "initramfs of $nox: its module list names the stock frontends" \
	has "$(cat "$ir/conf/modules" 2>&1)" xen_blkfront xen_netfront
check "initramfs of $nox: modprobe xen_blkfront and udev's xen:vbd load the stock xen-blkfront there" \
	loads "$ir" "$nox" kernel/drivers/block/xen-blkfront xen_blkfront xen:vbd
check "initramfs of $nox: modprobe xen_netfront and udev's xen:vif load the stock xen-netfront there" \
	loads "$ir" "$nox" kernel/drivers/net/xen-netfront xen_netfront xen:vif
out=$(chroot "$r13" xfab-enable --status 2>&1)
sed 's/^/  /' <<<"$out"
check "xfab-enable --status" has "$out" 'xfab on for: backend frontend'
check "xfab-enable --status: per kernel, ours or the stock drivers" \
	has "$out" "kernel $q13( \(running\))?: xfab_netback xfab_blkback xfab_netfront xfab_blkfront" \
	"kernel $qnox has no xfab modules: it will use the stock drivers .*"
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
