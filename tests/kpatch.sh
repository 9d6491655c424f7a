#!/bin/bash
# make kernel-patch, used the way docs/kernel-patch.md says (make check-full;
# as root; a few minutes the first time, one after that):
#
#   tests/kpatch.sh [trixie|bookworm]    Debian 13's 6.12 (default) or 12's 6.1
#
#   1. a Debian kernel tree: Debian's linux-source package (6.12 or 6.1) in
#      a copy of that release's build chroot, with the tools a build needs,
#      configured with Debian's own config (that of the chroot's headers)
#      and modules_prepare'd out of tree. Cached in $XFAB_CACHE/ksrc-*, as
#      the testbed image is: only the first run downloads and prepares;
#   2. the patch for that tree (packaging/kernel-patch.py) applies to a
#      copy of it, and olddefconfig with the xfab options offers them;
#   3. drivers/xen/xfab/ builds with the five as modules, then built in
#      (=y) and there every global symbol is an xfab one, defined once,
#      and each xfab symbol used is defined: the five link into one
#      vmlinux together.
# A patch that passed all of it once is remembered by its sha256 (the
# build is not repeated). Prints PASS/FAIL per check and ends with
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XFAB_CACHE:-/var/cache/xfab}
suite=${1:-trixie}
case $suite in
trixie) pkg=linux-source-6.12 ;;
bookworm) pkg=linux-source-6.1 ;;
*) echo "kpatch.sh: unknown suite '$suite' (trixie, bookworm)" >&2; exit 2 ;;
esac
. "$top"/tests/checks.sh
mods="XFAB_NETFRONT XFAB_NETBACK XFAB_BLKFRONT XFAB_BLKBACK XFAB_WINDOW"

