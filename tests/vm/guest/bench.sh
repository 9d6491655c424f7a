# Helpers for the benchmark scripts (tests/bench/scenarios), sourced after
# lib.sh in dom0 (the host's run.sh sources it too, for the set names). A
# benchmark records raw figures only:
#
#   b.<set>.<rep>.<workload>.<metric> <value>
#
# set: a driver set (BENCH_NET_SETS, BENCH_BLK_SETS), rep: 1..BENCH_REPEATS.
# The host's tests/bench/report.py turns them into medians, per-round
# ratios with intervals, and costs. Nothing here judges speed; a workload
# that does not run at all fails.

# beside this file: dom0's /xfab/guest, or the host's tree
. "${BASH_SOURCE[0]%/*}/net.sh"

BENCH_SECS=${BENCH_SECS:-2}		# seconds per measured run
BENCH_REPEATS=${BENCH_REPEATS:-7}	# rounds over the sets
BENCH_SIZES=${BENCH_SIZES:-16K}		# netperf message sizes
BENCH_D2=${BENCH_D2:-1}			# 0: no second domU
# 1: also the workloads outside the headline (bench_more): 901's UDP
# dom0 -> domU and its runs with segment offloads off (xfabnl), 902's fio
# at iodepth 1, 904's fio over NFS, and a null run in every set's turn
# rather than once a round. Off by default: seven rounds of everything
# take twice the full bench's 75 minutes on this testbed.
BENCH_MORE=${BENCH_MORE:-}
# 1: a profiled round (round 0) before the measured ones: every run of it
# under perf in dom0 and in the domU, its top symbols recorded, none of
# its results (perf's own cost would be in them)
BENCH_PROFILE=${BENCH_PROFILE:-}

# The sets each benchmark knows, the defaults first: the trust-matched
# pairs the report's headline compares (stocksafe with xfab: both copy
# what a guest hands its backend; stock with xfabptr: both hand it over
# in place, xfab's by pointer; for the block pair stockbig with xfab and
# xfabro: requests of the same size), then sets a run names in
# BENCH_SETS / BLK_SETS: xfabro (relaxed trust without pointer mode,
# also beside stock) and stock's block pair with its 128 KiB requests
# among them. The defaults are what seven rounds fit in the full bench's
# 75 minutes (docs/bench.md, "How long").
#   stocksafe  xen-netfront / xen-blkfront with trusted=0: bounce buffers
#   stockbig   xen-blkfront with max_indirect_segments=256 (1 MiB requests)
#   xfabptr    pointer mode (docs/pointer-mode.md): the guests are members
#              of an appliance group in relaxed trust, and dom0 reads
#              their TX through xfab_window; needs the patched Xen, so a
#              run naming it boots that (tests/bench/run.sh), every set
#              in the same boot. Beside stock (both hand over a guest's
#              pages in place).
BENCH_NET_DEFAULT="stocksafe xfab stock xfabptr"
BENCH_NET_SETS="$BENCH_NET_DEFAULT xfabro xfabpoll xfablend xfabkick xfabdefer"
BENCH_BLK_DEFAULT="stockbig xfab xfabro"
BENCH_BLK_SETS="$BENCH_BLK_DEFAULT stock stocksafe xfabsp xfabnp"
BENCH_SETS=${BENCH_SETS:-$BENCH_NET_DEFAULT}

# bench_check_sets KIND LIST: prints why LIST is not a list of KIND's
# (net, blk) sets, each named once, and returns 1; silent if it is.
bench_check_sets() {
	local kind=$1 list=$2 known s seen=" "
	[ "$kind" = net ] && known=$BENCH_NET_SETS || known=$BENCH_BLK_SETS
	[ -n "${list// /}" ] || { echo "no $kind set named (known: $known)"; return 1; }
	for s in $list; do
		case " $known " in
		*" $s "*) ;;
		*) echo "unknown $kind set '$s' (known: $known)"; return 1 ;;
		esac
		case $seen in
		*" $s "*) echo "$kind set '$s' named twice"; return 1 ;;
		esac
		seen="$seen$s "
	done
}

# rec SET REP WL METRIC VALUE: one raw result (nothing from round 0, the
# profiled round)
rec() { [ "$2" = 0 ] || figure "b.$1.$2.$3.$4" "$5"; }

