#!/bin/bash
# 903 three-VM chain benchmark: a -> b -> c, b forwarding IP
# Objective: what a packet costs when it crosses two guest hops, as in an
#   appliance whose middle VM routes or filters (Fido's MMNet claimed
#   full transitive zero copy; a chain shows what each pair does at
#   every hop): netperf TCP_STREAM 16K, TCP_RR and UDP_STREAM of 64-byte
#   messages (packets per second at c) from a to c, through b, which
#   forwards between its two vifs. netperf sets SO_DONTROUTE on a UDP
#   stream's socket unless told -R 1: to c, a subnet away, its sends
#   failed at once (netperf exited 1). The same over loopback inside a
#   is the "monolithic" reference (rounds 1, 4, 7, ...). Every set of
#   BENCH_SETS, rotated each round as 901 does, and a null run once a
#   round (in every set's turn with BENCH_MORE). Fails
#   only if a workload does not run or a set's setting did not reach its
#   driver.
# Topology: dom0 (the set's backend; bridges xenbr1 and xenbr2, no
#   address) <-> a (10.1.0.2/24 on xenbr1) ; b (eth0 10.1.0.1/24 on
#   xenbr1, eth1 10.2.0.1/24 on xenbr2, ip_forward=1) ; c (10.2.0.2/24 on
#   xenbr2, netserver). Every domU runs the set's frontend, 1 vCPU and
#   512 MiB. The three are booted once, without a vif, and each set's
#   turn gives them new vifs and a freshly loaded frontend
#   (bench_net_switch), as in 901.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/bench.sh
. /xfab/guest/chain.sh
DIAG=net_diag

# np_chain SET REP WL M ARGS: one netperf run from a (bench_np).
np_chain() { bench_np a "$@"; }

# udp_chain SET REP HOST: UDP_STREAM of 64-byte messages from a to HOST,
# routed, as packets per second the receiving netserver counted.
udp_chain() {
	local out
	out=$(bench_measure "$1" "$2" chain_udp_64 a \
		"netperf -H $3 -t UDP_STREAM -l $BENCH_SECS -P 0 -- -m 64 -R 1") || exit $?
	netperf_udp_rec "$1" "$2" chain_udp_64 "$out"
}

bench_chain_set() {
	local set=$1 rep=$2 T=$BENCH_SECS s
	bench_net_switch "$set" $CHAIN_DOMUS
	for s in a b c; do
		bench_net_ready "$set" "$s"
	done
	# new interfaces: b's second address, forwarding and the routes again
	chain_route
	# what b's and c's backends copy counts too (cost_snap)
	MEASURE_ALSO="$(bench_id b) $(bench_id c)"
	bench_null "$set" "$rep" a
	np_chain "$set" "$rep" chain_stream_16K mbit "-H 10.2.0.2 -t TCP_STREAM -l $T -P 0 -f m -- -m 16K"
	np_chain "$set" "$rep" chain_rr trans_s "-H 10.2.0.2 -t TCP_RR -l $T -P 0"
	udp_chain "$set" "$rep" 10.2.0.2
	if [ "$set" = "${BENCH_SETS%% *}" ] && bench_ref_round "$rep"; then
		np_chain ref "$rep" chain_stream_16K mbit "-H 127.0.0.1 -t TCP_STREAM -l $T -P 0 -f m -- -m 16K"
		np_chain ref "$rep" chain_rr trans_s "-H 127.0.0.1 -t TCP_RR -l $T -P 0"
		udp_chain ref "$rep" 127.0.0.1
	fi
}

why=$(bench_check_sets net "$BENCH_SETS") || fail "BENCH_SETS: $why"
log "chain bench: $BENCH_REPEATS rounds of '$BENCH_SETS', ${BENCH_SECS}s runs"
chain_bridges
for s in a b c; do
	domu_start "$s" --novif --mods "" --vcpus 1
done
bench_ids a b c
bench_rounds "$BENCH_SETS" bench_chain_set
chain_down
pass "chain benchmark: $BENCH_REPEATS rounds of $BENCH_SETS"
