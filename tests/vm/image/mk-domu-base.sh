#!/bin/bash
# Runs inside the image chroot. Builds /opt/xfab/domu-base.cpio: the part of
# a PV domU's initramfs root that does not change between runs (busybox, the
# workload tools with their libraries, the stock frontend modules); and
# /opt/xfab/domu-perf.cpio, perf for profiled benchmark runs.
#
# Why an initramfs root and not a disk: every vbd a domU sees is then a disk
# under test, so a block frontend (stock or xfab) can own all of them; and
# the domU boots in seconds with no udev or systemd to wait for. The
# per-run part (init, agent, xfab modules) is a second cpio appended by the
# runner in dom0.
set -euo pipefail
kver=$(ls /lib/modules | sort -V | tail -n 1)
root=/opt/xfab/domu-base
rm -rf "$root"
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,mnt,etc,root,var/tmp}
for d in bin sbin lib lib64; do
	ln -sfn usr/$d "$root/$d"
done

copy_file() {
	# Copy a file to its real path inside $root and, when it was named
	# through a symlink (the ELF interpreter /lib64/ld-linux-x86-64.so.2,
	# libfoo.so.N), recreate that name as a link to it.
	local src=$1 real name
	real=$(readlink -f "$src")
	name=$(readlink -f "$(dirname "$src")")/$(basename "$src")
	mkdir -p "$root$(dirname "$real")"
	[ -e "$root$real" ] || cp "$real" "$root$real"
	if [ "$name" != "$real" ]; then
		mkdir -p "$root$(dirname "$name")"
		ln -sfn "$real" "$root$name"
	fi
}

copy_bin() {
	local b path lib
	for b in "$@"; do
		path=$(command -v "$b") || { echo "mk-domu-base: $b not found" >&2; exit 1; }
		copy_file "$path"
		for lib in $(ldd "$path" 2>/dev/null | grep -o '/[^ ]*'); do
			copy_file "$lib"
		done
	done
}

copy_bin busybox kmod ip ethtool netperf netserver iperf3 fio iozone \
	xenstore-read xenstore-write xenstore-watch xenstore-exists xenstore-rm \
	xenstore-ls xenstore-chmod mke2fs e2fsck blkdiscard \
	rpc.nfsd rpc.mountd exportfs mount.nfs mount.nfs4
# The xenstore client tools are one program that looks at its name.
# Xen's call and foreign-memory libraries: the appliance-group tests run
# xfabctl and xfab-peek inside domUs (members map each other's pages).
for l in libxencall.so.1 libxenforeignmemory.so.1 libxentoolcore.so.1 libxentoollog.so.1; do
	copy_file "/usr/lib/x86_64-linux-gnu/$l"
done
# xl, for `xl devd` in a driver domain: it runs the backends' hotplug
# scripts there, as dom0's xl does for dom0's backends (the scripts come
# with each run, beside the init).
copy_bin /usr/lib/xen-4.20/bin/xl
ln -sf /usr/lib/xen-4.20/bin/xl "$root/usr/sbin/xl"
mkdir -p "$root"/var/lib/xen "$root"/var/log/xen "$root"/etc/xen/scripts "$root"/run/xen
ln -sfn ../run "$root/var/run"
for t in read write watch exists rm ls chmod; do
	[ -e "$root/usr/bin/xenstore-$t" ] || ln -sf xenstore "$root/usr/bin/xenstore-$t"
done
ln -sf mke2fs "$root/usr/sbin/mkfs.ext4"
for t in insmod rmmod modprobe lsmod depmod modinfo; do
	ln -sf /usr/bin/kmod "$root/usr/sbin/$t"
done
# busybox provides everything else (sh, mount, dd, sha256sum, ping, ...);
# links go in /usr/bin only where no real tool sits. Its shell runs its own
# applets before anything on PATH, so the domU scripts call kmod's tools by
# full path.
for a in $(busybox --list); do
	[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] ||
		ln -s busybox "$root/usr/bin/$a"
done

# Stock frontends and what ext4 and the reference RAM disk need, with
# deps; and what a driver domain needs: a bridge, the event-channel and
# grant devices xl opens, the stock backends.
mods="xen-netfront xen-blkfront xen-privcmd ext4 brd crc32c_generic \
	bridge xen-evtchn xen-gntdev xen-netback xen-blkback nfsd nfsv4"
for m in $mods; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r f; do
	mkdir -p "$root$(dirname "$f")"
	cp "$f" "$root$f"
done
cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$root" "$kver"

echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
# The NFS tools name ports and transports through these (libc's and
# libtirpc's files) and keep the export table in /var/lib/nfs.
cp /etc/services /etc/protocols /etc/netconfig "$root/etc/"
mkdir -p "$root/var/lib/nfs"

# Fail the image build, not a later boot, if a tool cannot start in the
# domU root (126/127: its loader or a library is missing); any other exit
# status is the tool's own answer to --help.
for t in kmod xenstore-write ip ethtool fio netperf iperf3 mke2fs xl \
	rpc.nfsd rpc.mountd exportfs mount.nfs; do
	rc=0
	chroot "$root" "$(command -v $t)" --help >/dev/null 2>&1 || rc=$?
	if [ $rc = 126 ] || [ $rc = 127 ]; then
		echo "mk-domu-base: $t does not run in the domU root" >&2
		exit 1
	fi
done

(cd "$root" && find . | cpio -o -H newc --quiet) >/opt/xfab/domu-base.cpio
echo "domu-base.cpio: $(du -m /opt/xfab/domu-base.cpio | cut -f1) MiB, kernel $kver"

# perf, for the benchmark's profiles (BENCH_PROFILE=1): an archive the
# runner appends to a domU's initramfs only in a profiled run, since its
# libraries (Perl's and Python's among them) would make every other domU
# boot unpack 30 MiB more. The same top-level links as the base: an
# entry named lib64 that is a directory would replace the base's link
# when the archives unpack.
base=$root
root=/opt/xfab/domu-perf
rm -rf "$root"
mkdir -p "$root/usr/bin"
for d in bin sbin lib lib64; do
	ln -sfn usr/$d "$root/$d"
done
copy_bin perf
# what the base has already need not come twice
(cd "$root" && find . -type f) | while read -r f; do
	if [ -e "$base/$f" ]; then
		rm -f "$root/$f"
	fi
done
(cd "$root" && find . | cpio -o -H newc --quiet) >/opt/xfab/domu-perf.cpio
echo "domu-perf.cpio: $(du -m /opt/xfab/domu-perf.cpio | cut -f1) MiB"
