#!/bin/bash
# 021 network lifecycle, xen-netfront <-> xfab_netback
# Objective: xfab_netback handles a stock guest's lifecycle: xl
#   network-detach/attach with a ping running; a vif attached with xl's
#   rate=24Mb/s@20ms holds the guest's stream to that rate (and one
#   attached without it does not); xl save + xl restore with a
#   checksummed stream running; xl destroy mid-transfer leaves no vif,
#   no domain and a zero xfab_netback summary. (No backend reload here:
#   the stock frontend does not reconnect after its backend went away,
#   with either backend.) Soak 501 repeats the save/restore.
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xen-netfront, eth0 10.0.0.2/24, 2 vCPUs).
# Tier: check-full
#   (make check runs this backend's lifecycle with the xfab frontend,
#   020, and this pair's interop cell, 010)
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

net_use_backend xfab_netback
domu_start d1 --mods xen-netfront --vcpus 2
net_detach_attach d1
net_rate_limit d1
net_save_restore d1
net_destroy_mid d1
pass "detach/attach, rate limit, save/restore, destroy mid-transfer"
