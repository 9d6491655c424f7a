#!/bin/bash
# 031 block interop: frontend xfab_blkfront, backend xen-blkback
# Objective: one cell of the {stock, xfab} x {stock, xfab} blkif matrix
#   (see 030): drivers bound; the fio verify matrix on the RAM disk, a
#   64 KiB random read/write verify and ext4 with a copy of /usr,
#   e2fsck clean, read back equal, on the file; a discard of the file.
#   xfab_blkfront's counters must show reads, writes, flushes, indirect
#   requests and the discard went through it, with no I/O error and no
#   protocol break by the backend. xvdb is put in relaxed trust
#   (xfab-trust=relaxed): against a stock backend xfab_blkfront must
#   still copy through its pool. It must pick 128 KiB requests (32
#   segments) for a stock backend, though that one offers 256.
#   Resize: the file grows by 64 MiB (truncate, losetup -c) with the
#   guest running; it must see the new size and fio verify the new tail.
# Topology: dom0 (xen-blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xfab_blkfront, 2 vCPUs, no network), disks xvdb (ram0) and
#   xvdc (the file).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh

blk_interop xfab_blkfront xen-blkback xvdb
blk_no_fast_path d1
blk_discard d1 xvdc
blk_resize d1
blk_front_checks d1 32
pass "xfab_blkfront <-> xen-blkback: fio verify, ext4 tree + fsck, discard, resize; flush and indirect used"
