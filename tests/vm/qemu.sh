#!/bin/bash
# Print the QEMU the testbed runs (its binary, then its data directory or
# "-"), fetching one first if this host's is too old.
#
# The testbed needs CMPXCHG16B in the guest CPU (docs/testbed.md, "CPU
# model"): without it every PV kernel's slab allocator races its own
# interrupts. QEMU 7.2 (Debian 12's) gets that instruction's flags wrong
# under TCG, so it cannot run the testbed; QEMU 8.0 and later can
# (Debian 13 has 10.0). On a host with an older one, QEMU 10 from
# bookworm-backports is unpacked into $XFAB_CACHE/qemu-VERSION, beside
# the system's (whose seabios and ipxe it uses), once; the system's apt
# configuration is left as it is. XFAB_QEMU=/path/to/qemu-system-x86_64
# picks a binary by hand.
set -euo pipefail
cache=${XFAB_CACHE:-/var/cache/xfab}
want_major=8

major() { "$1" --version 2>/dev/null | awk 'NR == 1 { split($4, v, "."); print v[1] + 0 }'; }

if [ -n "${XFAB_QEMU:-}" ]; then
	[ "$(major "$XFAB_QEMU")" -ge $want_major ] 2>/dev/null ||
		{ echo "qemu.sh: XFAB_QEMU=$XFAB_QEMU is no QEMU $want_major.0 or later" >&2; exit 1; }
	echo "$XFAB_QEMU -"
	exit 0
fi
sys=$(command -v qemu-system-x86_64 || true)
if [ -n "$sys" ] && [ "$(major "$sys")" -ge $want_major ]; then
	echo "$sys -"
	exit 0
fi
for d in $(ls -d "$cache"/qemu-* 2>/dev/null | sort -V -r); do
	if [ -f "$d/.done" ] && [ "$(major "$d/usr/bin/qemu-system-x86_64")" -ge $want_major ]; then
		echo "$d/usr/bin/qemu-system-x86_64 $d/usr/share/qemu"
		exit 0
	fi
done

# Fetch it. Only Debian 12 is known to need this; its backports have 10.0.
if [ "$(id -u)" != 0 ]; then
	echo "qemu.sh: this host's QEMU is older than $want_major.0 (docs/testbed.md); run tests/vm/deps.sh as root to fetch QEMU 10 into $cache" >&2
	exit 1
fi
. /etc/os-release
suite=${VERSION_CODENAME:-bookworm}-backports
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial"
cat >"$tmp/parts/backports.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_o=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$tmp/parts"
	-o "Dir::State::Lists=$tmp/lists" -o Debug::NoDropPrivs=1
	-o APT::Sandbox::User=root)
echo "[qemu] this host's QEMU is older than $want_major.0: fetching QEMU from $suite (about 14 MB, once)" >&2
apt-get "${apt_o[@]}" update -q >&2
ver=$(apt-cache "${apt_o[@]}" show qemu-system-x86 | awk '/^Version:/ { print $2; exit }')
[ -n "$ver" ] || { echo "qemu.sh: no qemu-system-x86 in $suite" >&2; exit 1; }
(cd "$tmp" && apt-get "${apt_o[@]}" download -q \
	"qemu-system-x86=$ver" "qemu-system-common=$ver" "qemu-system-data=$ver" >&2)
v=${ver#*:}
dir=$cache/qemu-${v//[^A-Za-z0-9.+~-]/_}
rm -rf "$dir"
mkdir -p "$dir"
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
got=$(major "$dir/usr/bin/qemu-system-x86_64")
if [ "${got:-0}" -lt $want_major ]; then
	echo "qemu.sh: the QEMU unpacked into $dir does not run (missing libraries?):" >&2
	ldd "$dir/usr/bin/qemu-system-x86_64" | grep 'not found' >&2 || true
	exit 1
fi
touch "$dir/.done"
echo "[qemu] $("$dir/usr/bin/qemu-system-x86_64" --version | head -n 1) in $dir" >&2
echo "$dir/usr/bin/qemu-system-x86_64 $dir/usr/share/qemu"
