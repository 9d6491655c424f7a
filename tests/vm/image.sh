#!/bin/bash
# Build (or find in the cache) the nested testbed image: a Debian 13 rootfs
# with Xen 4.20 and Linux 6.12 for dom0, plus what the PV domUs boot from.
#
# Usage: tests/vm/image.sh            build if missing, print the image dir
#        tests/vm/image.sh --path     print the image dir, build nothing
#
# The image is keyed by the hash of everything that goes into it (this
# script, tests/vm/image/*), so changing an input builds a new one and an
# old one is never reused by mistake. The cache lives outside the repo in
# $XFAB_CACHE (default /var/cache/xfab); `make testbed-clean` drops it.
#
# Output, in $XFAB_CACHE/image-<key>/:
#   rootfs.img    raw ext4, dom0's root (used through a qcow2 overlay)
#   chroot/       the same tree, kept for building modules against its headers
#   xen           the hypervisor as an uncompressed ELF (QEMU multiboot)
#   vmlinuz initrd.img  dom0 kernel and initramfs
#   versions      package versions that went in
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XFAB_CACHE:-/var/cache/xfab}
mirror=${XFAB_MIRROR:-http://deb.debian.org/debian}
suite=trixie

key=$(cat "$here/image.sh" "$here"/image/* | sha256sum | cut -c1-16)
out=$cache/image-$key

if [ "${1:-}" = --path ]; then
	echo "$out"
	exit 0
fi
if [ -f "$out/done" ]; then
	echo "$out"
	exit 0
fi

# Everything below is progress on stderr; stdout carries only the path.
say() { printf '[image %4ds] %s\n' $((SECONDS - t0)) "$*" >&2; }
t0=$SECONDS
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -f "$out/done" ] && { echo "$out"; exit 0; }

for tool in debootstrap mkfs.ext4 zstd; do
	command -v $tool >/dev/null || {
		echo "image.sh: $tool missing; run 'make deps' (or tests/vm/deps.sh) first" >&2
		exit 1
	}
done

tmp=$cache/build-$key
log=$cache/build-$key.log
ch=$tmp/chroot

cleanup_mounts() {
	local m
	for m in dev/pts dev sys proc; do
		mountpoint -q "$ch/$m" 2>/dev/null && umount -l "$ch/$m"
	done
	return 0
}
trap 'cleanup_mounts; echo "image build failed; last lines of $log:" >&2; tail -n 30 "$log" >&2' ERR
trap cleanup_mounts EXIT

# Run a long step with its output in the log and a heartbeat on stderr,
# so a cold build (several minutes) shows that it is alive.
step() {
	local what=$1
	shift
	say "$what"
	"$@" >>"$log" 2>&1 &
	local pid=$! n=0
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		if [ $((n % 30)) = 0 ]; then
			say "  ... still $what ($(wc -l <"$log") log lines)"
		fi
	done
	wait $pid
}

rm -rf "$tmp"
mkdir -p "$tmp"
: >"$log"
say "building image $key into $tmp (log: $log)"

step "debootstrap $suite (minbase)" \
	debootstrap --variant=minbase --components=main,contrib,non-free \
	$suite "$ch" "$mirror"

cat >"$ch/etc/apt/sources.list" <<EOF
deb $mirror $suite main contrib non-free non-free-firmware
EOF
# No service may start inside the chroot while we install.
printf '#!/bin/sh\nexit 101\n' >"$ch/usr/sbin/policy-rc.d"
chmod +x "$ch/usr/sbin/policy-rc.d"

mount -t proc proc "$ch/proc"
mount -t sysfs sys "$ch/sys"
mount --bind /dev "$ch/dev"
mount --bind /dev/pts "$ch/dev/pts"

pkgs=$(grep -v '^#' "$here/image/packages" | tr '\n' ' ')
step "apt-get update" chroot "$ch" apt-get update
step "installing packages ($(echo $pkgs | wc -w) named)" \
	chroot "$ch" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 $pkgs

install -m 0644 "$here/image/xfab-run.service" "$ch/etc/systemd/system/"
install -m 0755 "$here/image/xfab-run-entry" "$ch/usr/local/sbin/"
# (as a file: a background step's stdin is /dev/null)
install -m 0755 "$here/image/configure-dom0.sh" "$ch/usr/local/sbin/"
step "configuring dom0" chroot "$ch" /usr/local/sbin/configure-dom0.sh

install -m 0755 "$here/image/mk-domu-base.sh" "$ch/usr/local/sbin/"
step "building the domU base initramfs" chroot "$ch" /usr/local/sbin/mk-domu-base.sh

chroot "$ch" dpkg-query -W -f '${Package} ${Version}\n' >"$tmp/versions"
chroot "$ch" apt-get clean
cleanup_mounts
rm -f "$ch/usr/sbin/policy-rc.d"

say "extracting xen, dom0 kernel and initramfs"
kver=$(ls "$ch/lib/modules" | sort -V | tail -n 1)
echo "$kver" >"$tmp/kver"
zcat "$ch"/boot/xen-4.20*.gz >"$tmp/xen" 2>/dev/null ||
	cp "$(ls "$ch"/boot/xen-4.20* | grep -v '\.gz$' | head -n 1)" "$tmp/xen"
cp "$ch/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp "$ch/boot/initrd.img-$kver" "$tmp/initrd.img"

# The domU kernel: an uncompressed vmlinux saves seconds per `xl create`
# because libxenguest would otherwise decompress it under emulation.
"$here/image/extract-vmlinux.sh" "$tmp/vmlinuz" "$ch/opt/xfab/vmlinux" >>"$log" 2>&1 ||
	cp "$tmp/vmlinuz" "$ch/opt/xfab/vmlinux"

step "making rootfs.img (ext4)" \
	mkfs.ext4 -q -F -L xfabroot -d "$ch" "$tmp/rootfs.img" 6G

touch "$tmp/done"
rm -rf "$out"
mv "$tmp" "$out"
mv "$log" "$out/build.log"
# Older images (other keys) are dead weight: several GiB each.
for old in "$cache"/image-*; do
	[ "$old" = "$out" ] || rm -rf "$old"
done
say "image ready: $out"
echo "$out"
