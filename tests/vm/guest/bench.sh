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
BENCH_D2=${BENCH_D2:-1}			# 0: no second domU (quick mode)

rec() { figure "b.$1.$2.$3.$4" "$5"; }

# bench_rounds SETS FN: FN SET REP for every set in SETS, BENCH_REPEATS
# rounds over the sets in turn, so that drift hits them all alike.
bench_rounds() {
	local sets=$1 fn=$2 rep set
	for rep in $(seq "$BENCH_REPEATS"); do
		for set in $sets; do
			log "== round $rep, $set"
			"$fn" "$set" "$rep"
		done
	done
}

# Driver modules per set: dom0 backend, domU frontend. Sets named xfab*
# (xfab and its experiments) use the xfab pair.
bench_backend() { case $1 in xfab*) echo xfab_netback ;; *) echo xen-netback ;; esac; }
bench_frontend() { case $1 in xfab*) echo xfab_netfront ;; *) echo xen-netfront ;; esac; }

# CPU seconds a domain has used so far (xl list's Time(s)).
dom_cpu() { xl list "$1" 2>/dev/null | awk 'NR == 2 { print $6 }'; }

# Shell text for the domU: prints "@irqs N", the event-channel interrupts
# of its network queues so far (xen-netfront names them vif<devid>-q<N>-*,
# xfab_netfront eth0-q<N>*). Run before and after the workload, in the
# same command, to spare two agent round trips per run.
DOMU_IRQS="awk '\$NF ~ /^(eth0|vif[0-9]+)-q[0-9]/ { for (i = 2; i < NF; i++) if (\$i ~ /^[0-9]+\$/) s += \$i } END { print \"@irqs\", s + 0 }' /proc/interrupts"
# Likewise "@fekicks N": notifications xfab_netfront sent ("-" for
# xen-netfront, which does not count them).
DOMU_KICKS="ethtool -S eth0 | awk '/_(tx|rx)_kicks:/ { s += \$2; x = 1 } END { print \"@fekicks\", x ? s : \"-\" }'"

# Where a domain's vCPU time went, from its own /proc/stat (USER_HZ
# ticks summed over its vCPUs): user, system, irq + softirq, idle +
# iowait, steal, then context switches. Idle is time with nothing to do,
# steal time runnable while Xen ran another vCPU: the pair says whether
# a run is limited by work or by waiting. For the domU, DOMU_STAT prints
# the same as one "@stat ..." line.
stat_snap() {
	awk '/^cpu / { u = $2 + $3; s = $4; q = $7 + $8; i = $5 + $6; t = $9 }
		/^ctxt / { c = $2 } END { print u, s, q, i, t, c }' /proc/stat
}
DOMU_STAT="awk '/^cpu / { u = \$2 + \$3; s = \$4; q = \$7 + \$8; i = \$5 + \$6; t = \$9 } /^ctxt / { c = \$2 } END { print \"@stat\", u, s, q, i, t, c }' /proc/stat"
STAT_NAMES="tick_usr tick_sys tick_irq tick_idle tick_steal ctxt"

# The values of the KEY lines ("KEY v1 v2 ...") of a domU command's
# output: the Nth such line (1 = the first, $ = the last).
domu_vals() { echo "$1" | awk -v k="$2" '$1 == k { $1 = ""; print substr($0, 2) }' | sed -n "${3}p"; }

# One line of dom0-side cost counters for NAME's first vif: dom0 irqs,
# dom0 CPU s, domU CPU s, packets (both directions), then grant-copy ops,
# grant-copy hypercalls and backend kicks ("-" unless xfab_netback).
cost_snap() {
	local name=$1 id dev pk
	id=$(domu_id "$name")
	dev=$(vifs_of "$id" | head -n 1)
	pk=$(($(cat "/sys/class/net/$dev/statistics/rx_packets") +
		$(cat "/sys/class/net/$dev/statistics/tx_packets")))
	echo "$(irq_count "^vif$id\\.") $(dom_cpu Domain-0) $(dom_cpu "$name") $pk" \
		"$(ethtool -S "$dev" | awk '
			/_(txr|rxr)_copy_ops:/ { o += $2; x = 1 }
			/_(txr|rxr)_copy_calls:/ { c += $2 }
			/_(txr|rxr)_kicks(_late)?:/ { k += $2 }
			END { if (x) print o, c, k; else print "- - -" }')"
}

