#!/bin/bash
# 041 block lifecycle: the xfab pair, the RAM disk in relaxed trust
# Objective: xfab_blkfront survives what a guest's life does to a vbd,
#   with the RAM disk (xvdb) in relaxed trust, writes read in place:
#   - xl block-detach / block-attach of the file-backed disk, then fio
#     verify on it;
#   - odd disks attached at run time (loop devices): 4096-byte sectors
#     (fio verify) and read-only (reads match dom0's file, writes fail);
#   - xl save / xl restore while fio verify runs on xvdb (requests in
#     flight are requeued for the new backend; the "toolstack" sets the
#     trust key of the new backend before the domain runs);
#   - xfab_blkback unloaded and loaded again while fio verify runs on
#     xvdb: the frontend holds the disk, reconnects by itself, verifies;
#   - numbered records written with fdatasync until xl destroy, every
#     acknowledged one on the RAM disk afterwards; then the backend holds
#     no device, ring or mapping, and no guest logged a warning.
# Topology: dom0 (xfab_blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xfab_blkfront, 2 vCPUs, no network), disks xvdb (ram0,
#   xfab-trust=relaxed) and xvdc (the file).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
DIAG=blk_diag

blk_use_backend xfab_blkback
blk_make_disks
BLK_RELAXED=xvdb
domu_start d1 --mods xfab_blkfront --novif --vcpus 2 --paused-hook blk_trust_hook "${BLK_DISKS[@]}"
[ "$(blk_fstat d1 xvdb write_mode)" = in-place ] || fail "xvdb: relaxed trust, but writes are not in place"
blk_reattach d1 xvdc "${BLK_DISKS[3]}"
blk_fio_short d1 xvdc
blk_odd_disks d1
blk_save_restore d1 xvdb
blk_backend_reload d1 xvdb
[ "$(blk_fstat d1 xvdb write_mode)" = in-place ] || fail "xvdb: writes not in place after restore and reload"
figure front_reconnects_xvdb "$(blk_fstat d1 xvdb reconnects)"
figure front_ro_hits_xvdb "$(blk_fstat d1 xvdb ro_hits)"
blk_durability d1 xvdb /dev/ram0
pass "xfab_blkfront <-> xfab_blkback: detach/attach, backend reload and save/restore under fio verify, durable acks at destroy, nothing left"
