#!/bin/bash
# 901 network benchmark, stock pairs vs xfab pairs, trust-matched
# Objective: the raw figures of `make bench` for the network: netperf
#   TCP_STREAM (domU -> dom0) and TCP_MAERTS (dom0 -> domU) at each of
#   BENCH_SIZES, TCP_RR, UDP_STREAM of 64-byte messages d1 -> dom0
#   (packets/s as the receiver counted them), TCP_STREAM d1 -> d2
#   through dom0's bridge, TCP_STREAM over loopback inside d1 at each
#   size (the "monolithic" reference, no driver involved, in rounds 1,
#   4, 7, ...: bench_ref_round),
#   and a null run (the harness's snapshots around a sleep: what the
#   harness itself costs; once a round). With BENCH_MORE also UDP
#   dom0 -> d1, TCP_STREAM 16K from d1 with its TSO and GSO off (one
#   packet per TCP segment: what xfab_netback's LRO merges; for the xfab
#   pair also with LRO off, as set xfabnl), and the null run in every
#   set's turn. Cost counters around every run.
#   Every round runs every set of BENCH_SETS, in an order rotated each
#   round (bench.sh's bench_order). The default sets are two
#   trust-matched pairs: stocksafe (xen-netfront with trusted=0: it
#   bounces TX and RX through private pages) against xfab (default
#   trust: TX copied into the bounce pool), and stock (TX granted in
#   place) against xfabptr (pointer mode: TX passed by pointer through
#   dom0's window, domU -> domU by reference; run.sh boots the patched
#   Xen for it). More sets are xfabro (relaxed trust: TX granted in
#   place, no pointer mode) and experiments on the xfab pair: xfabpoll
#   (the backend's in-ring polling on: ethtool -C rx-usecs 50), xfablend
#   (the guests lend RX pool pages to their stack:
#   xfab_netfront.rx_lend=256, in relaxed trust, the only trust it lends
#   in), xfabkick (xfab_netback notifies a guest at most once per
#   BENCH_KICK_US, 1000; ethtool -C tx-usecs) and xfabdefer (the guest's
#   NAPI defers RX interrupts: napi_defer_hard_irqs BENCH_DEFER, 2, and
#   gro_flush_timeout BENCH_FLUSH_NS, 50000). Fails only if a workload
#   does not run or a set's setting did not reach its driver.
# Topology: dom0 (the set's backend, bridge xenbr0 10.0.0.1/24, netserver)
#   <-> d1 (10.0.0.2/24, 2 vCPUs) and d2 (10.0.0.3/24, 1 vCPU; not with
#   BENCH_D2=0), both with the set's frontend. The domUs are booted once
#   and each set's turn gets new vifs and a freshly loaded frontend
#   (bench_net_switch): a boot costs 17-30 s, a swap a few.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/bench.sh
DIAG=net_diag

# np SET REP WL M ARGS: one netperf run from d1 (bench_np).
np() { bench_np d1 "$@"; }

# UDP_STREAM of 64-byte messages, d1 -> dom0 (udp_64) or, with "in",
# dom0 -> d1 (udp_64_in): the second result line is the receiving
# netserver's: secs, messages.
np_udp() {
	local set=$1 rep=$2 wl=udp_64 out
	if [ "${3:-}" = in ]; then
		wl=udp_64_in
		out=$(bench_measure "$set" "$rep" $wl d1 \
			"netperf -H 10.0.0.2 -t UDP_STREAM -l $BENCH_SECS -P 0 -- -m 64" dom0) || exit $?
	else
		out=$(bench_measure "$set" "$rep" $wl d1 \
			"netperf -H 10.0.0.1 -t UDP_STREAM -l $BENCH_SECS -P 0 -- -m 64") || exit $?
	fi
	netperf_udp_rec "$set" "$rep" "$wl" "$out"
}

