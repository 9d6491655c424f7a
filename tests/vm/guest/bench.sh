# Helpers for the benchmark scripts (tests/bench/scenarios), sourced after
# lib.sh in dom0. A benchmark records raw figures only:
#
#   b.<set>.<rep>.<workload>.<metric> <value>
#
# set: stock / xfab (the driver pair), rep: 1..BENCH_REPEATS. The host's
# tests/bench/report.py turns them into medians, spreads and ratios.
# Nothing here judges speed; a workload that does not run at all fails.

BENCH_SECS=${BENCH_SECS:-10}		# seconds per measured run
BENCH_REPEATS=${BENCH_REPEATS:-3}	# stock/xfab alternations
BENCH_SIZES=${BENCH_SIZES:-"1K 16K 64K"}	# netperf message sizes
BENCH_SETS=${BENCH_SETS:-"stock xfab"}

rec() { figure "b.$1.$2.$3.$4" "$5"; }

# Driver modules per set: dom0 backend, domU frontend.
bench_backend() { [ "$1" = xfab ] && echo xfab_netback || echo xen-netback; }
bench_frontend() { [ "$1" = xfab ] && echo xfab_netfront || echo xen-netfront; }

# CPU seconds a domain has used so far (xl list's Time(s)).
dom_cpu() { xl list "$1" 2>/dev/null | awk 'NR == 2 { print $6 }'; }

# Event-channel interrupts of a domU's eth0 queues so far.
domu_irqs() {
	domu_must "$1" 10 "awk '\$NF ~ /^eth0-/ { for (i = 2; i < NF; i++) if (\$i ~ /^[0-9]+\$/) s += \$i } END { print s + 0 }' /proc/interrupts"
}

# Packets through a dom0 vif so far, both directions.
vif_pkts() {
	echo $(($(cat "/sys/class/net/$1/statistics/rx_packets") +
		$(cat "/sys/class/net/$1/statistics/tx_packets")))
}

# One line of cost counters for NAME's first vif: dom0 irqs, domU irqs,
# dom0 CPU s, domU CPU s, packets, grant-copy ops, grant-copy hypercalls,
# backend kicks (the last three only from xfab_netback: "-" otherwise).
cost_snap() {
	local name=$1 id dev ops=- calls=- kicks=-
	id=$(domu_id "$name")
	dev=$(vifs_of "$id" | head -n 1)
	if [ "$(net_driver "$dev")" = xfab_netback ]; then
		ops=$(($(vif_counter "$dev" txr_copy_ops) + $(vif_counter "$dev" rxr_copy_ops)))
		calls=$(($(vif_counter "$dev" txr_copy_calls) + $(vif_counter "$dev" rxr_copy_calls)))
		kicks=$(($(vif_counter "$dev" txr_kicks) + $(vif_counter "$dev" rxr_kicks)))
	fi
	echo "$(irq_count "^vif$id\\.") $(domu_irqs "$name") $(dom_cpu Domain-0)" \
		"$(dom_cpu "$name") $(vif_pkts "$dev") $ops $calls $kicks"
}

# Record the differences between two cost_snap lines.
cost_rec() {
	local set=$1 rep=$2 wl=$3 a=$4 b=$5
	set -- irq_dom0 irq_domu cpu_dom0 cpu_domu pkts gnt_copy_ops gnt_copy_calls be_kicks
	paste -d' ' <(printf '%s\n' "$@") <(echo "$a" | tr ' ' '\n') <(echo "$b" | tr ' ' '\n') |
		while read -r k x y; do
			[ "$x" = - ] || [ "$y" = - ] && continue
			rec "$set" "$rep" "$wl" "$k" "$(awk -v x="$x" -v y="$y" 'BEGIN { printf "%.10g", y - x }')"
		done
}

# The throughput field of a netperf -P 0 result line (the last number of
# the first line that has at least 5 fields).
netperf_value() { awk 'NF >= 5 { print $NF; exit }'; }

# bench_measure SET REP WORKLOAD DOMU CMD WHERE: run CMD (in the domU, or
# in dom0 if WHERE is dom0), with cost counters around it; prints CMD's
# output. A run that fails or prints nothing fails the benchmark.
bench_measure() {
	local set=$1 rep=$2 wl=$3 name=$4 cmd=$5 where=${6:-domu} a b out
	a=$(cost_snap "$name")
	if [ "$where" = dom0 ]; then
		out=$(timeout $((BENCH_SECS + 60)) sh -c "$cmd" 2>&1) ||
			fail "$set rep $rep $wl: '$cmd' failed: $(echo "$out" | tail -n 1)"
	else
		out=$(domu_must "$name" $((BENCH_SECS + 60)) "$cmd") || exit $?
	fi
	b=$(cost_snap "$name")
	cost_rec "$set" "$rep" "$wl" "$a" "$b"
	echo "$out"
}

# Record a netperf result as METRIC; fail on a missing number.
netperf_rec() {
	local set=$1 rep=$2 wl=$3 metric=$4 out=$5 v
	v=$(echo "$out" | netperf_value)
	echo "$v" | grep -Eq '^[0-9]+(\.[0-9]+)?$' ||
		fail "$set rep $rep $wl: no result in netperf output: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	rec "$set" "$rep" "$wl" "$metric" "$v"
}