base=$("$top"/tests/vm/build-chroot.sh "$suite") || { bad "$suite build chroot"; finish; }
ver=$(chroot "$base" apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	# offline: a tree prepared before will do
	dir=$(ls -d "$cache/ksrc-${pkg#linux-source-}".* 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] || { bad "$pkg: not in apt's lists, none cached"; finish; }
else
	# the setup below is part of the key: a changed setup prepares anew
	key=$(sed -n '/^# -- setup/,/^# -- end of setup/p' "$0" | sha256sum | cut -c1-8)
	dir=$cache/ksrc-$ver-$key
fi
root=$dir/root
in_root() { chroot "$root" sh -c "$*"; }
umounts() { mountpoint -q "$root/proc" && umount -l "$root/proc"; return 0; }
trap umounts EXIT

# -- setup: the kernel tree, prepared once (kept while this block is unchanged)
prepare_tree() {
	local log=$dir.log t0=$SECONDS
	echo "[kpatch] preparing $pkg $ver in $dir (log: $log)"
	# one tree per package: older versions and setups go (each is 1-2 GB)
	rm -rf "$cache/ksrc-${pkg#linux-source-}".*
	mkdir -p "$dir"
	"$top"/tests/vm/chroot-copy.sh "$suite" "$root" || return 1
	# python3: the BTF tools' build runs it; patch: the test applies one
	echo "[kpatch] installing $pkg and the kernel build's tools"
	in_root "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $pkg flex bison bc libelf-dev libssl-dev python3 patch" >"$log" 2>&1 || return 1
	echo "[kpatch] unpacking the source ($((SECONDS - t0))s)"
	in_root "cd /usr/src && tar xJf $pkg.tar.xz && mv $pkg linux && rm $pkg.tar.xz" >>"$log" 2>&1 || return 1
	# Debian's config, as its headers package carries it; no signing key
	# and no trusted keys: this tree builds objects, not a kernel to boot
	echo "[kpatch] olddefconfig and modules_prepare ($((SECONDS - t0))s)"
	in_root "mkdir /usr/src/obj && cp /usr/src/linux-headers-*-amd64/.config /usr/src/obj/ &&
		cd /usr/src/linux && scripts/config --file /usr/src/obj/.config \
			--set-str SYSTEM_TRUSTED_KEYS '' --set-str SYSTEM_REVOCATION_KEYS '' \
			-d MODULE_SIG_ALL &&
		make -s O=/usr/src/obj olddefconfig &&
		make -s -j$(nproc) O=/usr/src/obj modules_prepare" >>"$log" 2>&1 || return 1
	in_root "apt-get clean"
	touch "$dir/.done"
	echo "[kpatch] tree ready ($((SECONDS - t0))s)"
}
# -- end of setup

if [ ! -f "$dir/.done" ]; then
	prepare_tree || {
		tail -n 20 "$dir.log"
		bad "prepare $pkg $ver (log: $dir.log)"
		finish
	}
fi
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
kver=$(in_root "make -s -C /usr/src/linux kernelversion")
echo "[kpatch] $pkg $ver: Linux $kver"

# 2. the patch, written against the pristine tree
out=$top/build/kernel-patch-test/$suite
rm -rf "$out"
if ! "$top"/packaging/kernel-patch.py "$root/usr/src/linux" "$out"; then
	bad "make kernel-patch against Linux $kver"
	finish
fi
patch=$(ls "$out"/*.patch)
ok "make kernel-patch wrote $(basename "$patch") ($(grep -c '^+++ ' "$patch") files)"
# the tree's own checkpatch, as a maintainer would run it on the patch.
# Ignored: the sign-off (the one who submits it signs), and what make
# style allows per file (tests/style.sh: the compat header's typedef and
# kernel version tests, which make style keeps out of every other file;
# xfab_types.h's userspace READ_ONCE) or sees only in a patch (a
# _Static_assert message in common/'s userspace part, 102 columns)
cp "$patch" "$root/tmp/xfab.patch"
out=$(in_root "cd /usr/src/linux && perl scripts/checkpatch.pl --no-tree --terse --show-types \
	--ignore MISSING_SIGN_OFF,FILE_PATH_CHANGES,NEW_TYPEDEFS,VOLATILE,LONG_LINE_STRING,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
	/tmp/xfab.patch" 2>&1 | grep -v '^total: ')
if [ -z "$out" ]; then
	ok "the tree's checkpatch.pl: no findings in the patch"
else
	echo "$out" | head -n 20
	bad "the tree's checkpatch.pl: $(echo "$out" | wc -l) findings in the patch"
fi
sum=$(sha256sum "$patch" | cut -c1-16)
if [ -f "$dir/passed-$sum" ]; then
	echo "[kpatch] this patch built in this tree before ($(cat "$dir/passed-$sum")): not again"
	ok "cached: applies, offered by olddefconfig, builds as modules and built in"
	finish
fi

# a copy of the tree to patch: hard links, so nothing it writes reaches
# the cached tree (patch writes each file it changes anew)
rm -rf "$root/usr/src/xfab-linux" "$root/usr/src/xfab-obj"
cp -al "$root/usr/src/linux" "$root/usr/src/xfab-linux"
cp -a "$root/usr/src/obj" "$root/usr/src/xfab-obj"
cleanup_copy() { rm -rf "$root/usr/src/xfab-linux" "$root/usr/src/xfab-obj"; umounts; }
trap cleanup_copy EXIT
cp "$patch" "$root/usr/src/xfab.patch"
if in_root "cd /usr/src/xfab-linux && patch -p1 -s --no-backup-if-mismatch <../xfab.patch"; then
	ok "the patch applies to $pkg $ver"
else
	bad "the patch applies to $pkg $ver"
	finish
fi

# configure: the five as modules (m) or built in (y); olddefconfig must
# keep what was asked (a dependency it cannot meet drops an option)
configure() {
	local want=$1 m opts="--enable XFAB" got
	for m in $mods; do opts="$opts --set-val $m $want"; done
	in_root "cd /usr/src/xfab-linux && scripts/config --file /usr/src/xfab-obj/.config $opts &&
		make -s O=/usr/src/xfab-obj olddefconfig" || return 1
	for m in $mods; do
		got=$(grep "^CONFIG_$m=" "$root/usr/src/xfab-obj/.config")
		[ "$got" = "CONFIG_$m=$want" ] || { echo "  $m: '$got' after olddefconfig, not $want"; return 1; }
	done
}
# build_dir: drivers/xen/xfab/ alone, after modules_prepare for the config
build_dir() {
	local log=$root/usr/src/xfab-build-$1.log
	if ! in_root "cd /usr/src/xfab-linux && make -s -j$(nproc) O=/usr/src/xfab-obj modules_prepare &&
		make -j$(nproc) O=/usr/src/xfab-obj drivers/xen/xfab/" >"$log" 2>&1; then
		grep -E 'error|warning' "$log" | head -n 20
		tail -n 5 "$log"
		return 1
	fi
	grep -E 'warning:' "$log" | head -n 10
	! grep -q 'warning:' "$log"
}
objs=$root/usr/src/xfab-obj/drivers/xen/xfab
five_objects() {
	local m n=0
	for m in netfront netback blkfront blkback window; do
		[ -f "$objs/$m/xfab_$m.o" ] && n=$((n + 1))
	done
	echo "  $n of 5 module objects in drivers/xen/xfab"
	[ "$n" = 5 ]
}
# built in: the global symbols the directory defines, each once and each
# an xfab one (the common/ core is linked once for all five)
globals_ok() {
	local syms dup foreign missing
	[ -f "$objs/built-in.a" ] || { echo "  no built-in.a"; return 1; }
	syms=$(cd "$root/usr/src/xfab-obj" && nm --defined-only "drivers/xen/xfab/built-in.a" 2>/dev/null |
		awk '$2 ~ /^[A-Z]$/ && $2 != "U" { print $3 }')
	# an xfab symbol used and defined nowhere would fail vmlinux's link
	missing=$(cd "$root/usr/src/xfab-obj" && nm --undefined-only "drivers/xen/xfab/built-in.a" 2>/dev/null |
		awk '$2 ~ /^xfab_/ { print $2 }' | sort -u | comm -23 - <(sort -u <<<"$syms"))
	dup=$(sort <<<"$syms" | uniq -d)
	foreign=$(grep -vE '^(xfab_|__(initcall|exitcall|export|ksymtab|kstrtab|UNIQUE_ID|addressable|param|mod)|__pfx_xfab_)' <<<"$syms" | sort -u)
	echo "  $(wc -l <<<"$syms") global symbols"
	[ -z "$dup" ] || echo "  defined twice: $(echo $dup)"
	[ -z "$foreign" ] || echo "  not xfab_: $(echo $foreign)"
	[ -z "$missing" ] || echo "  used, defined nowhere: $(echo $missing)"
	[ -z "$dup" ] && [ -z "$foreign" ] && [ -z "$missing" ]
}

if configure m; then
	ok "olddefconfig keeps the five as modules"
	if build_dir m && five_objects; then
		ok "drivers/xen/xfab builds as modules, without warnings"
	else
		bad "drivers/xen/xfab builds as modules (log: xfab-build-m.log)"
	fi
else
	bad "olddefconfig keeps the five as modules"
fi
if configure y; then
	ok "olddefconfig keeps the five built in"
	if build_dir y && globals_ok; then
		ok "drivers/xen/xfab builds in (=y): each global an xfab one, defined once"
	else
		bad "drivers/xen/xfab builds in (=y)"
	fi
else
	bad "olddefconfig keeps the five built in"
fi
[ "$failed" = 0 ] && date -u +%Y-%m-%dT%H:%MZ >"$dir/passed-$sum"
finish
