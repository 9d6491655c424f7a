#!/bin/bash
# 501 soak: repeated xl save/restore, xen-netfront <-> xfab_netback
# Objective: net_save_restore (as in 020-022) with the stock frontend,
#   SR_CYCLES times (default 6) in a row on one guest: each cycle saves
#   and restores d1 while a 32 MiB checksummed stream runs from it,
#   then checks 16 MiB each way. Any stalled stream (no progress for its
#   idle limit) fails with the counters and ring dumps of both ends.
#   make check-full only. It found the restore stall that xfab_netback's
#   bind-with-the-irq-off fixed (a restored guest's queue lost its first
#   EOI: 4 runs of 4 failed within four cycles before, 8 cycles clean
#   after); 503 runs the same with the stock pair.
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xen-netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

net_use_backend xfab_netback
domu_start d1 --mods xen-netfront --vcpus 2
net_save_restore_cycles d1 "${SR_CYCLES:-6}"
pass "${SR_CYCLES:-6} save/restore cycles with a stream running, all checksummed"