# bench_order SETS REP: the sets in round REP's order, SETS rotated left by
# REP - 1: over any N consecutive rounds each set runs once in each
# position (a Latin square), so neither warm-up nor drift within a round
# favours one set; with two sets the rounds go AB BA AB ...
bench_order() {
	local -a sets=($1)
	local n=${#sets[@]} i
	for ((i = 0; i < n; i++)); do
		echo "${sets[(i + $2 - 1) % n]}"
	done
}

# bench_more: true when BENCH_MORE asks for the workloads outside the
# headline.
bench_more() { [ -n "$BENCH_MORE" ]; }

# bench_ref_round REP: true in the rounds that also measure the
# reference (the same workloads inside one domU, no driver: 1, 4, 7,
# ...). It pairs with no set and does not drift with the drivers, so
# three values give its median, and the four rounds without it spare
# the full bench some 3 minutes (902's and 903's take 20-30 s a round).
bench_ref_round() { [ $((($1 - 1) % 3)) = 0 ]; }

# bench_null SET REP DOMU: the null run from DOMU (the harness alone:
# the snapshots and the agent's round trip around a sleep, so the report
# shows what the harness costs each domain in a window), in the turn of
# the set BENCH_SETS names first: once a round is enough to know that
# load, and each run costs the round seconds. With BENCH_MORE, in every
# set's turn (a driver that polls when idle shows there).
bench_null() {
	[ "$1" = "${BENCH_SETS%% *}" ] || bench_more || return 0
	bench_measure "$1" "$2" null "$3" "sleep $BENCH_SECS" >/dev/null || exit $?
}

# bench_rounds SETS FN: FN SET REP for every set of every round, BENCH_REPEATS
# rounds in bench_order.
bench_rounds() {
	local sets=$1 fn=$2 rep set
	for rep in $([ -n "$BENCH_PROFILE" ] && echo 0) $(seq "$BENCH_REPEATS"); do
		for set in $(bench_order "$sets" "$rep"); do
			log "== round $rep, $set"
			[ "$set" = xfabptr ] && bench_ptr_prepare
			"$fn" "$set" "$rep"
		done
	done
}

# bench_check_param DOMU SET FORSET MODULE PARAM WANT: when SET is FORSET,
# fail unless DOMU's MODULE has PARAM = WANT: a kernel argument that did
# not reach the module would measure the defaults under the set's name.
bench_check_param() {
	local got
	[ "$2" = "$3" ] || return 0
	got=$(domu_must "$1" 10 "cat /sys/module/$4/parameters/$5") || exit $?
	[ "$got" = "$6" ] || fail "$2: $1's $4.$5 is '$got', not $6"
}

# Driver modules per set: dom0 backend, domU frontend. Sets named xfab*
# (xfab and its experiments) use the xfab pair.
bench_backend() { case $1 in xfab*) echo xfab_netback ;; *) echo xen-netback ;; esac; }
bench_frontend() { case $1 in xfab*) echo xfab_netfront ;; *) echo xen-netfront ;; esac; }
# The block pair likewise (902, and 904 whose network sets pick it too).
bench_blk_backend() { case $1 in xfab*) echo xfab_blkback ;; *) echo xen-blkback ;; esac; }
bench_blk_frontend() { case $1 in xfab*) echo xfab_blkfront ;; *) echo xen-blkfront ;; esac; }

# bench_blk_kargs SET: the domU kernel arguments SET gives its block
# frontend.
bench_blk_kargs() {
	case $1 in
	# xen-blkfront's largest requests (256 segments, 1 MiB: what
	# xfab_blkfront sends) instead of its default 32 (128 KiB)
	stockbig) echo xen_blkfront.max_indirect_segments=256 ;;
	# xen-blkfront treats its backend as untrusted (bounces through
	# pages of its own)
	stocksafe) echo xen_blkfront.trusted=0 ;;
	xfabsp) echo xfab_blkfront.split_kb=256 ;;
	esac
}

# ---- the network sets (901, 903) ----

# bench_net_kargs SET: the domU kernel arguments of SET.
bench_net_kargs() {
	case $1 in
	# the guests lend RX pool pages rather than copy
	xfablend) echo xfab_netfront.rx_lend=256 ;;
	# xen-netfront treats its backend as untrusted and bounces TX and RX
	# through private pages (its safe mode since XSA-403), as
	# xfab_netfront's default trust copies TX into its pool
	stocksafe) echo xen_netfront.trusted=0 ;;
	esac
}

# bench_net_hook SET: the paused-domain hook of SET (domu_start). xfablend
# is relaxed too: xfab_netfront lends RX pages only when the toolstack
# relaxed trust (a lent page stays writable to the backend while the
# stack reads it), so in default trust the set measured plain xfab.
bench_net_hook() {
	case $1 in
	xfabro | xfablend) echo bench_relax_hook ;;
	xfabptr) echo bench_ptr_hook ;;
	esac
}

# xfabro's hook: the toolstack relaxes the trust of each of the guest's
# vifs (TX pages granted in place, not copied into the pool).
bench_relax_hook() {
	local d
	for d in $(xenstore-list "/local/domain/$1/device/vif"); do
		xenstore-write "/local/domain/$1/device/vif/$d/xfab-trust" relaxed || return 1
	done
}

