#!/bin/bash
# 020 network lifecycle, xfab_netfront <-> xfab_netback
# Objective: the xfab pair survives what appliances do to it, and traffic
#   checksums after each step: xl network-detach/attach with a ping
#   running; xfab_netback unloaded and reloaded with the guest alive (the
#   frontend reconnects by itself); xl save + xl restore with a 32 MiB
#   checksummed transfer running across it; xl destroy in the middle of a
#   transfer, after which dom0 holds no vif, no domain, and xfab_netback's
#   summary shows zero vifs, queues, mapped rings and bound channels.
#   Trust: TX starts copied through the bounce pool (default trust); the
#   toolstack then writes xfab-trust=relaxed, and the reconnect after the
#   reload must grant TX pages in place, traffic still checksumming; the
#   restored guest has a new vif directory without the key and copies
#   again. In check-full the guest also asks to lend RX pool pages to
#   its stack (rx_lend=256, off by default), which it does under relaxed
#   trust only: from the reload to the save, whose teardown finds some
#   of them still lent; make check runs the default.
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
DIAG=net_diag

# nf_tx_mode NAME MODE: every queue of the guest's eth0 sends TX in MODE
# (xfab_netfront's debugfs: "bounce pool" or "granted in place").
nf_tx_mode() {
	local out
	out=$(domu_must "$1" 20 "grep -h '^tx: ids' /sys/kernel/debug/xfab_netfront/eth0/q*") || exit $?
	echo "$out" | grep -q . && ! echo "$out" | grep -vq "$2" ||
		fail "$1 eth0 TX is not \"$2\": $out"
	log "$1 eth0 TX: $2"
}

net_use_backend xfab_netback
# RX pool lending (off by default) asked for in check-full: it lends
# under relaxed trust only
lend=()
[ -n "${XFAB_FULL:-}" ] && lend=(--kargs xfab_netfront.rx_lend=256)
domu_start d1 --mods xfab_netfront --vcpus 2 "${lend[@]}"
net_detach_attach d1
nf_tx_mode d1 "bounce pool"
id=$(domu_id d1)
dev=$(vifs_of "$id" | head -n 1)
must xenstore-write "/local/domain/$id/device/vif/${dev#*.}/xfab-trust" relaxed
net_backend_reload d1
nf_tx_mode d1 "granted in place"
net_save_restore d1
nf_tx_mode d1 "bounce pool"
net_destroy_mid d1
pass "detach/attach, backend reload, save/restore, destroy mid-transfer"
