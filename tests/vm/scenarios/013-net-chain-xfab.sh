#!/bin/bash
# 013 network: three xfab guests in a chain, the middle one forwarding
# Objective: the setup of the benchmark's chain (903) works and carries
#   data intact: a reaches c only through b, which forwards IP between
#   its two vifs (the second one on another bridge); 16 MiB of seeded
#   TCP from a to c and 16 MiB from c to a, each checksummed at both
#   ends. Every packet crosses xfab_netback twice and b's xfab_netfront
#   on both of its vifs (what an appliance's middle VM does).
# Topology: dom0 (xfab_netback; bridges xenbr1 and xenbr2, no address)
#   <-> a (xfab_netfront, 10.1.0.2/24 on xenbr1), b (xfab_netfront, eth0
#   10.1.0.1/24 on xenbr1, eth1 10.2.0.1/24 on xenbr2, forwarding), c
#   (xfab_netfront, 10.2.0.2/24 on xenbr2); 1 vCPU each (chain.sh).
# Tier: check-full
#   The benchmark's own setup (make bench runs it every round); make
#   check covers its drivers with 012 and 032 and keeps its time.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/chain.sh
DIAG=net_diag

net_use_backend xfab_netback
chain_boot xfab_netfront "" ""
id=$(domu_id b)
[ "$(vifs_of "$id" | wc -l)" = 2 ] || fail "b has not two vifs: $(vifs_of "$id" | tr '\n' ' ')"
for n in eth0 eth1; do
	[ "$(net_driver $n b)" = xfab_netfront ] || fail "b's $n is not driven by xfab_netfront"
done
chain_route
xfer_domu_to_domu a c 10.2.0.2 16777216 31 tcp_chain_a_to_c_mbit
xfer_domu_to_domu c a 10.1.0.2 16777216 32 tcp_chain_c_to_a_mbit
chain_down
pass "a -> b -> c: b forwards between its two xfab vifs; 16 MiB each way intact"
