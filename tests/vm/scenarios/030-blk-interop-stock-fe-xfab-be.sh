#!/bin/bash
# 030 block interop: frontend xen-blkfront, backend xfab_blkback
# Objective: one cell of the {stock, xfab} x {stock, xfab} blkif matrix
#   on two disks, one backed by a dom0 RAM disk and one by a file in
#   dom0 (loop): the intended drivers are bound; on the RAM disk fio
#   with verify=crc32c over 4 KiB..1 MiB, random and sequential, iodepth
#   1 and 32, on the file a 64 KiB random read/write fio verify and
#   ext4 with a copy of the guest's /usr, e2fsck clean, read back equal;
#   a discard of the file-backed disk. Then the backend's counters must
#   show what was negotiated was used: 2 rings, persistent grants reused,
#   indirect requests, flushes from ext4, discards, and no refused or
#   failed request. xvdb is put in relaxed trust (xfab-trust=relaxed,
#   as a toolstack would): with a stock peer that must change nothing.
#   Resize: the file grows by 64 MiB (truncate, losetup -c) with the
#   guest running; it must see the new size and fio verify the new tail.
# Topology: dom0 (xfab_blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xen-blkfront, 2 vCPUs, no network), disks xvdb (ram0) and
#   xvdc (the file).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh

blk_interop xen-blkfront xfab_blkback xvdb
blk_no_fast_path d1
blk_discard d1 xvdc
blk_resize d1
blk_back_checks d1
pass "xen-blkfront <-> xfab_blkback: fio verify, ext4 tree + fsck, discard, resize; 2 rings, persistent, indirect, flush used"
