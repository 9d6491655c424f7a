#!/bin/bash
# 032 block interop: frontend xfab_blkfront, backend xfab_blkback
# Objective: the xfab x xfab cell of the blkif matrix (see 030): drivers
#   bound; the fio verify matrix on the RAM disk, a 64 KiB random
#   read/write verify and ext4 with a copy of /usr, e2fsck clean, read
#   back equal, on the file; a discard of the file. Both ends' counters
#   must show the traffic, persistent grants reused by the backend (the
#   frontend's pool pages), and no refused, failed or protocol-breaking
#   request. The RAM disk is put in relaxed trust by the "toolstack"
#   (xfab-trust=relaxed): its writes must go in place through kept
#   read-only grants and mappings (reused on both ends); the file stays in
#   default trust (writes copied through the pool). The backend must poll.
#   In check-full, with xfab_blkfront.split_kb=256 (off by default), lone
#   1 MiB requests (iodepth 1) must go out in parts of 256 KiB: reads on
#   both disks, writes on the default-trust one; fio verifies. make
#   check runs the default.
#   The frontend must pick 1 MiB requests (256 segments) for this backend,
#   and keep its pool within what the backend keeps mapped: every pool
#   page mapped once, none per request.
#   Resize: the file grows by 64 MiB (truncate, losetup -c) with the
#   guest running; it must see the new size and fio verify the new tail.
# Topology: dom0 (xfab_blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xfab_blkfront, 2 vCPUs, no network), disks xvdb (ram0,
#   relaxed trust) and xvdc (the file, default trust).
#   Hotplug: Debian's vif-bridge and block scripts, as a user's dom0
#   runs them (other scenarios use the testbed's quick ones).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
hotplug_scripts debian || error "could not switch to Debian's hotplug scripts"

# the split variant (off by default) in check-full only
[ -n "${XFAB_FULL:-}" ] && BLK_KARGS=xfab_blkfront.split_kb=256
blk_interop xfab_blkfront xfab_blkback xvdb
blk_discard d1 xvdc
blk_resize d1
split=""
if [ -n "${XFAB_FULL:-}" ]; then
	blk_split d1 xvdb
	blk_split d1 xvdc
	split=", lone requests in parts"
fi
blk_front_checks d1 256
blk_back_checks d1
blk_fast_checks d1
pass "xfab_blkfront <-> xfab_blkback, relaxed and default trust: fio verify, ext4 tree + fsck, discard, resize$split; in-place writes, polling; both ends' counters"
