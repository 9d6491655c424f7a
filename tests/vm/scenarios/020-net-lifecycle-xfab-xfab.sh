#!/bin/bash
# 020 network lifecycle, xfab_netfront <-> xfab_netback
# Objective: the xfab pair survives what appliances do to it, and traffic
#   checksums after each step: xl network-detach/attach with a ping
#   running; xfab_netback unloaded and reloaded with the guest alive (the
#   frontend reconnects by itself); xl save + xl restore with a 32 MiB
#   checksummed transfer running across it; xl destroy in the middle of a
#   transfer, after which dom0 holds no vif, no domain, and xfab_netback's
#   summary shows zero vifs, queues, mapped rings and bound channels.
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
DIAG=net_diag

net_use_backend xfab_netback
domu_start d1 --mods xfab_netfront --vcpus 2
net_detach_attach d1
net_backend_reload d1
net_save_restore d1
net_destroy_mid d1
pass "detach/attach, backend reload, save/restore, destroy mid-transfer"
