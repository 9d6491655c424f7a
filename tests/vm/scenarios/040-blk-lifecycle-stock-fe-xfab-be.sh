#!/bin/bash
# 040 block lifecycle: frontend xen-blkfront, backend xfab_blkback
# Objective: the vbd survives what a guest's life does to it:
#   xl block-detach / block-attach of the file-backed disk, then fio
#   verify on it; xl save / xl restore while fio verify runs on the RAM
#   disk, which must still verify; numbered records written with
#   fdatasync until xl destroy, every acknowledged one on the RAM disk
#   afterwards; after the destroy the backend holds no device, ring or
#   grant mapping (its debugfs summary), and dom0's log has no warning
#   (the harness scans it).
# Topology: dom0 (xfab_blkback; brd /dev/ram0 and a 256 MiB file) <->
#   domU d1 (xen-blkfront, 2 vCPUs, no network), disks xvdb (ram0) and
#   xvdc (the file).
# Tier: check-full
#   (make check runs this backend's lifecycle with the xfab frontend,
#   041, and this pair's interop cell, 030)
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
DIAG=blk_diag

blk_use_backend xfab_blkback
blk_make_disks
domu_start d1 --mods xen-blkfront --novif --vcpus 2 "${BLK_DISKS[@]}"
blk_reattach d1 xvdc "${BLK_DISKS[3]}"
blk_fio_short d1 xvdc
blk_save_restore d1 xvdb
blk_durability d1 xvdb /dev/ram0
pass "xen-blkfront <-> xfab_blkback: detach/attach, save/restore under fio verify, durable acks at destroy, nothing left"
