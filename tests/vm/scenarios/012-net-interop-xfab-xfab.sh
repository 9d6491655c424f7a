#!/bin/bash
# 012 network interop: frontend xfab_netfront, backend xfab_netback
# Objective: one cell of the {stock, xfab} x {stock, xfab} netif matrix
#   (001 is the stock x stock cell): the intended drivers are bound at
#   both ends; ping 56..1472 bytes both ways; 64 MiB of seeded TCP
#   each way, both at once, with sha256 compared on both ends; a UDP
#   burst each way with the loss recorded; 2 queues negotiated with 2
#   vCPUs and both carrying interrupts; jumbo ping (MTU 9000) both ways.
#   See net_interop in net.sh. The fast path: the backend maps the
#   frontend's TX bounce pool and RX pool and copies every byte either
#   way with memcpy, no grant copy; the frontend copies packets out of
#   its RX pool and ends no grant per packet (net_pool_check); in
#   check-full, asked to lend pool pages to its stack (rx_lend=256, off
#   by default) it lends none, as this vif's trust is the default: lent
#   pages stay writable to the backend (020 lends under relaxed trust);
#   packets for the guest are copied in the sender's context
#   (net_rx_direct_check) and kept until the guest took them
#   (net_rx_hold_check). LRO: with TSO
#   off in the guest, the backend merges its TCP segments before dom0's
#   stack, data intact, and stops with rx-gro-hw off; merged packets
#   forwarded to a second guest reach its ring whole (net_lro_check).
#   In check-full only, as both are off by default and make check tests
#   what users run: with ethtool -C rx-usecs 1000 the backend polls the
#   guest's TX ring and finds requests that way; rx-usecs 0 stops it
#   (net_poll_check). With tx-usecs 2000 the backend spaces its
#   notifications of the guest, holding some back for its timer to
#   send, data intact; tx-usecs 0 holds none (net_kick_check).
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs); for the LRO forward,
#   d2 (xfab_netfront, 10.0.0.3/24, 1 vCPU) on the same bridge.
#   Hotplug: Debian's vif-bridge and block scripts, as a user's dom0
#   runs them (other scenarios use the testbed's quick ones).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
hotplug_scripts debian || error "could not switch to Debian's hotplug scripts"

# check-full: lending asked for, refused, as the toolstack did not
# relax trust; make check runs the default (no lending asked)
lend=()
[ -n "${XFAB_FULL:-}" ] && lend=(--kargs xfab_netfront.rx_lend=256)
net_interop xfab_netfront xfab_netback "${lend[@]}"
net_pool_check "$(domu_id d1)" pools
net_rx_direct_check "$(domu_id d1)"
net_rx_hold_check "$(domu_id d1)"
net_lro_check "$(domu_id d1)"
extra=""
if [ -n "${XFAB_FULL:-}" ]; then
	net_poll_check "$(domu_id d1)" xfab
	net_kick_check "$(domu_id d1)"
	extra=", polling, notification spacing"
fi
pass "xfab_netfront <-> xfab_netback: drivers bound, ping, TCP both ways, UDP, 2 queues, jumbo, LRO$extra"
