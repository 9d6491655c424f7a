#!/bin/bash
# 030 block interop: frontend xen-blkfront, backend xfab_blkback
# Objective: one cell of the {stock, xfab} x {stock, xfab} blkif matrix
#   on two disks, one backed by a dom0 RAM disk and one by a file in
#   dom0 (loop): the intended drivers are bound; on the RAM disk fio
#   with verify=crc32c over 4 KiB..1 MiB, random and sequential, iodepth
#   1 and 32, on the file a 64 KiB random read/write fio verify; on both
#   ext4 with a copy of the guest's /usr, e2fsck clean, read back equal;
#   a discard of the file-backed disk. Then the backend's counters must
#   show what was negotiated was used: 2 rings, persistent grants reused,
#   indirect requests, flushes from ext4, discards, and no refused or
#   failed request.
# Topology: dom0 (xfab_blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xen-blkfront, 2 vCPUs, no network), disks xvdb (ram0) and
#   xvdc (the file).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh

blk_interop xen-blkfront xfab_blkback
blk_discard d1 xvdc

for dev in xvdb xvdc; do
	for c in rd_req wr_req flush_req indirect_req grant_maps map_calls \
		pgrant_hits persistent_grants kicks irqs; do
		figure "${c}_$dev" "$(blk_stat d1 $dev $c)"
	done
	[ "$(blk_stat d1 $dev rings)" = 2 ] || fail "$dev: $(blk_stat d1 $dev rings) rings, want 2 (2 vCPUs)"
	[ "$(blk_stat d1 $dev pgrant_hits)" -gt 0 ] || fail "$dev: no persistent grant reused"
	[ "$(blk_stat d1 $dev indirect_req)" -gt 0 ] || fail "$dev: no indirect request (1 MiB fio)"
	[ "$(blk_stat d1 $dev flush_req)" -gt 0 ] || fail "$dev: no flush (ext4 journal commits)"
	for c in io_errors map_errors err_bad_op err_not_offered err_read_only \
		err_empty err_too_many_segs err_bad_sect err_misaligned err_range \
		err_bad_indirect; do
		[ "$(blk_stat d1 $dev $c)" = 0 ] || fail "$dev: $c = $(blk_stat d1 $dev $c)"
	done
done
pass "xen-blkfront <-> xfab_blkback: fio verify, ext4 tree + fsck, discard; 2 rings, persistent, indirect, flush used"
