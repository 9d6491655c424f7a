#!/bin/bash
# 011 network interop: frontend xfab_netfront, backend xen-netback
# Objective: one cell of the {stock, xfab} x {stock, xfab} netif matrix
#   (001 is the stock x stock cell): the intended drivers are bound at
#   both ends; ping 56..1472 bytes both ways; 64 MiB of seeded TCP
#   each way, both at once, with sha256 compared on both ends; a UDP
#   burst each way with the loss recorded; 2 queues negotiated with 2
#   vCPUs and both carrying interrupts; jumbo ping (MTU 9000) both ways.
#   See net_interop in net.sh.
# Topology: dom0 (xen-netback, bridge xenbr0 10.0.0.1/24) <-> domU d1
#   (xfab_netfront, eth0 10.0.0.2/24, 2 vCPUs).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh

net_interop xfab_netfront xen-netback
pass "xfab_netfront <-> xen-netback: drivers bound, ping, TCP both ways, UDP, 2 queues, jumbo"
