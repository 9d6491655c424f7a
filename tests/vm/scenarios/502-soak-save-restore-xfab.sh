#!/bin/bash
# 502 soak: repeated xl save/restore, xfab_netfront <-> xfab_netback
# Objective: as 501 with the xfab pair: SR_CYCLES (default 6) save/restore
#   cycles of d1 with a 32 MiB checksummed stream running across each,
#   16 MiB each way after each. make check-full only.
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

net_use_backend xfab_netback
domu_start d1 --mods xfab_netfront --vcpus 2
net_save_restore_cycles d1 "${SR_CYCLES:-6}"
pass "${SR_CYCLES:-6} save/restore cycles with a stream running, all checksummed"