# TCP_STREAM 16K with d1's segment offloads off; for the xfab pair also
# with LRO (rx-gro-hw) off on its vif, recorded as set xfabnl.
np_nogso() {
	local set=$1 rep=$2 vif args="-H 10.0.0.1 -t TCP_STREAM -l $BENCH_SECS -P 0 -f m -- -m 16K"
	vif=vif$(bench_id d1).0
	domu_must d1 30 "ethtool -K eth0 tso off gso off" >/dev/null || exit $?
	np "$set" "$rep" tcp_stream_nogso_16K mbit "$args"
	if [ "$set" = xfab ]; then
		must ethtool -K "$vif" rx-gro-hw off
		np xfabnl "$rep" tcp_stream_nogso_16K mbit "$args"
		must ethtool -K "$vif" rx-gro-hw on
	fi
	domu_must d1 30 "ethtool -K eth0 tso on gso on" >/dev/null || exit $?
}

# The domUs, booted once (without a vif) and given each set's drivers
# in turn (bench_net_switch): NAME,IP,MAC each.
DOMUS="d1,10.0.0.2/24,00:16:3e:00:00:02"
[ "$BENCH_D2" = 1 ] && DOMUS="$DOMUS d2,10.0.0.3/24,00:16:3e:00:00:03"

bench_net_set() {
	local set=$1 rep=$2 s
	bench_net_switch "$set" $DOMUS
	for s in $(xl list | awk 'NR > 2 { print $1 }'); do
		bench_net_ready "$set" "$s"
	done
	wait_for 30 ping -c 1 -W 1 10.0.0.2 || fail "$set: d1 does not answer ping"
	local T=$BENCH_SECS size
	bench_null "$set" "$rep" d1
	for size in $BENCH_SIZES; do
		np "$set" "$rep" "tcp_stream_$size" mbit "-H 10.0.0.1 -t TCP_STREAM -l $T -P 0 -f m -- -m $size"
		np "$set" "$rep" "tcp_maerts_$size" mbit "-H 10.0.0.1 -t TCP_MAERTS -l $T -P 0 -f m -- -m $size"
	done
	np "$set" "$rep" tcp_rr trans_s "-H 10.0.0.1 -t TCP_RR -l $T -P 0"
	np_udp "$set" "$rep"
	if bench_more; then
		np_udp "$set" "$rep" in
		np_nogso "$set" "$rep"
	fi
	# the copies into d2's RX pool count too (cost_snap)
	[ "$BENCH_D2" = 1 ] && MEASURE_ALSO=$(bench_id d2) \
		np "$set" "$rep" d1_to_d2_16K mbit "-H 10.0.0.3 -t TCP_STREAM -l $T -P 0 -f m -- -m 16K"
	# The reference does not depend on the set: measured in every third
	# round (bench_ref_round), at every size (the "monolithic" curve).
	if [ "$set" = "${BENCH_SETS%% *}" ] && bench_ref_round "$rep"; then
		for size in $BENCH_SIZES; do
			np ref "$rep" "tcp_stream_$size" mbit "-H 127.0.0.1 -t TCP_STREAM -l $T -P 0 -f m -- -m $size"
		done
	fi
}

why=$(bench_check_sets net "$BENCH_SETS") || fail "BENCH_SETS: $why"
pgrep -x netserver >/dev/null || netserver >/dev/null 2>&1 || fail "netserver would not start in dom0"
log "bench: $BENCH_REPEATS rounds of '$BENCH_SETS', ${BENCH_SECS}s runs, sizes $BENCH_SIZES"
domu_start d1 --novif --mods "" --vcpus 2
[ "$BENCH_D2" = 1 ] && domu_start d2 --novif --mods "" --vcpus 1
bench_ids $(xl list | awk 'NR > 2 { print $1 }')
bench_rounds "$BENCH_SETS" bench_net_set
for s in $(xl list | awk 'NR > 2 { print $1 }'); do
	domu_destroy "$s" >/dev/null
done
wait_for 30 sh -c "! ls /sys/class/net | grep -q '^vif'" || fail "vifs left after destroying the domUs"
pass "network benchmark: $BENCH_REPEATS rounds of $BENCH_SETS"