# Record the differences between two lines of values named by $1 (a
# space-separated list). Logged on stderr: stdout is the workload's.
cost_rec() {
	local set=$1 rep=$2 wl=$3 names=$4 a=$5 b=$6
	paste -d' ' <(printf '%s\n' $names) <(echo "$a" | tr ' ' '\n') <(echo "$b" | tr ' ' '\n') |
		while read -r k x y; do
			{ [ "$x" = - ] || [ "$y" = - ] || [ -z "$y" ]; } && continue
			rec "$set" "$rep" "$wl" "$k" "$(awk -v x="$x" -v y="$y" 'BEGIN { printf "%.10g", y - x }')" >&2
		done
}

# The throughput field of a netperf -P 0 result line: the last field of
# the first line of at least 5 fields that starts with a number (netperf
# can print warnings such as "catcher: timer popped with times_up != 0"
# before it, which once went into a report as 0 Mbit/s).
netperf_value() { awk 'NF >= 5 && $1 ~ /^[0-9]+$/ { print $NF; exit }'; }

# bench_measure SET REP WORKLOAD DOMU CMD [dom0]: run CMD in the domU (or
# in dom0) with the cost counters of the domU's vif around it; prints
# CMD's output. A run that fails fails the benchmark.
bench_measure() {
	local set=$1 rep=$2 wl=$3 name=$4 cmd=$5 a b out k
	local snap="$DOMU_IRQS; $DOMU_KICKS; $DOMU_STAT" d0=() du=()
	a="$(cost_snap "$name") $(stat_snap)"
	if [ "${6:-}" = dom0 ]; then
		out=$(domu_must "$name" 60 "$snap") || exit $?
		out+=$'\n'$(timeout $((BENCH_SECS + 60)) $cmd 2>&1) ||
			fail "$set rep $rep $wl: '$cmd' failed in dom0: $(echo "$out" | tail -n 1)"
		out+=$'\n'$(domu_must "$name" 60 "$snap") || exit $?
	else
		out=$(domu_must "$name" $((BENCH_SECS + 60)) \
			"$snap; $cmd; rc=\$?; $snap; exit \$rc") || exit $?
	fi
	b="$(cost_snap "$name") $(stat_snap)"
	for k in $STAT_NAMES; do
		d0+=("${k}_dom0")
		du+=("${k}_domu")
	done
	cost_rec "$set" "$rep" "$wl" "irq_dom0 cpu_dom0 cpu_domu pkts gnt_copy_ops gnt_copy_calls be_kicks ${d0[*]}" "$a" "$b"
	cost_rec "$set" "$rep" "$wl" "irq_domu fe_kicks ${du[*]}" \
		"$(for k in @irqs @fekicks @stat; do domu_vals "$out" $k 1; done | tr '\n' ' ')" \
		"$(for k in @irqs @fekicks @stat; do domu_vals "$out" $k '$'; done | tr '\n' ' ')"
	echo "$out" | grep -v '^@\(irqs\|fekicks\|stat\)'
}

# Record a netperf result as METRIC; fail on a missing number. With a
# rate (mbit), also netperf's elapsed seconds (the field before it): the
# report's CPU per GB divides by what the run moved.
netperf_rec() {
	local set=$1 rep=$2 wl=$3 metric=$4 out=$5 v secs
	v=$(echo "$out" | netperf_value)
	echo "$v" | grep -Eq '^[0-9]+(\.[0-9]+)?$' ||
		fail "$set rep $rep $wl: no result in netperf output: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	rec "$set" "$rep" "$wl" "$metric" "$v"
	[ "$metric" = mbit ] || return 0
	secs=$(echo "$out" | awk 'NF >= 5 && $1 ~ /^[0-9]+$/ { print $(NF - 1); exit }')
	echo "$secs" | grep -Eq '^[0-9]+(\.[0-9]+)?$' && rec "$set" "$rep" "$wl" secs "$secs"
}
