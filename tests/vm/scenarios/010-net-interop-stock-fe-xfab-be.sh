#!/bin/bash
# 010 network interop: frontend xen-netfront, backend xfab_netback
# Objective: one cell of the {stock, xfab} x {stock, xfab} netif matrix
#   (001 is the stock x stock cell): the intended drivers are bound at
#   both ends; ping 56..1472 bytes both ways; 64 MiB of seeded TCP
#   each way, both at once, with sha256 compared on both ends; a UDP
#   burst each way with the loss recorded; 2 queues negotiated with 2
#   vCPUs and both carrying interrupts; jumbo ping (MTU 9000) both ways.
#   See net_interop in net.sh. The stock frontend publishes no pool:
#   xfab_netback maps none and grant-copies (net_pool_check); packets
#   for the guest are copied in the sender's context (net_rx_direct_check)
#   and kept until the stock guest took them (net_rx_hold_check); its
#   TX ring is not polled, even with rx-usecs 1000 (net_poll_check).
# Topology: dom0 (xfab_netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xen-netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh

net_interop xen-netfront xfab_netback
net_pool_check "$(domu_id d1)" none
net_rx_direct_check "$(domu_id d1)"
net_rx_hold_check "$(domu_id d1)"
net_poll_check "$(domu_id d1)" stock
pass "xen-netfront <-> xfab_netback: drivers bound, ping, TCP both ways, UDP, 2 queues, jumbo"