# xfabptr's hook: relaxed as xfabro, and a member of the appliance group
# "bench" (xfabctl drops the members of earlier rounds, which are gone),
# both before the frontend connects: it asks for pointer mode only when
# its own group record lists members then.
bench_ptr_hook() {
	bench_relax_hook "$1" && xfabctl group add bench "$1" >/dev/null
}

# bench_mods SET: the modules a domU of SET boots with: its frontend, and
# for xfabptr xfab_window first (the guest reads other members' packets
# through it; its init lets the balloon hotplug before it loads).
bench_mods() {
	local fe
	fe=$(bench_frontend "$1")
	[ "$1" = xfabptr ] && echo "xfab_window,$fe" || echo "$fe"
}

# bench_ptr_prepare: the patched Xen, and dom0 ready for xfabptr's vifs
# (net_ptr_dom0), before they are probed. It stays so for the rest of
# the run: with no group member to read, xfab_window maps nothing and
# the other sets are unchanged.
bench_ptr_prepare() {
	xen_patched || fail "xfabptr needs the patched Xen (xl info has no -xfab in xen_extra)"
	net_ptr_dom0
}

# ---- domUs kept across sets (every bench) ----
# A domU boot costs 17-30 s under TCG on a slow day: the benches boot
# their domUs once, without devices, and give each set's turn fresh
# devices and a freshly loaded frontend (bench_net_switch, blk.sh's
# blk_swap), for the rounds an interval needs (docs/bench.md, "How
# long"). A set's kernel arguments become its frontend's module
# parameters; its paused-domain hook runs between the device's attach
# and the frontend's load, when the toolstack's keys must be there.

# bench_mod_params MODULE WORD...: the kernel arguments among WORDs for
# MODULE (module.param=value) as its module parameters (param=value).
bench_mod_params() {
	local w m=${1//-/_}
	shift
	for w in "$@"; do
		case $w in "$m".*) echo "${w#"$m".}" ;; esac
	done
}

# bench_nb_params SET: for the xfab sets, NET_BE_KARGS
# (xfab_netback.param=value ...) written into the loaded backend before
# the set's vifs are made: its defaults for new vifs (lro, ptr_rx_kb,
# ...), to measure what one feature is worth, or to rule it out. The
# backend stays loaded from one xfab set to the next, so this sets them
# again each time (a run that names none leaves the module's defaults).
BENCH_NB_PARAMS=/sys/module/xfab_netback/parameters
bench_nb_params() {
	local p f
	[ "$(bench_backend "$1")" = xfab_netback ] || return 0
	for p in $(bench_mod_params xfab_netback ${NET_BE_KARGS:-}); do
		f=$BENCH_NB_PARAMS/${p%%=*}
		[ -w "$f" ] || fail "NET_BE_KARGS: xfab_netback has no parameter ${p%%=*} that can be changed while it is loaded"
		echo "${p#*=}" >"$f" 2>/dev/null || fail "NET_BE_KARGS: xfab_netback refused $p"
	done
}

# bench_net_detach NAME: NAME's vifs detached and its frontend unloaded.
bench_net_detach() {
	local name=$1 id v
	id=$(domu_id "$name") || error "domain $name is gone"
	for v in $(vifs_of "$id"); do
		must timeout 90 xl network-detach "$name" "${v##*.}"
	done
	wait_for 30 vif_gone "$id" || fail "$name's vifs still in dom0 30 s after network-detach"
	domu_must "$name" 30 'for m in xen_netfront xfab_netfront; do
		! grep -q "^$m " /proc/modules || rmmod $m || exit 1; done' >/dev/null || exit $?
}

# bench_net_attach SET NAME IP VIF...: NAME's vifs (VIF: MAC or
# MAC@BRIDGE, xenbr0 by default), in order, so the Nth is ethN-1, with
# SET's toolstack keys (its hook), then SET's frontend with its
# parameters, and IP on the first interface.
bench_net_attach() {
	local set=$1 name=$2 ip=$3 id fe hook v
	shift 3
	fe=$(bench_frontend "$set")
	hook=$(bench_net_hook "$set")
	id=$(domu_id "$name") || error "domain $name is gone"
	for v in "$@"; do
		[[ $v == *@* ]] || v=$v@xenbr0
		must timeout 90 xl network-attach "$name" "mac=${v%@*}" "bridge=${v#*@}"
	done
	wait_for 30 sh -c "[ \$(ls /sys/class/net | grep -c '^vif$id\\.') -ge $# ]" ||
		fail "$set: $name has not $# vifs in dom0 30 s after network-attach"
	# side by side (bench_net_switch): xfabctl's adds may run at once
	if [ -n "$hook" ]; then
		"$hook" "$id" || fail "$set: $hook failed for $name (domid $id)"
	fi
	# xfabptr: its window first (bench_mods), once per domU
	if [ "$set" = xfabptr ]; then
		domu_must "$name" 10 "echo 1 >/proc/sys/xen/balloon/hotplug_unpopulated" >/dev/null ||
			exit $?
		domu_exec "$name" 10 "grep -q '^xfab_window ' /proc/modules" >/dev/null ||
			domu_load "$name" xfab_window
	fi
	domu_load "$name" "${fe//-/_}" $(bench_mod_params "$fe" $(bench_net_kargs "$set"))
	domu_ip_up "$name" "$ip"
}

