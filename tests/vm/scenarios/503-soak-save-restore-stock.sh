#!/bin/bash
# 503 soak: repeated xl save/restore, xen-netfront <-> xen-netback
# Objective: the control for 501 and 502: the same SR_CYCLES (default 6)
#   save/restore cycles with a checksummed stream across each, with the
#   stock pair, so that a stall seen with an xfab end can be told apart
#   from one of the stock frontend or of the nested testbed.
#   make check-full only.
# Topology: dom0 (xen-netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xen-netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

net_use_backend xen-netback
domu_start d1 --mods xen-netfront --vcpus 2
net_save_restore_cycles d1 "${SR_CYCLES:-6}"
pass "${SR_CYCLES:-6} save/restore cycles with a stream running, all checksummed"
