#!/bin/bash
# 022 network lifecycle, xfab_netfront <-> xen-netback
# Objective: xfab_netfront handles the lifecycle against the stock
#   backend: xl network-detach/attach with a ping running; xl save + xl
#   restore with a 32 MiB checksummed transfer across it (the frontend's
#   resume path reconnects to a new backend); xl destroy mid-transfer
#   leaves no vif and no domain in dom0.
# Topology: dom0 (xen-netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs).
# Tier: check-full
#   (make check runs this frontend's lifecycle with the xfab backend,
#   020, and this pair's interop cell, 011)
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

net_use_backend xen-netback
domu_start d1 --mods xfab_netfront --vcpus 2
net_detach_attach d1
net_save_restore d1
net_destroy_mid d1
pass "detach/attach, save/restore, destroy mid-transfer"