# bench_net_switch SET NAME,IP,VIF[,VIF...]...: every domU named gets
# SET's drivers (dom0's backend swapped while no vif is left).
bench_net_switch() {
	local set=$1 d n ip t0=$SECONDS t1 p pids=() grouped="" vifs
	shift
	bench_sweep "turn over, before $set"
	# side by side: one after the other, two domUs took 10 s to detach
	for d in "$@"; do
		bench_net_detach "${d%%,*}" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || exit $?
	done
	# out of the group a set put them in, in one call (xfabctl rewrites
	# the group's record): xfabptr's frontend would take pointer mode in
	# the next relaxed set otherwise
	for d in "$@"; do
		n=$(domu_id "${d%%,*}")
		xenstore-read "/local/domain/$n/xfab/group" >/dev/null 2>&1 && grouped="$grouped $n"
	done
	[ -z "$grouped" ] || must xfabctl group remove $grouped >/dev/null
	bench_sweep "detached, for $set"
	t1=$SECONDS
	# a sweep between xfab_netback's unload and the stock backend's load
	if [ "${BENCH_SWEEP:-0}" = 1 ] && [ "$(bench_backend "$set")" != xfab_netback ] &&
		lsmod | grep -q "^xfab_netback "; then
		must rmmod xfab_netback
		bench_sweep "xfab_netback unloaded, for $set"
	fi
	net_use_backend "$(bench_backend "$set")"
	bench_nb_params "$set"
	# side by side too: the chain's three took 12-24 s one after the
	# other, and seven rounds of four sets make 28 swaps a benchmark
	pids=()
	for d in "$@"; do
		IFS=, read -r n ip vifs <<<"$d"
		bench_net_attach "$set" "$n" "$ip" ${vifs//,/ } &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || exit $?
	done
	log "$set: drivers swapped in $((SECONDS - t0)) s (detach $((t1 - t0)) s)"
	bench_wn_stats
}

# bench_sweep WHERE: with BENCH_SWEEP=1, make dom0's skb caches hand out
# most of their free objects now (guest/slab_sweep.py), so that a free
# object written after its free oopses dom0 at this checkpoint rather
# than at the next flood: the hunt for dom0's oops (docs/bench.md).
bench_sweep() {
	[ "${BENCH_SWEEP:-0}" = 1 ] || return 0
	log "$(python3 "$XFAB/guest/slab_sweep.py" "$1" 2>&1)"
}

# dom0's window counters, after each swap: the windows dropped, those
# still draining, and how often an unmap waited for a page something
# still referenced (unmap_waited): what dom0's oops hunt needs to know
# of the turns before it (docs/bench.md, "Results so far").
bench_wn_stats() {
	local f=/sys/kernel/debug/xfab_window/stats
	[ -r $f ] || return 0
	log "window: $(awk '$1 ~ /^(windows_made|windows_dropped|windows_draining|unmap_waited|unmap_wait_max_ms)$/ { printf "%s %s ", $1, $2 }' $f)"
}

# bench_net_ready SET NAME: NAME (booted as SET) has the set's drivers
# and settings on every vif, and runs netserver.
bench_net_ready() {
	local set=$1 s=$2 id v n fe be
	fe=$(bench_frontend "$set" | tr - _)
	be=$(bench_backend "$set" | tr - _)
	id=$(domu_id "$s") || error "domain $s is gone"
	for v in $(vifs_of "$id"); do
		n=eth${v##*.}
		[ "$(net_driver "$v")" = "$be" ] || fail "$set: $s's $v is not driven by $be"
		[ "$(net_driver "$n" "$s")" = "$fe" ] || fail "$set: $s's $n is not driven by $fe"
		# the backend's in-ring polling
		[ "$set" = xfabpoll ] && must ethtool -C "$v" rx-usecs 50
		# notifications to the guest at least this far apart
		[ "$set" = xfabkick ] && must ethtool -C "$v" tx-usecs "${BENCH_KICK_US:-1000}"
		if [ "$set" = xfabro ] || [ "$set" = xfablend ]; then
			domu_must "$s" 10 "grep -h '^tx: ids' /sys/kernel/debug/xfab_netfront/$n/q*" |
				grep -q "granted in place" || fail "$set: $s's $n does not grant TX in place"
		fi
		# both ends took pointer mode, and dom0 holds a window over the
		# guest: otherwise the set measures xfabro under another name
		if [ "$set" = xfabptr ]; then
			wait_for 30 net_ptr_on "$id" "${v##*.}" ||
				fail "xfabptr: $s's $n did not take pointer mode (feature-xfab-ptr, xfab-ptr: $(net_ptr_keys "$id" "${v##*.}"))"
			wait_for 30 net_wn_maps "$id" ||
				fail "xfabptr: dom0 holds no window over $s (domid $id)"
			wait_for 60 net_ptr_rx_ready "$s" "$id" "${v##*.}" ||
				fail "xfabptr: $s's $n takes no RX by reference, or its window does not map every member yet (xfab-ptr-rx: $(xenstore-read "/local/domain/$id/device/vif/${v##*.}/xfab-ptr-rx" 2>&1); members: $(xenstore-read "/local/domain/$id/xfab/members" 2>&1))"
		fi
		if [ "$set" = xfablend ]; then
			domu_must "$s" 10 "grep -h '^rx: pool pages off the ring' /sys/kernel/debug/xfab_netfront/$n/q*" |
				grep -q "ring [1-9]" || fail "xfablend: $s's $n lends no RX pages"
		fi
		# the guest's NAPI keeps RX interrupts off for BENCH_DEFER empty
		# polls, BENCH_FLUSH_NS apart
		[ "$set" = xfabdefer ] && domu_must "$s" 10 \
			"echo ${BENCH_DEFER:-2} > /sys/class/net/$n/napi_defer_hard_irqs && echo ${BENCH_FLUSH_NS:-50000} > /sys/class/net/$n/gro_flush_timeout" >/dev/null
	done
	# still running when the domU served the set before
	domu_must "$s" 10 "pidof netserver >/dev/null || netserver >/dev/null 2>&1" >/dev/null || exit $?
	bench_check_param "$s" "$set" stocksafe xen_netfront trusted N
	bench_check_param "$s" "$set" xfablend xfab_netfront rx_lend 256
}

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
# STAT_NAMES for one domain (dom0, domu): "tick_usr_dom0 ...".
stat_names() { local k; for k in $STAT_NAMES; do printf '%s_%s ' "$k" "$1"; done; }

# domu_first_last OUT KEYS: from the KEY lines ("KEY v1 v2 ...") of a
# domU command's output, two lines: the values of each of KEYS' first
# line in KEYS' order, then of its last ("-" for a key with none). One
# awk: a pipeline per key and end cost two processes each, 12 to 24 a
# run, 0.1-0.2 s apiece under TCG.
domu_first_last() {
	echo "$1" | awk -v keys="$2" 'BEGIN { n = split(keys, k, " ") }
		{ for (i = 1; i <= n; i++) if ($1 == k[i]) {
			v = $0; sub(/^[^ ]+ */, "", v)
			if (!(i in f)) f[i] = v
			l[i] = v
		} }
		END {
			for (i = 1; i <= n; i++) printf "%s%s", (i in f) ? f[i] : "-", i < n ? " " : "\n"
			for (i = 1; i <= n; i++) printf "%s%s", (i in l) ? l[i] : "-", i < n ? " " : "\n"
		}'
}

# Domain ids asked of xl once per benchmark (each xl call costs dom0
# about half a second under TCG): the benchmarks boot their domUs once
# and never restart one, and a domU that died fails its next agent round
# trip anyway. bench_ids NAME... fills the cache; the scenario calls it
# in its own shell after the boots, since one filled inside $(...) would
# go with the subshell. bench_id NAME prints NAME's id, from the cache
# when it is there.
declare -gA BENCH_ID=()
bench_ids() {
	local n
	for n in "$@"; do
		BENCH_ID[$n]=$(domu_id "$n") || error "domain $n is gone"
	done
}
bench_id() {
	if [ -n "${BENCH_ID[$1]:-}" ]; then
		echo "${BENCH_ID[$1]}"
	else
		domu_id "$1"
	fi
}

# cost_snap SET ID [ALSO...]: one line of dom0-side cost counters for
# domain ID's first vif: dom0 irqs, packets (both directions), then
# grant-copy ops, grant-copy hypercalls, backend kicks, bytes the backend
# memcpy'd (pool mode, both ways, and copies out of a window) and bytes
# it passed up by pointer ("-" each unless xfab_netback, whose ethtool
# -S is read only for an xfab SET). The last five also count every vif
# of the ALSO domains (bench_measure takes them from MEASURE_ALSO): a
# run between guests costs the receiver's backend its copies too, and
# per byte delivered both count. CPU time comes from the /proc/stat
# ticks (stat_snap), not from xl list: one xl list costs about a second
# of dom0 CPU under TCG, which the window around the run would count.
# Shell builtins where they do (globs, read): it runs twice a run.
cost_snap() {
	local set=$1 id=$2 f dev="" devs="" d rx tx
	shift 2
	for f in /sys/class/net/vif"$id".*; do
		[ -e "$f" ] && [ -z "$dev" ] && dev=${f##*/}
	done
	devs=$dev
	for d in "$@"; do
		for f in /sys/class/net/vif"$d".*; do
			[ -e "$f" ] && devs="$devs ${f##*/}"
		done
	done
	read -r rx <"/sys/class/net/$dev/statistics/rx_packets"
	read -r tx <"/sys/class/net/$dev/statistics/tx_packets"
	echo "$(irq_count "^vif$id\\.") $((rx + tx))" \
		"$(case $set in
		xfab*) for d in $devs; do ethtool -S "$d"; done ;;
		esac | awk '
			/_(txr|rxr)_copy_ops:/ { o += $2; x = 1 }
			/_(txr|rxr)_copy_calls:/ { c += $2 }
			/_(txr|rxr)_kicks(_late)?:/ { k += $2 }
			/_(txr|rxr)_pool_bytes:/ { m += $2 }
			/_txr_ptr_bytes:/ { p += $2 }
			/_rxr_ref_bytes:/ { r += $2 }
			END { if (x) print o, c, k, m, p + 0, r + 0; else print "- - - - - -" }')"
}

# Record the differences between two lines of values named by $4 (a
# space-separated list; "-" or a missing value: not recorded), as the
# figures b.SET.REP.WL.NAME, all at once: one awk and one append, where
# a figure each cost three processes, 0.1-0.2 s apiece under TCG, some
# 5 s of every run's turnaround. Logged on stderr: stdout is the
# workload's.
cost_rec() {
	local set=$1 rep=$2 wl=$3 figs
	[ "$rep" = 0 ] && return 0
	figs=$(awk -v names="$4" -v a="$5" -v b="$6" -v p="b.$set.$rep.$wl." 'BEGIN {
		n = split(names, k, " "); split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++)
			if (x[i] != "" && x[i] != "-" && y[i] != "" && y[i] != "-")
				printf "%s%s %.10g\n", p, k[i], y[i] - x[i] }')
	[ -n "$figs" ] || return 0
	echo "$figs" >>"$OUT.figs"
	log "figures: $(echo "$figs" | sed "s/^b\.$set\.$rep\.$wl\.//" | tr '\n' ' ')" >&2
}

# The throughput field of a netperf -P 0 result line: the last field of
# the first line of at least 5 fields that starts with a number (netperf
# can print warnings such as "catcher: timer popped with times_up != 0"
# before it, which once went into a report as 0 Mbit/s).
netperf_value() { awk 'NF >= 5 && $1 ~ /^[0-9]+$/ { print $NF; exit }'; }

# bench_measure SET REP WORKLOAD DOMU CMD [dom0]: run CMD in the domU (or
# in dom0) with the cost counters of the domU's vif around it; prints
# CMD's output. A run that fails fails the benchmark. dom0's /proc/stat
# is read last before the run and first after it, so that the window its
# ticks cover holds the run and the agent's round trip, not the
# snapshots. MEASURE_TMO: seconds CMD may take (BENCH_SECS + 60), for a
# workload that runs to a size, not for BENCH_SECS (IOZone).
bench_measure() {
	local set=$1 rep=$2 wl=$3 name=$4 cmd=$5 a b s0 s1 out id
	local tmo=${MEASURE_TMO:-$((BENCH_SECS + 60))}
	local snap="$DOMU_IRQS; $DOMU_KICKS; $DOMU_STAT" fl
	# xen-netfront counts no notifications: spare the guest two processes
	[[ $set == xfab* ]] || snap="$DOMU_IRQS; echo @fekicks -; $DOMU_STAT"
	id=$(bench_id "$name") || error "domain $name is gone"
	prof_begin "$rep"
	prof_also_begin "$rep"
	a=$(cost_snap "$set" "$id" ${MEASURE_ALSO:-})
	if [ "${6:-}" = dom0 ]; then
		out=$(domu_must "$id" 60 "$PROF_PRE $snap") || exit $?
		s0=$(stat_snap)
		out+=$'\n'$(timeout "$tmo" $cmd 2>&1) ||
			fail "$set rep $rep $wl: '$cmd' failed in dom0: $(echo "$out" | tail -n 1)"
		s1=$(stat_snap)
		out+=$'\n'$(domu_must "$id" 60 "$PROF_POST $snap") || exit $?
	else
		s0=$(stat_snap)
		# CMD in a subshell: one that ends in exit (IOZone's removes its
		# file first) must not skip the snapshot and the profile after it
		out=$(domu_must "$id" "$tmo" \
			"$PROF_PRE $snap; ($cmd); rc=\$?; $PROF_POST $snap; exit \$rc") || exit $?
		s1=$(stat_snap)
	fi
	prof_end "$set" "$rep" "$wl" "$id"
	prof_also_end "$set" "$rep" "$wl"
	b=$(cost_snap "$set" "$id" ${MEASURE_ALSO:-})
	cost_rec "$set" "$rep" "$wl" "irq_dom0 pkts gnt_copy_ops gnt_copy_calls be_kicks copy_bytes ptr_bytes ref_bytes $(stat_names dom0)" "$a $s0" "$b $s1"
	fl=$(domu_first_last "$out" "@irqs @fekicks @stat")
	cost_rec "$set" "$rep" "$wl" "irq_domu fe_kicks $(stat_names domu)" \
		"${fl%%$'\n'*}" "${fl#*$'\n'}"
	# the command's own output; none (the null run's sleep) is no failure
	echo "$out" | grep -v '^@\(irqs\|fekicks\|stat\|prof\)' || true
}

# The profiled round (BENCH_PROFILE, round 0): perf samples every vCPU of
# dom0 and of the measured domU while a run goes, with cpu-clock (a
# software timer: a PV guest, and anything under TCG, has no hardware
# counters to sample); the PROF_TOP busiest symbols of each domain become
# figures p.SET.WL.DOMAIN.RANK = "percent task dso symbol", which the
# report lists. PERF_TOP_SH: shell text that prints those lines from the
# perf.data named by $pf (dom0 and the domU run the same text); perf
# report's lines are "12.34%  task  [kernel.kallsyms]  [k] symbol", and
# the [k]/[.] column goes. The idle task's lines go too: a PV kernel
# idles in a hypercall, so its samples all land on xen_hypercall_pv and
# topped every list (97 % of dom0's in the chain) while saying nothing;
# percentages stay of all samples, idle included. A run that gave no
# profile records one line "0 no profile: ..." with the last words of
# perf record and perf report, so the report says so and the benchmark
# goes on (it happened once, in a guest whose kernel had cut perf's
# sample rate to next to nothing: PERF_UNTHROTTLE below).
# After them, one line "= busy B xen X copy C alloc A xfab F user U",
# each a share of all samples: busy (not the idle task), and of the busy
# ones those entering Xen (a PV kernel's hypercalls), copying, allocating and
# freeing (under TCG without cx16, SLUB's cmpxchg16b is emulated), xfab's
# modules (by module, or by our symbols' prefixes where perf names the
# kernel instead), and userspace: the profile as a whole, of which the eight
# symbols show a fifth or less. One awk for both: the domU gets the text
# through a xenstore node, which takes at most 2048 bytes.
PROF_TOP=${PROF_TOP:-8}
PERF_TOP_SH="top=\$(perf report -i \$pf --stdio --no-children --sort comm,dso,sym -q 2>\$pf.err |
	awk 'NF >= 5 && \$1 ~ /%\$/ && \$2 != \"swapper\" { sub(/%\$/, \"\", \$1); p = \$1; b += p; s = \$NF;
		if (s ~ /^xen_hyp/) x += p; else if (s ~ /rep_movs|memcpy|memmove|copy_/) c += p;
		else if (s ~ /kmem_cache|kmalloc|kfree|alloc_pages|freelist|free_unref|free_pages|slab|cmpxchg16b/) a += p;
		if (\$3 ~ /xfab/ || s ~ /^(xfab|nb)_/) f += p; else if (\$3 !~ /^\\[/) u += p;
		if (n++ < $PROF_TOP) { \$4 = \"\"; print } }
		END { if (n) printf \"= busy %.1f xen %.1f copy %.1f alloc %.1f xfab %.1f user %.1f\\n\", b, x, c, a, f, u }');
	if [ -n \"\$top\" ]; then echo \"\$top\";
	else echo \"0 no profile: \$(cat \$pf.rec \$pf.err 2>/dev/null | tail -n 2 | tr '\\n' ' ')\"; fi"
# The kernel lowers perf's sample rate when a sample's interrupt takes
# long, and under TCG one took 13 ms: a guest's first profiles held 10 to
# 20 samples for seconds of work. PERF_UNTHROTTLE puts the rate back and
# turns that off (only a profiled run does this, in a throw-away domain).
# In that order: the kernel refuses a new rate (EINVAL) while throttling
# is off, so from the second call on the rate's write fails, silently,
# and the rate is still the one the first call set.
PERF_UNTHROTTLE="echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null;
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent"
DOMU_PERF_START="$PERF_UNTHROTTLE; perf record -q -e cpu-clock -F 499 -a -o /tmp/prof.data >/dev/null 2>/tmp/prof.data.rec &
	echo \$! >/tmp/prof.pid; sleep 1"
# perf writes its file as it exits: wait for that, 30 s at most. The
# report is read in a call of its own (DOMU_PERF_TOP), after the run: a
# measured command goes to the domU through one xenstore node, which
# takes at most 2048 bytes, and the report's text would not fit beside
# the run's own.
DOMU_PERF_HALT="p=\$(cat /tmp/prof.pid); kill -INT \$p; i=0;
	while kill -0 \$p 2>/dev/null && [ \$i -lt 150 ]; do sleep 0.2; i=\$((i + 1)); done"
DOMU_PERF_TOP="pf=/tmp/prof.data; $PERF_TOP_SH | sed 's/^/@prof /'"
DOMU_PERF_STOP="$DOMU_PERF_HALT; $DOMU_PERF_TOP"
# prof_begin REP: around a measured run (bench_measure, 902's
# blk_measure). In the profiled round, dom0's perf starts and PROF_PRE
# and PROF_POST hold the domU's shell text that starts perf before the
# run and stops it after; in any other round both are empty and nothing
# starts.
prof_begin() {
	PROF_PRE="" PROF_POST=""
	[ "$1" = 0 ] || return 0
	PROF_PRE="$DOMU_PERF_START;" PROF_POST="$DOMU_PERF_HALT;"
	eval "$PERF_UNTHROTTLE"
	perf record -q -e cpu-clock -F 499 -a -o "$W/prof.data" >/dev/null 2>"$W/prof.data.rec" &
	PROF_PID=$!
	sleep 1
}
# prof_end SET REP WL DOMID: in the profiled round, dom0's perf stopped
# and both domains' top symbols (the domU's read from its perf.data now)
# recorded.
prof_end() {
	local pf=$W/prof.data out
	[ "$2" = 0 ] || return 0
	kill -INT "$PROF_PID" 2>/dev/null
	wait "$PROF_PID"
	prof_rec "$1" "$3" dom0 "$(eval "$PERF_TOP_SH")"
	out=$(domu_must "$4" 60 "$DOMU_PERF_TOP") || exit $?
	prof_rec "$1" "$3" domu "$(echo "$out" | sed -n 's/^@prof //p')"
}
# prof_also_begin REP, prof_also_end SET REP WL: in the profiled round,
# perf in the other domUs the run crosses too (MEASURE_ALSO: the
# receiving guest of d1 -> d2, the chain's b and c), recorded under each
# one's name, so the receiver's share is read, not inferred. Their agent
# round trips are outside the measured window, and round 0's figures are
# not results anyway.
prof_also_begin() {
	local d
	[ "$1" = 0 ] || return 0
	for d in ${MEASURE_ALSO:-}; do
		domu_must "$d" 30 "$DOMU_PERF_START" >/dev/null || exit $?
	done
}
prof_also_end() {
	local d out
	[ "$2" = 0 ] || return 0
	for d in ${MEASURE_ALSO:-}; do
		out=$(domu_must "$d" 60 "$DOMU_PERF_STOP") || exit $?
		prof_rec "$1" "$3" "$(xl domname "$d")" "$(echo "$out" | sed -n 's/^@prof //p')"
	done
}
# prof_rec SET WL DOMAIN LINES: LINES as figures p.SET.WL.DOMAIN.1, .2,
# ... (none at all: the agent lost the domU's, said as a line too),
# logged on stderr: bench_measure's stdout is the workload's output,
# which its caller logs and parses
prof_rec() {
	local i=0 l lines=${4:-"0 no profile: no @prof line in the agent's output"}
	while IFS= read -r l; do
		i=$((i + 1))
		figure "p.$1.$2.$3.$i" "$l" >&2
	done <<<"$lines"
}

# bench_np DOMU SET REP WL METRIC ARGS: one netperf run with ARGS from
# DOMU, recorded as workload WL, METRIC.
bench_np() {
	local out
	out=$(bench_measure "$2" "$3" "$4" "$1" "netperf $6") || exit $?
	log "$2/$3 $4: $(echo "$out" | head -n 1)"
	netperf_rec "$2" "$3" "$4" "$5" "$out"
}

# Record a UDP_STREAM run's OUT as rx_pps: packets per second as the
# receiving netserver counted them (its line is the second result line:
# secs, messages), not as the sender sent them.
netperf_udp_rec() {
	local set=$1 rep=$2 wl=$3 out=$4 v
	log "$set/$rep $wl: $(echo "$out" | tr '\n' ' ')"
	v=$(echo "$out" | awk '$1 !~ /^[0-9]/ { next } NF >= 5 { s = 1; next } s && NF >= 4 && $2 > 0 { printf "%.1f", $3 / $2; exit }')
	[ -n "$v" ] || fail "$set rep $rep $wl: no receiver line in netperf output"
	rec "$set" "$rep" "$wl" rx_pps "$v"
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
