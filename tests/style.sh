#!/bin/bash
# `make style`: the kernel's checkpatch.pl over every file of kernel code
# (the four drivers, common/, the test modules). Clean means no error and
# no warning, except the few types a file cannot avoid by what it is
# (below). checkpatch comes from Debian's linux-source-6.12 package, the
# kernel the testbed runs; the script alone is kept, in
# $XFAB_CACHE/checkpatch-VERSION, so only the first run downloads.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
cache=${XFAB_CACHE:-/var/cache/xfab}
pkg=linux-source-6.12

ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	# offline with a cache: any checkpatch we kept will do
	dir=$(ls -d "$cache"/checkpatch-* 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$dir" ] || { echo "style: no $pkg in apt's lists and none cached" >&2; exit 2; }
else
	dir=$cache/checkpatch-$ver
fi
if [ ! -f "$dir/.done" ]; then
	echo "[style] fetching checkpatch.pl from $pkg $ver (150 MB, once)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download "$pkg=$ver" >/dev/null)
	mkdir -p "$dir"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$tmp" --strip-components=2 \
			"$pkg/scripts/checkpatch.pl" "$pkg/scripts/spelling.txt" \
			"$pkg/scripts/const_structs.checkpatch"
	cp "$tmp"/checkpatch.pl "$tmp"/spelling.txt "$tmp"/const_structs.checkpatch "$dir/"
	touch "$dir/.done"
fi

# Types a file may keep, and why:
#   xfab_compat.h: it exists to test kernel versions (LINUX_VERSION_CODE,
#     compared the way every kernel does) and to name a type that changed
#     between them (NEW_TYPEDEFS).
#   xfab_types.h: READ_ONCE for the userspace build is a volatile access,
#     as the kernel's own is.
allowed() {
	case $1 in
	common/xfab_compat.h) echo LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS ;;
	common/xfab_types.h) echo VOLATILE ;;
	*) echo "" ;;
	esac
}

files=$(ls netfront/*.[ch] netback/*.[ch] blkfront/*.[ch] blkback/*.[ch] window/*.[ch] \
	common/*.[ch] tests/hostile/*.[ch] tests/peer/*.[ch] tests/wnprobe/*.[ch])
bad=0 n=0
for f in $files; do
	n=$((n + 1))
	ign=$(allowed "$f")
	out=$(perl "$dir/checkpatch.pl" --no-tree --terse --show-types \
		${ign:+--ignore "$ign"} -f "$f" 2>&1 | grep -v '^total: ') || true
	if [ -n "$out" ]; then
		echo "$out"
		bad=$((bad + 1))
	fi
done
echo "style: $n files checked with checkpatch $ver, $bad with findings"
[ "$bad" = 0 ]
