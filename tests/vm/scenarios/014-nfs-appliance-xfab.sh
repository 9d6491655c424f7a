#!/bin/bash
# 014 the NFS appliance: a storage guest serves its xfab disk over NFS
# Objective: the setup of the benchmark's NFS appliance (904) works and
#   carries data intact across both xfab pairs: s puts ext4 on its vbd
#   and exports it over NFSv4.2, c mounts it. 32 MiB c writes (seeded,
#   synced) read back in s from its disk, caches dropped, with the sum c
#   generated; 32 MiB s writes read back in c with the sum s generated;
#   IOZone (O_DIRECT write, rewrite, read, reread of 8 MiB) runs on the
#   mount and exits 0. s's xfab_blkfront and xfab_blkback carried the
#   writes (each counted 64 write requests or more for the 64 MiB: at
#   most 1 MiB each).
# Topology: dom0 (xfab_netback on xenbr0 10.0.0.1/24; xfab_blkback
#   serving a 256 MiB RAM disk) <-> s (xfab_netfront 10.0.0.2/24,
#   xfab_blkfront xvdb, nfsd) ; c (xfab_netfront 10.0.0.3/24, the NFS
#   client). 2 vCPUs, 512 MiB each.
# Tier: check-full
#   The benchmark's own setup (make bench runs it every round); make
#   check covers its drivers with 012 and 032 and keeps its time.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/blk.sh
. /xfab/guest/nfs.sh
DIAG=nfs_diag
nfs_diag() {
	local d
	for d in s c; do
		echo "== $d"
		domu_exec "$d" 20 "cat /proc/fs/nfsd/versions 2>&1; grep nfs /proc/mounts; dmesg | grep -i 'nfs\|rpc\|xvd\|eth0' | tail -n 15" 2>&1
	done
}

net_use_backend xfab_netback
blk_use_backend xfab_blkback
blk_make_disks
domu_start s --mods xfab_netfront,xfab_blkfront --ip "$NFS_SERVER/24" \
	--disk 'phy:/dev/ram0,xvdb,w'
[ "$(net_driver eth0 s)" = xfab_netfront ] || fail "s eth0 is not driven by xfab_netfront"
[ "$(blk_driver_front s xvdb)" = xfab_blkfront ] || fail "s xvdb is not driven by xfab_blkfront"
[ "$(blk_driver_back s xvdb)" = xfab_blkback ] || fail "dom0's vbd of s is not driven by xfab_blkback"
nfs_serve s xvdb
domu_start c --mods xfab_netfront --ip "$NFS_CLIENT/24" --mac 00:16:3e:00:00:03
[ "$(net_driver eth0 c)" = xfab_netfront ] || fail "c eth0 is not driven by xfab_netfront"
nfs_mount c
blk_fsnap s xvdb
blk_bsnap s xvdb
wr_f=$(blk_f wr_req) wr_b=$(blk_b wr_req)

# nfs_xfer WRITER WFILE READER RFILE SEED: 32 MiB of seeded data written
# to WFILE in WRITER and synced; READER, its caches dropped, must read
# the same file as RFILE with the sum WRITER generated.
nfs_xfer() {
	local out want got
	out=$(domu_must "$1" 300 "xfab-xfer gen 32M $5 >$2 2>/tmp/gen && sync && cat /tmp/gen") || exit $?
	want=$(xfer_sha "$out")
	got=$(domu_must "$3" 300 "sync && echo 3 >/proc/sys/vm/drop_caches && sha256sum $4") || exit $?
	got=${got%% *}
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		fail "32 MiB $1 wrote as $2 read back in $3 as $got, written $want"
	log "$1 -> $3: 32 MiB written as $2, read as $4: intact"
}

# c -> s: written through NFS, read back in s from its disk; s -> c:
# written in s, read in c over NFS
nfs_xfer c /mnt/nfs/f s /srv/f 41
nfs_xfer s /srv/g c /mnt/nfs/g 42

# the bench's tool runs on the mount (904 measures with it)
out=$(domu_must c 300 "cd /mnt/nfs && iozone -I -i 0 -i 1 -s 8m -r 256k -e -f /mnt/nfs/iz >/tmp/iz.out 2>&1;
	rc=\$?; tail -n 4 /tmp/iz.out; exit \$rc") || exit $?
log "iozone on the NFS mount: $(echo "$out" | tr -s ' \n' ' ')"

# what s wrote to its disk went through the xfab pair: 64 MiB at least
# (c's file and s's own), in requests of at most 1 MiB
blk_fsnap s xvdb
blk_bsnap s xvdb
[ $(($(blk_f wr_req) - wr_f)) -ge 64 ] ||
	fail "xfab_blkfront of s sent $(($(blk_f wr_req) - wr_f)) writes for 64 MiB, want 64 or more"
[ $(($(blk_b wr_req) - wr_b)) -ge 64 ] ||
	fail "xfab_blkback saw $(($(blk_b wr_req) - wr_b)) writes of s for 64 MiB, want 64 or more"
figure nfs_blk_wr_req $(($(blk_f wr_req) - wr_f))
nfs_umount c
pass "NFS appliance: s exports ext4 on its xfab vbd, c mounts it over xfab vifs; 32 MiB each way intact, from s's disk and over the wire; iozone ran"
