# Hostile-peer helpers (sourced by scenarios 05x after lib.sh; bash;
# they bring blk.sh and net.sh). The domU h1 runs xfab_hostile
# (tests/hostile) instead of a frontend; each case is one block-attach
# of dom0's RAM disk to it (or one network-attach), the case named in the
# module's vbd_case (vif_case) parameter, then the detach. The backend under test is whichever
# blk_use_backend (net_use_backend) loaded.

. "${BASH_SOURCE[0]%/*}/blk.sh"
. "${BASH_SOURCE[0]%/*}/net.sh"

# make check runs a subset of the cases (HOSTILE_FULL unset), its flood
# cases for 3 s instead of 5; make check-full all of them.
HOSTILE_FULL=${HOSTILE_FULL:-}
if [ -n "$HOSTILE_FULL" ]; then HS_SECS=${HS_SECS:-5}; else HS_SECS=${HS_SECS:-3}; fi

# Verdicts by "driver.case" for the log's table, and the xfab driver's
# bad verdicts (the scenario fails with them).
declare -A TABLE
bad=""

# What the stock drivers do with each case, as check-full measured it
# (docs/hostile.md has the details): the first word of their verdict,
# "ok" or "bad", or "n/a" where the case does not apply. A stock verdict
# other than this fails the scenario (hostile_stock_off): either the
# case no longer provokes what it did, and then it may not measure the
# xfab drivers either, or the stock driver changed, and the docs'
# comparison with it is out of date. "ok|bad" marks a case that went
# either way from run to run, with the reason beside it.
declare -A HS_STOCK=(
	[xen-blkback.valid]=ok
	[xen-blkback.refuse_flood]=bad		# answers every refusal at once
	[xen-blkback.bad_gref]=ok
	[xen-blkback.sector_wrap]=ok
	[xen-blkback.too_many_segs]=ok
	[xen-blkback.prod_jump]=ok
	[xen-blkback.kick_storm]=ok
	[xen-blkback.ro_writes]=ok
	# its detach took 5.1 s and 1.6 s in two runs, against a 5 s bound;
	# on 2026-11-29 xl gave up at 10 s (15.6 s in all)
	[xen-blkback.close_inflight]="ok|bad"
	[xen-blkback.reconnect_flood]=bad	# "16 pending I/O": not connected again
	[xen-blkback.state_flip]=bad		# WARNINGs in xen_blkif_disconnect
	[xen-netback.valid]=ok
	[xen-netback.no_rx]=ok
	[xen-netback.rx_trickle]=ok
	# check-full drips for 14 s: its drain timeout (10 s) ages some out
	[xen-netback.rx_drip]=ok
	[xen-netback.tx_bad_gref]=ok
	[xen-netback.tx_zero_frag]=bad		# answers the empty slot OKAY
	[xen-netback.tx_cross_page]=ok
	[xen-netback.tx_slot_flood]=bad		# its slot limit is above 20
	[xen-netback.tx_prod_jump]=ok
	[xen-netback.kick_storm]=ok
	[xen-netback.lro_gso]=ok
	[xen-netback.lro_mtu]=ok
	[xen-netback.pool_hog]=n/a
	[xen-netback.state_flip]=ok
	# it grants the reader's own pages: 0 to 2 segments of 4,099 showed
	# old bytes in 3 runs
	[xen-blkfront.stale_read]="ok|bad"
	[xen-blkfront.ring_keep]=ok
	[xen-netfront.tx_peek]=bad		# grants skb pages in place
	[xen-netfront.tx_null]=bad		# keeps the vif up
	[xen-netfront.rx_ref]=bad		# no such check: the vif stays up
)
HS_STOCK_OFF=""

# hostile_stock_off: the stock verdicts that differed from HS_STOCK, or
# nothing (for the scenario's fail message).
hostile_stock_off() {
	[ -z "$HS_STOCK_OFF" ] || echo "stock drivers not as measured:$HS_STOCK_OFF"
}

# hostile_stock_judge DRIVER CASE VERDICT: hold a stock verdict to HS_STOCK.
hostile_stock_judge() {
	local want=${HS_STOCK[$1.$2]:-} got=${3%% *}
	got=${got%:}	# "n/a: why"
	case "|$want|" in
	"||") HS_STOCK_OFF="$HS_STOCK_OFF $1 $2: no expected outcome in HS_STOCK;" ;;
	*"|$got|"*) ;;
	*) HS_STOCK_OFF="$HS_STOCK_OFF $1 $2: $got, expected $want ($3);" ;;
	esac
}

# hostile_record DRIVER CASE VERDICT: log and keep a verdict ("ok ..."
# or "bad ..."), send it as the figure run.py's hostile table is built
# from, and remember it if an xfab driver answered badly, or if a stock
# driver did other than HS_STOCK says. A stock backend's dom0 splats
# since the case began (stock_mark) make its verdict bad (stock_splats).
hostile_record() {
	local v=$3 s
	case $1 in
	xen-blkback | xen-netback)
		s=$(stock_splats "${1//-/_}" | sort | uniq -c | awk '{ $1 = $1 "x"; print }' | paste -sd ';')
		[ -n "$s" ] && v="bad dom0 splat: $s; ${v#* }" ;;
	esac
	log "$1 $2: $v"
	TABLE[$1.$2]=$v
	figure "hostile.$1.$2.verdict" "$v"
	case $1 in
	xfab_*) [ "${v%% *}" = ok ] || bad="$bad $2:${v#bad}" ;;
	*) hostile_stock_judge "$1" "$2" "$v" ;;
	esac
}

# hostile_table STOCK XFAB CASES...: the verdicts as a markdown table in
# the log (each case once, "-" where a driver did not run it).
hostile_table() {
	local stock=$1 xfab=$2 c
	shift 2
	log "| case | $stock | $xfab |"
	log "|---|---|---|"
	for c in $(echo "$@" | tr ' ' '\n' | awk '!seen[$0]++'); do
		log "| $c | ${TABLE[$stock.$c]:--} | ${TABLE[$xfab.$c]:--} |"
	done
}

# hostile_cases FULL-LIST SUBSET: the cases this run goes through.
hostile_cases() {
	if [ -n "$HOSTILE_FULL" ]; then echo "$1"; else echo "$2"; fi
}
# xfab_blkback's default refuse_rate: the bound every backend is held to
HS_RATE=100
declare -A HS HB

# hostile_arm KIND CASE SECS: have h1's next KIND (vbd, vif) run CASE for
# SECS; prints the run number its report will carry.
hostile_arm() {
	local rep
	rep=$(domu_must h1 20 "p=/sys/module/xfab_hostile/parameters
		cat \$p/report && echo $2 >\$p/${1}_case && echo $3 >\$p/secs") || exit $?
	echo $(($(echo "$rep" | sed -n '1s/^run=\([0-9]*\) .*/\1/p') + 1))
}

# hostile_wait RUN LIMIT: wait in h1 for the report of RUN; fills HS.
hostile_wait() {
	local rep kv
	rep=$(domu_must h1 $(($2 + 10)) "i=0; f=/sys/module/xfab_hostile/parameters/report
		until grep -q '^run=$1 ' \$f || [ \$i -ge $(($2 * 4)) ]; do sleep 0.25; i=\$((i + 1)); done
		cat \$f") || exit $?
	case $rep in
	"run=$1 "*) ;;
	*) fail "no report of run $1 from the hostile frontend in ${2}s (last: $rep)" ;;
	esac
	log "report: $rep"
	for kv in $rep; do HS[${kv%%=*}]=${kv#*=}; done
}

# hostile_vbd_detach_late BACKEND CASE: xl gave up on a detach (libxl
# waits 10 s for the backend to close). xfab_blkback must never make it
# wait that long: the scenario fails. A stock backend may, while the
# slow disk holds its reads (close_inflight, reconnect_flood): that is
# its verdict (HB[detach_late]), and once the disk answered (12 s) a
# second detach must take the device away, or the scenario fails.
hostile_vbd_detach_late() {
	local i
	case $1 in
	xfab_*) fail "$2 against $1: block-detach did not finish (xenwatch or the backend stuck)" ;;
	esac
	HB[detach_late]=1
	log "$2 against $1: xl block-detach gave up; again once the disk answered"
	for i in 1 2 3; do
		sleep 5
		timeout 90 xl block-detach h1 xvdb >/dev/null 2>&1 && return 0
	done
	fail "$2 against $1: block-detach did not finish, four tries in about a minute (xenwatch or the backend stuck)"
}

# hostile_vbd BACKEND CASE: run CASE against BACKEND; HS gets the
# hostile frontend's report (run, case, posted, answered, okay, ...), HB
# the backend's statistics as they were before the detach. Fails the
# scenario if the backend did not take the device, did not let it go, or
# kept anything.
hostile_vbd() {
	local be=$1 c=$2 run dir f t0 limit=$((HS_SECS + 90))
	HS=() HB=()
	stock_mark
	run=$(hostile_arm vbd $c $HS_SECS) || exit $?
	log "hostile vbd: $c against $be (run $run) on ${HS_DISK:-/dev/ram0}"
	must timeout 60 xl block-attach h1 "phy:${HS_DISK:-/dev/ram0},xvdb,w" >/dev/null
	dir=$(blk_sysdir h1 xvdb)
	# reconnect_flood: up to 5 s a step, and 40 s for the last connect
	if [ $c = reconnect_flood ]; then
		limit=240
		[ "$be" = xfab_blkback ] && hs_drain_sample "$dir"
	fi
	hostile_wait $run $limit
	for f in "$dir"/statistics/*; do
		[ -f "$f" ] && read -r "HB[${f##*/}]" <"$f"
	done
	# what a backend that gave up on the frontend said (xenbus_dev_fatal)
	[ $c = reconnect_flood ] &&
		HB[be_error]=$(xenstore-read "/local/domain/0/error/backend/vbd/$(domu_id h1)/$(blk_handle xvdb)/error" 2>/dev/null)
	# xenwatch must still be serving: the detach goes through it
	t0=$(date +%s%N)
	timeout 90 xl block-detach h1 xvdb >/dev/null 2>&1 || hostile_vbd_detach_late $be $c
	HB[detach_ms]=$((($(date +%s%N) - t0) / 1000000))
	[ "$be" = xfab_blkback ] && HB[draining]=$(blk_total draining)
	[ -n "$HS_SAMPLER" ] && hs_drain_sampled
	wait_for 30 sh -c "! test -e $dir" ||
		fail "$c against $be: backend device $dir still there after detach"
	[ "$be" = xfab_blkback ] && blk_nothing_left
	return 0
}

# HV_SECS: no_rx must outlast both backends' stall timers (10 s).
HV_SECS=${HV_SECS:-14}

# HV_TRICKLE_SECS: rx_trickle's length (one round a second).
HV_TRICKLE_SECS=${HV_TRICKLE_SECS:-12}

# The lines of dom0's kernel log that say a queue of vif $1 took RX
# buffers again after a stall (xfab_netback, one per stall ended).
hv_unstalls() { dmesg | grep -c "$1: queue [0-9]*: guest posts RX buffers again"; }

# ---- xfab_netback's parameters for one vif case ----
# hv_param NAME VALUE: set one of xfab_netback's parameters for the case,
# its value before kept (the first time) for hv_param_restore. Cases set
# them before the vif attaches: a queue's timers keep the limits they
# were armed with. The caller traps EXIT to hv_param_restore (or to a
# function that calls it), so that a case that fails leaves none of its
# settings to the scenarios after it.
HV_PARAMS=/sys/module/xfab_netback/parameters
HV_SAVED=""
hv_param() {
	case " $HV_SAVED " in
	*" $1="*) ;;
	*) HV_SAVED="$HV_SAVED $1=$(cat $HV_PARAMS/$1)" ;;
	esac
	echo "$2" >$HV_PARAMS/$1 || fail "xfab_netback refused $1=$2"
}

hv_param_restore() {
	local kv
	for kv in $HV_SAVED; do
		echo "${kv#*=}" >"$HV_PARAMS/${kv%%=*}"
	done
	HV_SAVED=""
	trap - EXIT
}

# ---- rx_drip: a guest that posts a few RX buffers now and then ----
# HV_DRIP_SECS: the case's length, a round every 2.5 s: two rounds in make
# check; in check-full long enough that the stock backend's drain timeout
# (rx_drain_timeout_msecs, 10 s, fixed at load) drops something too.
if [ -n "$HOSTILE_FULL" ]; then
	HV_DRIP_SECS=${HV_DRIP_SECS:-14}
else
	HV_DRIP_SECS=${HV_DRIP_SECS:-5}
fi
# xfab_netback for the case (restored after, whatever happens): packets
# age after HV_DRIP_DRAIN_MS (rx_drain_ms), a stall comes after
# HV_DRIP_STALL s, well past a round: the guest never stalls, so only
# aging can bound what dom0 holds for it. The control is
# HV_DRIP_DRAIN_MS=60000 (nothing ages in the case's time): its verdict
# must be bad (rxr_drop_aged 0).
HV_DRIP_DRAIN_MS=${HV_DRIP_DRAIN_MS:-1000}
HV_DRIP_STALL=${HV_DRIP_STALL:-6}
HV_DRIP_SPRAY="" HV_DRIP_WATCH="" HV_DRIP_OUT=$W/hs-drip.out

# hv_drip_watch DEV: every 0.25 s until killed, how long the oldest
# packet xfab_netback holds for DEV has waited (oldest_ms in its queues'
# debugfs dumps); HV_DRIP_OUT keeps "<largest ms> <samples>". Builtins
# but sleep: a process per read costs 0.1-0.2 s under TCG.
hv_drip_watch() {
	local max=0 n=0 f line v
	# a kill lands between two samples, never in a write of HV_DRIP_OUT
	trap 'exit 0' TERM
	while :; do
		for f in /sys/kernel/debug/xfab_netback/"$1"-q*; do
			while read -r line; do
				case $line in "rx backlog:"*) ;; *) continue ;; esac
				v=${line##*oldest_ms }
				case $v in "" | *[!0-9]*) continue ;; esac
				n=$((n + 1))
				[ "$v" -gt $max ] && max=$v
			done 2>/dev/null <"$f"
		done
		echo "$max $n" >"$HV_DRIP_OUT"
		sleep 0.25
	done
}

# hv_drip_params BACKEND: xfab_netback's limits for the case, before the
# vif is attached: a queue's timer is armed when its backlog starts,
# with the limits of that moment, so a write after the attach may only
# count from its next look (up to the 10 s before). An xfab_netback
# without rx_drain_ms (one from before packets aged out) runs the case
# all the same, to be judged bad.
hv_drip_params() {
	trap hv_drip_restore EXIT
	[ "$1" = xfab_netback ] || return 0
	if [ -e $HV_PARAMS/rx_drain_ms ]; then
		hv_param rx_drain_ms "$HV_DRIP_DRAIN_MS"
	else
		log "rx_drip: xfab_netback has no rx_drain_ms: nothing ages"
	fi
	hv_param rx_stall_secs "$HV_DRIP_STALL"
}

# hv_drip_start BACKEND DEV: the flood (as rx_trickle's) and, for
# xfab_netback, the watch of its backlog.
hv_drip_start() {
	if [ "$1" = xfab_netback ]; then
		mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
		echo "0 0" >"$HV_DRIP_OUT"
		hv_drip_watch "$2" &
		HV_DRIP_WATCH=$!
	fi
	xfab-spray xenbr0 10000000 1000 0 >/dev/null 2>&1 &
	HV_DRIP_SPRAY=$!
}

# hv_drip_restore: the flood and the watch stop, the limits come back.
hv_drip_restore() {
	local p
	for p in $HV_DRIP_SPRAY $HV_DRIP_WATCH; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	HV_DRIP_SPRAY="" HV_DRIP_WATCH=""
	hv_param_restore
}

# hv_drip_stop BACKEND DEV: as hv_drip_restore, and into HB: DEV's
# rx_dropped (where the stock backend counts what aged), drain_ms (the
# limit the backend had in the case: ours, or the stock one's, fixed at
# load), and for xfab_netback oldest_max and oldest_n (hv_drip_watch's).
hv_drip_stop() {
	local p=/sys/module/xen_netback/parameters/rx_drain_timeout_msecs
	hv_drip_restore
	HB[rx_dropped]=$(hv_stat "$2" rx_dropped)
	if [ "$1" = xfab_netback ]; then
		read -r "HB[oldest_max]" "HB[oldest_n]" <"$HV_DRIP_OUT"
		HB[drain_ms]=$HV_DRIP_DRAIN_MS
	else
		HB[drain_ms]=$(cat $p 2>/dev/null || echo "?")
	fi
}

# hostile_vif BACKEND CASE: as hostile_vbd, with a network-attach to
# xenbr0; while no_rx runs, dom0 pings the bridge's broadcast address
# (every frame floods to the vif); while rx_trickle runs, xfab-spray
# floods it harder (a datagram every 200 us) and xfab_netback's stall
# timer is 1 s. HB: the vif's counters (ethtool -S, summed over queues
# for xfab_netback), its carrier and tx_dropped, and for rx_trickle
# the stalls it ended (unstalls). rx_drip: the same flood, with
# xfab_netback's limits for the case and the age of its backlog watched
# (hv_drip_start, hv_drip_stop). lro_*: before the attach, the veth
# pair and its capture (hv_lro_start); once the vif is there, dom0 pings
# the bridge's broadcast address (the guest sends when one reaches it);
# after the report, the capture's counts (hv_lro_collect).
hostile_vif() {
	local be=$1 c=$2 run id dev devid secs=$HS_SECS k ping="" spray="" u0=0
	local -A ctr
	HS=() HB=()
	stock_mark
	[ $c = no_rx ] && secs=$HV_SECS
	[ $c = rx_trickle ] && secs=$HV_TRICKLE_SECS
	[ $c = rx_drip ] && secs=$HV_DRIP_SECS
	id=$(domu_id h1)
	run=$(hostile_arm vif $c $secs) || exit $?
	log "hostile vif: $c against $be (run $run)"
	case $c in lro_*) hv_lro_start $c ;; esac
	# the backend's limits for the case before the attach (hv_param)
	if [ $c = rx_trickle ] && [ "$be" = xfab_netback ]; then
		trap hv_param_restore EXIT
		hv_param rx_stall_secs 1
	fi
	[ $c = rx_drip ] && hv_drip_params "$be"
	must timeout 60 xl network-attach h1 mac=00:16:3e:00:00:09 bridge=xenbr0 >/dev/null
	wait_for 30 sh -c "ls /sys/class/net | grep -q '^vif$id\.'" || fail "$c against $be: no vif in dom0"
	dev=$(ls /sys/class/net | grep "^vif$id\." | head -n 1)
	devid=${dev#*.}
	if [ $c = no_rx ]; then
		ping -b -q -i 0.02 -s 1000 -w $((secs + 6)) 10.0.0.255 >"$W/hs-ping.out" 2>&1 &
		ping=$!
	fi
	case $c in
	lro_*)
		# the guest sends once a frame from the bridge reached it
		ping -b -q -i 0.2 -w 120 10.0.0.255 >/dev/null 2>&1 &
		HV_PING=$!
		log "$c: a dom0 that dies from here on ends the run (050 did not finish; its trace in serial.log)" ;;
	esac
	if [ $c = rx_trickle ]; then
		u0=$(hv_unstalls "$dev")
		xfab-spray xenbr0 10000000 1000 0 >/dev/null 2>&1 &
		spray=$!
	fi
	[ $c = rx_drip ] && hv_drip_start "$be" "$dev"
	hostile_wait $run $((secs + 90))
	[ $c = rx_drip ] && hv_drip_stop "$be" "$dev"
	if [ -n "$spray" ]; then
		kill $spray 2>/dev/null
		wait $spray 2>/dev/null
		HB[unstalls]=$(($(hv_unstalls "$dev") - u0))
		[ "$be" = xfab_netback ] && hv_param_restore
	fi
	case $c in lro_*) hv_lro_collect ;; esac
	if [ -n "$ping" ]; then
		# a backend that holds the frames holds the sender's socket
		# buffer too: fewer sent in the same time
		wait $ping
		HB[dom0_sent]=$(awk '/transmitted/ { print $1 }' "$W/hs-ping.out")
		log "dom0 broadcast: $(grep transmitted "$W/hs-ping.out")"
	fi
	counters_of "$(ethtool -S "$dev")"
	for k in txr_packets txr_drop_copy txr_drop_zero_frag txr_fatal_cross_page \
		txr_fatal_slot_flood txr_spurious rxr_drop_stall rxr_drop_aged fatal txr_gso \
		txr_lro_out txr_ptr_packets txr_ptr_late_done txr_ptr_bad_span \
		txr_ptr_no_window txr_drop_ptr_refused; do
		HB[$k]=${ctr[$k]:-0}
	done
	HB[carrier]=$(cat /sys/class/net/$dev/carrier 2>/dev/null || echo 0)
	HB[tx_dropped]=$(cat /sys/class/net/$dev/statistics/tx_dropped)
	timeout 90 xl network-detach h1 "$devid" >/dev/null 2>&1 ||
		fail "$c against $be: network-detach did not finish (xenwatch or the backend stuck)"
	wait_for 30 sh -c "! test -e /sys/class/net/$dev" ||
		fail "$c against $be: $dev still there after detach"
	net_nothing_left "after the $c case"
	return 0
}

# ---- pool_hog: pools past xfab_netback's budget ----
# Two vifs of h1 run pool_hog, the second attached while the first still
# holds what it mapped. Each publishes a TX and an RX pool of as many
# pages as xfab_netback maps (pool_pages, 1024) on every queue it offers
# (max_queues: 2 on the testbed), then sends 32 frames per queue from
# its TX pool's references. The bounds are lowered for the case so that
# each vif meets one: pool_grants_per_vif = 2 x queues - 1 pools, so the
# first vif (a) maps every pool but one, refused by its own bound;
# pool_grants_total = what the backend held before + a's bound + one
# pool, so the second (b) maps one pool and the backend's bound refuses
# the rest. Restored on the way out, whatever happens.
HV_HOG_DEVS=""

# hv_hog_attach X DOMID: attach vif X (a, b) running pool_hog, wait for
# its report; HB gets X_<field> of the report, X_dev, X_pages (the pool
# pages xfab_netback mapped for it, from its summary) and X_<counter> of
# its ethtool -S.
hv_hog_attach() {
	local x=$1 id=$2 before m0 run dev="" i kv k
	local -A ctr
	before=$(ls /sys/class/net | grep "^vif$id\." || true)
	m0=$(backend_total xfab_netback pool_pages)
	run=$(hostile_arm vif pool_hog $HS_SECS) || exit $?
	log "hostile vif: pool_hog, vif $x (run $run)"
	must timeout 60 xl network-attach h1 "mac=00:16:3e:00:00:0$x" bridge=xenbr0 >/dev/null
	for i in $(seq 60); do
		dev=$(ls /sys/class/net | grep "^vif$id\." | grep -vxF -e "${before:-none}" | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.5
	done
	[ -n "$dev" ] || fail "pool_hog: no vif $x in dom0"
	HV_HOG_DEVS="$HV_HOG_DEVS $dev"
	HS=()
	hostile_wait $run 90
	for kv in queues pool posted answered okay lies; do
		HB[${x}_$kv]=${HS[$kv]}
	done
	HB[${x}_dev]=$dev
	HB[${x}_pages]=$(($(backend_total xfab_netback pool_pages) - m0))
	counters_of "$(ethtool -S "$dev")"
	for k in pool_refused_vif pool_refused_total pool_fail txr_pool_ops txr_copy_ops; do
		HB[${x}_$k]=${ctr[$k]:-0}
	done
}

# hostile_pool_hog BACKEND: the case against xfab_netback (a stock
# backend maps no pool: nothing to run). HB: vmax and tmax (the bounds
# set), nq, pages, held (the backend's pool_pages with both attached),
# grants (its pool budget then), and each vif's fields (hv_hog_attach).
hostile_pool_hog() {
	local id dev t0
	HS=() HB=()
	stock_mark
	id=$(domu_id h1)
	HB[nq]=$(cat $HV_PARAMS/max_queues) HB[pages]=$(cat $HV_PARAMS/pool_pages)
	t0=$(backend_total xfab_netback pool_grants)
	HB[vmax]=$(((2 * HB[nq] - 1) * HB[pages]))
	HB[tmax]=$((${t0:-0} + HB[vmax] + HB[pages]))
	trap hv_param_restore EXIT
	hv_param pool_grants_per_vif "${HB[vmax]}"
	hv_param pool_grants_total "${HB[tmax]}"
	log "pool_hog: ${HB[nq]} queues x 2 pools x ${HB[pages]} pages per vif; pool_grants_per_vif=${HB[vmax]} pool_grants_total=${HB[tmax]} (${t0:-0} held before)"
	HV_HOG_DEVS=""
	hv_hog_attach a "$id"
	hv_hog_attach b "$id"
	HB[held]=$(backend_total xfab_netback pool_pages)
	HB[grants]=$(backend_total xfab_netback pool_grants)
	hv_param_restore
	for dev in $HV_HOG_DEVS; do
		timeout 90 xl network-detach h1 "${dev#*.}" >/dev/null 2>&1 ||
			fail "pool_hog against $1: network-detach of $dev did not finish"
	done
	for dev in $HV_HOG_DEVS; do
		wait_for 30 sh -c "! test -e /sys/class/net/$dev" ||
			fail "pool_hog against $1: $dev still there after detach"
	done
	# the summary's pool_grants back at 0 too: every pool gave back
	# exactly what it took
	net_nothing_left "after the pool_hog case"
	return 0
}

# hv_hog_judge: the why and det of hostile_vjudge (its locals) for
# pool_hog. Each vif published the largest pools on every queue; every
# frame of both was answered OKAY; a mapped all its pools but one (its
# last queue's RX pool) and says its own bound refused that one, and
# sent every frame by memcpy from its pools; b mapped one pool (queue
# 0's TX pool) and says the backend's bound refused the rest, and its
# other queues' frames went by grant copy; nothing past either bound was
# mapped, and what is mapped is what the budget holds. Two queues at
# least: with one, b's second pool would meet b's own bound first.
hv_hog_judge() {
	local x np=$((2 * HB[nq]))
	[ "${HB[nq]}" -ge 2 ] || why="$why xfab_netback offers ${HB[nq]} queue (max_queues): the case needs 2"
	for x in a b; do
		[ "${HB[${x}_queues]}" = "${HB[nq]}" ] && [ "${HB[${x}_pool]}" = "${HB[pages]}" ] ||
			why="$why vif $x published pools of ${HB[${x}_pool]} pages on ${HB[${x}_queues]} queues, not ${HB[pages]} on ${HB[nq]}"
		[ "${HB[${x}_posted]:-0}" -gt 0 ] && [ "${HB[${x}_okay]}" = "${HB[${x}_posted]}" ] &&
			[ "${HB[${x}_lies]}" = 0 ] ||
			why="$why vif $x: ${HB[${x}_okay]} of ${HB[${x}_posted]} frames OKAY"
		[ "${HB[${x}_pool_fail]}" = 0 ] || why="$why vif $x: pool_fail ${HB[${x}_pool_fail]}"
	done
	[ "${HB[a_pages]}" -le "${HB[vmax]}" ] && [ "${HB[a_pages]}" = $(((np - 1) * HB[pages])) ] &&
		[ "${HB[a_pool_refused_vif]}" = 1 ] && [ "${HB[a_pool_refused_total]}" = 0 ] ||
		why="$why vif a: ${HB[a_pages]} pages mapped (bound ${HB[vmax]}), pool_refused_vif ${HB[a_pool_refused_vif]} pool_refused_total ${HB[a_pool_refused_total]} (want $(((np - 1) * HB[pages])), 1, 0)"
	[ "${HB[b_pages]}" = "${HB[pages]}" ] && [ "${HB[b_pool_refused_total]}" = $((np - 1)) ] &&
		[ "${HB[b_pool_refused_vif]}" = 0 ] ||
		why="$why vif b: ${HB[b_pages]} pages mapped, pool_refused_total ${HB[b_pool_refused_total]} pool_refused_vif ${HB[b_pool_refused_vif]} (want ${HB[pages]}, $((np - 1)), 0)"
	[ "${HB[a_txr_copy_ops]}" = 0 ] && [ "${HB[a_txr_pool_ops]}" -ge "${HB[a_posted]:-1}" ] ||
		why="$why vif a: TX pools mapped, yet ${HB[a_txr_copy_ops]} grant copies and ${HB[a_txr_pool_ops]} memcpys for ${HB[a_posted]} frames"
	[ "${HB[b_txr_copy_ops]}" -ge $(((HB[nq] - 1) * 32)) ] && [ "${HB[b_txr_pool_ops]}" -gt 0 ] ||
		why="$why vif b: ${HB[b_txr_copy_ops]} grant copies (want $(((HB[nq] - 1) * 32)) or more, for the queues refused a pool) and ${HB[b_txr_pool_ops]} memcpys (queue 0's pool)"
	[ "${HB[held]:-0}" -le "${HB[tmax]}" ] && [ "${HB[grants]}" = "${HB[held]}" ] ||
		why="$why backend: ${HB[held]} pool pages mapped, ${HB[grants]:-none} in its budget (bound ${HB[tmax]})"
	det="a:${HB[a_pages]}p,refused_vif=${HB[a_pool_refused_vif]},pool_ops=${HB[a_txr_pool_ops]} b:${HB[b_pages]}p,refused_total=${HB[b_pool_refused_total]},copy_ops=${HB[b_txr_copy_ops]} bounds=${HB[vmax]}/${HB[tmax]}"
}

# The refusals a throttled backend may answer in the report's time: the
# burst, refuse_rate a second with half again for timer slack, and what
# one more pass can answer (a ring's worth).
hostile_refuse_bound() {
	echo $((64 + HS_RATE * HS[ms] * 3 / 2000 + 32))
}

# hostile_judge BACKEND CASE: what a backend that defends itself does
# with the case, judged from HS (and HB for xfab_blkback, which must name
# the reason in a counter). Prints "ok <detail>" or "bad <why>".
hostile_judge() {
	local be=$1 c=$2 why="" det x=0
	[ "$be" = xfab_blkback ] && x=1
	[ "${HS[lies]}" = 0 ] || why=" answered more than was posted"
	case $c in
	valid)
		[ "${HS[okay]}" = "${HS[posted]}" ] && [ "${HS[posted]}" -gt 0 ] ||
			why="$why ${HS[okay]} of ${HS[posted]} reads OKAY"
		det="rd_req=${HB[rd_req]:-?}" ;;
	refuse_flood)
		[ "${HS[answered]}" -le "$(hostile_refuse_bound)" ] ||
			why="$why ${HS[answered]} refusals answered in ${HS[ms]} ms (bound $(hostile_refuse_bound))"
		det="rate=$((HS[answered] * 1000 / (HS[ms] + 1)))/s"
		[ $x = 1 ] && det="$det refuse_waits=${HB[refuse_waits]} err_bad_op=${HB[err_bad_op]}" &&
			{ [ "${HB[refuse_waits]}" -gt 0 ] || why="$why refuse_waits 0"; } ;;
	bad_gref | sector_wrap | too_many_segs)
		[ "${HS[answered]}" = "${HS[posted]}" ] && [ "${HS[okay]}" = 0 ] ||
			why="$why ${HS[answered]} of ${HS[posted]} answered, ${HS[okay]} OKAY"
		local k=map_errors
		[ $c = sector_wrap ] && k=err_range
		[ $c = too_many_segs ] && k=err_too_many_segs
		det="errors=${HS[error]} notsupp=${HS[notsupp]}"
		[ $x = 1 ] && det="$det $k=${HB[$k]}" &&
			{ [ "${HB[$k]:-0}" -ge "${HS[posted]}" ] || why="$why $k ${HB[$k]:-0} < ${HS[posted]}"; } ;;
	prod_jump)
		[ "${HS[answered]}" = 0 ] || why="$why ${HS[answered]} answered from an impossible index"
		det="answered=${HS[answered]}"
		[ $x = 1 ] && det="$det bad_index=${HB[bad_index]}" &&
			{ [ "${HB[bad_index]}" = 1 ] || why="$why bad_index ${HB[bad_index]}"; } ;;
	kick_storm)
		det="kicks=${HS[kicks]}"
		[ $x = 1 ] && det="$det be_irqs=${HB[irqs]} spurious=${HB[spurious]}" &&
			{ [ "${HB[spurious]}" -gt 0 ] || why="$why no spurious event counted"; } ;;
	ro_writes)
		[ "${HS[okay]}" = "${HS[posted]}" ] && [ "${HS[posted]}" -gt 0 ] ||
			why="$why ${HS[okay]} of ${HS[posted]} writes OKAY"
		det="okay=${HS[okay]}"
		[ $x = 1 ] && det="$det ro_maps=${HB[ro_maps]} ro_budget=${HB[ro_budget]:-?} ro_full=${HB[ro_full]} map_errors=${HB[map_errors]}" &&
			{ [ "${HB[ro_maps]:-0}" -gt 0 ] || why="$why no write read in place (ro_maps 0)"; } ;;
	state_flip)
		[ "${HS[flips]:-0}" -gt 0 ] || why="$why no state flipped"
		det="flips=${HS[flips]} posted=${HS[posted]} answered=${HS[answered]}" ;;
	close_inflight)
		# the disk must still hold the reads, or the case measures nothing
		[ "${HS[answered]}" -lt "${HS[posted]}" ] ||
			why="$why the disk answered all ${HS[posted]} reads at once (no delay)"
		[ "${HB[detach_ms]}" -le "$HS_DETACH_MS" ] ||
			why="$why detach took ${HB[detach_ms]} ms with reads at the disk (xenwatch held${HB[detach_late]:+; xl gave up at 10 s})"
		det="detach_ms=${HB[detach_ms]} with $((HS[posted] - HS[answered])) reads at the disk"
		[ $x = 1 ] && det="$det draining=${HB[draining]}" &&
			{ [ "${HB[draining]}" = 1 ] || why="$why draining ${HB[draining]} at detach"; } ;;
	reconnect_flood)
		# the reads must still have been at the disk, or nothing drained
		[ "${HS[answered]}" -lt "${HS[posted]}" ] ||
			why="$why the disk answered all ${HS[posted]} reads at once (no delay)"
		[ "${HS[cycles]:-0}" = "$HS_RECONNECTS" ] ||
			why="$why ${HS[cycles]:-0} of $HS_RECONNECTS reconnects made"
		# the frontend is not left waiting: connected once a drain ended
		[ "${HS[reconnected]:-0}" = 1 ] ||
			why="$why not connected again (backend state ${HS[be_state]:-?}, error: ${HB[be_error]:-none})"
		[ "${HB[detach_ms]}" -le "$HS_DETACH_MS" ] ||
			why="$why detach took ${HB[detach_ms]} ms with reads at the disk (xenwatch held${HB[detach_late]:+; xl gave up at 10 s})"
		det="connects=${HS[connects]} waits=${HS[waits]} reconnect_ms=${HS[reconnect_ms]} detach_ms=${HB[detach_ms]}"
		if [ $x = 1 ]; then
			det="$det draining_max=${HB[drain_max]:-?}/${HB[total_max]:-?} $HS_DRAIN_COUNTER=${HB[$HS_DRAIN_COUNTER]:-?}"
			# never more than the bound draining, the disk's or the
			# backend's (only this disk is attached), and at least one
			[ "${HB[drain_max]:-0}" -ge 1 ] && [ "${HB[drain_max]}" -le "$HS_DRAIN_BOUND" ] &&
				[ "${HB[total_max]:-0}" -le "$HS_DRAIN_BOUND" ] ||
				why="$why ${HB[drain_max]:-?} ring sets of the disk (${HB[total_max]:-?} of the backend) draining at once, bound $HS_DRAIN_BOUND"
			[ "${HB[$HS_DRAIN_COUNTER]:-0}" -gt 0 ] ||
				why="$why $HS_DRAIN_COUNTER ${HB[$HS_DRAIN_COUNTER]:-none}: no connect waited"
		fi ;;
	*) why="no judge for case $c" ;;
	esac
	if [ -n "$why" ]; then echo "bad$why"; else echo "ok $det"; fi
}

# close_inflight: the slow disk holds each request HS_DELAY_MS; a detach
# that waits for them in xenwatch takes about that long, one that does
# not about a second.
HS_DELAY_MS=12000
HS_DETACH_MS=5000

# reconnect_flood: the reconnects the frontend makes (HS_RECONNECTS of
# tests/hostile/vbd.c), and what the judge holds xfab_blkback to: ring
# sets of the disk draining at once (drain_sets_per_disk's default) and
# the counter that must show connects it kept waiting.
HS_RECONNECTS=5
HS_DRAIN_BOUND=2
HS_DRAIN_COUNTER=drain_refused_disk
HS_SAMPLER=""

# hs_drain_sample DIR: in the background, from the attach to the detach,
# the most ring sets draining at once of DIR's disk (its statistics/
# draining) and of the whole backend (debugfs), every 0.2 s, into
# $W/hs-drain.max as "DISK BACKEND" (a set drains for seconds: the disk
# holds its reads 12 s). Builtins only but sleep: a process per read
# costs 0.1-0.2 s under TCG. It ends with this shell, or after 10
# minutes, if nothing stops it.
hs_drain_sample() {
	local dir=$1 out=$W/hs-drain.max
	echo "0 0" >"$out"
	backend_total xfab_blkback draining >/dev/null	# mounts debugfs
	(
		# a kill lands between two samples, never in a write of $out
		trap 'exit 0' TERM
		dmax=0 tmax=0 n=0
		while kill -0 $$ 2>/dev/null && [ $n -lt 3000 ]; do
			d=0 t=0
			{ read -r d <"$dir/statistics/draining"; } 2>/dev/null
			while read -r k v; do
				[ "$k" = draining ] && t=$v
			done 2>/dev/null </sys/kernel/debug/xfab_blkback/summary
			[ "${d:-0}" -gt $dmax ] && dmax=$d
			[ "${t:-0}" -gt $tmax ] && tmax=$t
			echo "$dmax $tmax" >"$out"
			n=$((n + 1))
			sleep 0.2
		done
	) &
	HS_SAMPLER=$!
}

# hs_drain_sampled: stop the sampler; HB gets drain_max and total_max.
hs_drain_sampled() {
	[ -n "$HS_SAMPLER" ] && kill "$HS_SAMPLER" 2>/dev/null
	[ -n "$HS_SAMPLER" ] && wait "$HS_SAMPLER" 2>/dev/null
	HS_SAMPLER=""
	read -r 'HB[drain_max]' 'HB[total_max]' <"$W/hs-drain.max"
}

# hostile_reconnect_bounds: reconnect_flood's other two runs against
# xfab_blkback, on the slow disk, each bound restored after. The
# backend's bound: with drain_sets_total=0 no disk holds more than one
# ring set, so at most 1 drains and drain_refused_total counts the
# waits (row reconnect_flood_total). The control: with
# drain_sets_per_disk=64 nothing waits and the ring sets pile up past 2,
# which the judge must call bad, or the case does not measure.
hostile_reconnect_bounds() {
	local p=/sys/module/xfab_blkback/parameters v old
	HS_DISK=/dev/mapper/xfab-slow
	old=$(cat $p/drain_sets_total)
	echo 0 >$p/drain_sets_total
	HS_DRAIN_BOUND=1 HS_DRAIN_COUNTER=drain_refused_total
	hostile_vbd xfab_blkback reconnect_flood
	v=$(hostile_judge xfab_blkback reconnect_flood)
	echo "$old" >$p/drain_sets_total
	log "drain_sets_total=0:"
	hostile_record xfab_blkback reconnect_flood_total "$v"
	HS_DRAIN_BOUND=2 HS_DRAIN_COUNTER=drain_refused_disk
	old=$(cat $p/drain_sets_per_disk)
	echo 64 >$p/drain_sets_per_disk
	hostile_vbd xfab_blkback reconnect_flood
	v=$(hostile_judge xfab_blkback reconnect_flood)
	echo "$old" >$p/drain_sets_per_disk
	log "control (drain_sets_per_disk=64): $v"
	figure hostile.xfab_blkback.reconnect_flood_unbounded.verdict "$v (control: must be bad)"
	case $v in
	bad*) ;;
	*) bad="$bad reconnect_flood control: drain_sets_per_disk=64 judged \"$v\", the case does not measure" ;;
	esac
	HS_DISK=/dev/ram0
}

# dmsetup with a timeout and DM_DISABLE_UDEV: it makes the node itself
# (waiting for udev to confirm hangs here).
hostile_dm() {
	timeout 30 env DM_DISABLE_UDEV=1 dmsetup "$@"
}

# hostile_slow_disk: /dev/mapper/xfab-slow, dom0's RAM disk behind
# dm-delay (every read and write held HS_DELAY_MS). The delay comes once
# udev has probed the new disk (its blkid would hold it open for
# minutes), and goes before the disk does.
hostile_slow_disk() {
	must modprobe dm-delay
	must hostile_dm create xfab-slow --table "$(hostile_slow_table 0)"
	udevadm settle -t 30
	hostile_slow_reload $HS_DELAY_MS
}

hostile_slow_table() {
	echo "0 $(blockdev --getsz /dev/ram0) delay /dev/ram0 0 $1"
}

hostile_slow_reload() {
	must hostile_dm reload xfab-slow --table "$(hostile_slow_table $1)"
	must hostile_dm resume xfab-slow
}

hostile_slow_disk_done() {
	hostile_slow_reload 0
	udevadm settle -t 30
	wait_for 30 hostile_dm remove xfab-slow ||
		fail "xfab-slow still busy after its last detach: $(hostile_dm remove xfab-slow 2>&1)"
}

# hostile_vjudge BACKEND CASE: as hostile_judge, for the vif cases (HB
# counters are xfab_netback's ethtool names; a stock vif has none).
hostile_vjudge() {
	local be=$1 c=$2 why="" det x=0 k=""
	[ "$be" = xfab_netback ] && x=1
	[ "${HS[lies]}" = 0 ] || why=" answered more than was posted"
	case $c in
	valid)
		[ "${HS[okay]}" = "${HS[posted]}" ] && [ "${HS[posted]}" -gt 0 ] ||
			why="$why ${HS[okay]} of ${HS[posted]} frames OKAY"
		det="okay=${HS[okay]}"
		k=txr_packets ;;
	no_rx)
		[ "${HS[rx_after]}" -gt 0 ] || why="$why no traffic once buffers came"
		det="rx_after=${HS[rx_after]} dom0_sent=${HB[dom0_sent]} tx_dropped=${HB[tx_dropped]}"
		k=rxr_drop_stall ;;
	tx_bad_gref | tx_zero_frag)
		[ "${HS[answered]}" = "${HS[posted]}" ] && [ "${HS[okay]}" = 0 ] ||
			why="$why ${HS[answered]} of ${HS[posted]} slots answered, ${HS[okay]} OKAY"
		det="error=${HS[error]} null=${HS[null]}"
		k=txr_drop_copy
		[ $c = tx_zero_frag ] && k=txr_drop_zero_frag ;;
	tx_cross_page | tx_slot_flood | tx_prod_jump)
		[ "${HS[okay]}" = 0 ] || why="$why ${HS[okay]} answered OKAY"
		[ "${HB[carrier]}" = 0 ] || why="$why vif still up"
		det="carrier=${HB[carrier]} answered=${HS[answered]}"
		k=fatal ;;
	kick_storm)
		det="kicks=${HS[kicks]}"
		k=txr_spurious ;;
	rx_trickle)
		# frames kept coming (at least as many as rounds), none in
		# error; xfab_netback purged and took buffers again, round
		# after round
		[ "${HS[bursts]}" -ge 5 ] && [ "${HS[rx_got]}" -ge "${HS[bursts]}" ] ||
			why="$why ${HS[rx_got]} frames in ${HS[bursts]} rounds"
		[ "${HS[rx_err]}" = 0 ] || why="$why ${HS[rx_err]} RX errors"
		[ $x = 0 ] || [ "${HB[unstalls]}" -ge 3 ] ||
			why="$why ${HB[unstalls]} stalls ended (3 or more expected)"
		det="bursts=${HS[bursts]} rx_got=${HS[rx_got]} unstalls=${HB[unstalls]:-0}"
		k=rxr_drop_stall ;;
	rx_drip)
		# frames came at every round, none in error, and again once
		# all the guest's buffers were out (the vif still works). The
		# backend dropped what aged: xfab_netback counts it
		# (rxr_drop_aged, below), with no stall (the rounds kept the
		# queue from one: aging, not the stall purge, bounded it), and
		# no packet it held waited past twice the limit (the timer
		# ages a queue between rounds too: aging only when buffers
		# come would show a round, 2.5 s); the stock backend counts it
		# in the vif's rx_dropped
		[ "${HS[bursts]}" -ge 2 ] && [ "${HS[rx_got]}" -ge "${HS[bursts]}" ] ||
			why="$why ${HS[rx_got]} frames in ${HS[bursts]} rounds"
		[ "${HS[rx_err]}" = 0 ] || why="$why ${HS[rx_err]} RX errors"
		[ "${HS[rx_after]:-0}" -gt 0 ] || why="$why no traffic once all buffers were out"
		det="bursts=${HS[bursts]} rx_got=${HS[rx_got]} rx_after=${HS[rx_after]} drain_ms=${HB[drain_ms]}"
		if [ $x = 1 ]; then
			[ "${HB[rxr_drop_stall]}" = 0 ] ||
				why="$why rxr_drop_stall ${HB[rxr_drop_stall]} (the queue stalled: the case measured the stall, not aging)"
			[ "${HB[oldest_n]:-0}" -gt 0 ] ||
				why="$why no age of the backlog read (debugfs oldest_ms)"
			[ "${HB[oldest_max]:-0}" -le $((2 * HB[drain_ms])) ] ||
				why="$why a packet waited ${HB[oldest_max]} ms (limit ${HB[drain_ms]})"
			det="$det oldest_max=${HB[oldest_max]}ms in ${HB[oldest_n]} samples"
			k=rxr_drop_aged
		else
			det="$det rx_dropped=${HB[rx_dropped]}"
			[ "${HB[rx_dropped]:-0}" -gt 0 ] ||
				why="$why rx_dropped 0: nothing aged in ${HS[ms]} ms (limit ${HB[drain_ms]} ms)"
		fi ;;
	state_flip)
		[ "${HS[flips]:-0}" -gt 0 ] || why="$why no state flipped"
		det="flips=${HS[flips]} rx_got=${HS[rx_got]}" ;;
	lro_gso | lro_mtu)
		# dom0 lived to judge; no splat; nothing past the MTU left the
		# bridge; what arrived is the guest's (hv_lro_judge)
		hv_lro_judge $c
		[ $c = lro_gso ] && k=txr_gso ;;
	pool_hog)
		# a stock backend maps no frontend pool: nothing to bound
		[ $x = 1 ] || { echo "n/a: no pools"; return; }
		hv_hog_judge ;;
	ptr_valid)
		# the control: our own frames, read through dom0's window, every
		# slot answered once the stack let go
		[ "${HS[okay]}" = "${HS[posted]}" ] && [ "${HS[posted]}" -gt 0 ] ||
			why="$why ${HS[okay]} of ${HS[posted]} frames OKAY"
		[ "${HB[txr_ptr_late_done]:-0}" = "${HB[txr_ptr_packets]:-0}" ] ||
			why="$why ${HB[txr_ptr_late_done]:-0} of ${HB[txr_ptr_packets]:-0} answered late"
		det="okay=${HS[okay]} late=${HB[txr_ptr_late_done]:-0}"
		k=txr_ptr_packets ;;
	ptr_unasked | ptr_bad_frame | ptr_other)
		# each frame refused, answered with an error, nothing sent up
		# by reference; the vif stays up
		[ "${HS[answered]}" = "${HS[posted]}" ] && [ "${HS[okay]}" = 0 ] ||
			why="$why ${HS[answered]} of ${HS[posted]} slots answered, ${HS[okay]} OKAY"
		[ "${HB[txr_ptr_packets]:-0}" = 0 ] ||
			why="$why ${HB[txr_ptr_packets]} packets sent up by reference"
		[ "${HB[carrier]}" = 1 ] || why="$why vif down"
		det="error=${HS[error]}"
		k=txr_ptr_bad_span
		[ $c = ptr_unasked ] && k=txr_drop_ptr_refused ;;
	*) why="no judge for case $c" ;;
	esac
	if [ $x = 1 ] && [ -n "$k" ]; then
		det="$det $k=${HB[$k]}"
		[ "${HB[$k]:-0}" -gt 0 ] || why="$why $k 0"
	fi
	if [ -n "$why" ]; then echo "bad$why"; else echo "ok $det"; fi
}

# ---- lro_gso, lro_mtu: what dom0's bridge makes of a guest's segments ----
# The flows tests/hostile/vif.c sends in each case (hv_gso_flows,
# hv_mtu_flows) as "port:payload bytes in all", comma-separated. They go
# to a MAC nobody has, so xenbr0 floods them to every port but the vif:
# to HV_NEAR, one end of a veth pair whose TSO and frag_list support are
# off, so dom0 must segment in software what it sends there (a merge LRO
# once chained onto a frag_list hit a BUG in skb_segment there).
declare -A HV_LRO_FLOWS=([lro_gso]="7001:32,7002:32" [lro_mtu]="7003:6000")
HV_NEAR=hsveth0 HV_FAR=hsveth1
HV_MTU=1500
HV_CAP="" HV_PING="" HV_CAP_OUT=$W/hs-capture.out

# The capture (python3 -c; the image has no tcpdump): a packet socket on
# each end of the pair, until SIGTERM. Args: NEAR FAR FLOWS. It counts
# the frames of our flows (addresses, source port 0xfab0, the ports in
# FLOWS) that dom0 sends out of NEAR (their count and longest frame) and
# that arrive at FAR, where it checks each as the guest's bytes: the IP
# header checksum, the TCP one (when the kernel left it partial, that the
# field holds the pseudo-header sum for the segment's length), and every
# payload byte against its sequence number (vif.c's hv_lro_byte and first
# sequence number), each byte of the stream once. It prints "ready" once
# both sockets are bound, then at the end one line of key=value:
# stray (frames of ours with a bad IP header checksum or another port),
# and per flow PORT_near_frames, PORT_near_max, PORT_far_frames,
# PORT_far_bytes (payload), PORT_far_max, PORT_far_bad (bytes not the
# guest's or past the stream), PORT_far_dup, PORT_far_missing,
# PORT_csum_partial, PORT_csum_bad. Frame lengths count the Ethernet
# header.
HV_CAPTURE='
import select, signal, socket, struct, sys, time

near_if, far_if = sys.argv[1], sys.argv[2]
want = {int(p): int(n) for p, n in (a.split(":") for a in sys.argv[3].split(","))}
ISN, SPORT = 0x1000, 0xfab0
SRC4, DST4 = socket.inet_aton("10.0.0.77"), socket.inet_aton("10.0.0.88")
SRC6 = socket.inet_pton(socket.AF_INET6, "fd00:fab::77")
DST6 = socket.inet_pton(socket.AF_INET6, "fd00:fab::88")
SOL_PACKET, PACKET_AUXDATA, OUTGOING, CSUMNOTREADY = 263, 8, 4, 8


def fold(s):
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def words(b):
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))


def byte_at(port, i):
    return (i * 13 + (i >> 8) + port) & 0xff


def ours(f):
    """(port, pseudo-header sum but the length, TCP bytes) of a frame of
    our flows; "bad" for one from our addresses with a bad IP header;
    None for any other frame."""
    if f[12:14] == b"\x08\x00" and len(f) >= 34 and f[14] == 0x45 and \
            f[23] == 6 and f[26:30] == SRC4 and f[30:34] == DST4:
        if fold(words(f[14:34])) != 0xffff:
            return "bad"
        tcp = f[34:14 + struct.unpack("!H", f[16:18])[0]]
        ps = words(SRC4 + DST4) + 6
    elif f[12:14] == b"\x86\xdd" and len(f) >= 54 and f[20] == 6 and \
            f[22:38] == SRC6 and f[38:54] == DST6:
        tcp = f[54:54 + struct.unpack("!H", f[18:20])[0]]
        ps = words(SRC6 + DST6) + 6
    else:
        return None
    if len(tcp) < 20 or struct.unpack("!H", tcp[:2])[0] != SPORT:
        return None
    port = struct.unpack("!H", tcp[2:4])[0]
    return (port, ps, tcp) if port in want else "bad"


class Flow:
    def __init__(self, total):
        self.seen = [0] * total
        self.near = self.near_max = self.frames = self.bytes = 0
        self.max = self.bad = self.partial = self.csum_bad = 0


flows = {p: Flow(n) for p, n in want.items()}
stray = 0


def far_frame(f, status):
    global stray
    got = ours(f)
    if got is None:
        return
    if got == "bad":
        stray += 1
        return
    port, ps, tcp = got
    fl = flows[port]
    data = tcp[(tcp[12] >> 4) * 4:]
    fl.frames += 1
    fl.bytes += len(data)
    fl.max = max(fl.max, len(f))
    ps += len(tcp)
    if status & CSUMNOTREADY:
        fl.partial += 1
        if fold(ps) % 0xffff != struct.unpack("!H", tcp[16:18])[0] % 0xffff:
            fl.csum_bad += 1
    elif fold(ps + words(tcp)) != 0xffff:
        fl.csum_bad += 1
    at = (struct.unpack("!I", tcp[4:8])[0] - ISN) & 0xffffffff
    for i, b in enumerate(data):
        if at + i >= len(fl.seen) or b != byte_at(port, at + i):
            fl.bad += 1
        else:
            fl.seen[at + i] += 1


def near_frame(f):
    got = ours(f)
    if got is None or got == "bad":
        return
    fl = flows[got[0]]
    fl.near += 1
    fl.near_max = max(fl.near_max, len(f))


def bound(ifname, aux):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    if aux:
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifname, 0))
    return s


near, far = bound(near_if, False), bound(far_if, True)
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
print("ready", flush=True)
end = time.time() + 600
while not stop and time.time() < end:
    for s in select.select([near, far], [], [], 0.2)[0]:
        f, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(20))
        if s is near:
            if addr[2] == OUTGOING:
                near_frame(f)
        elif addr[2] != OUTGOING:
            status = 0
            for lvl, typ, d in anc:
                if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
                    status = struct.unpack("I", d[:4])[0]
            far_frame(f, status)
out = ["stray=%d" % stray]
for p, fl in flows.items():
    out += ["%d_%s=%d" % (p, k, v) for k, v in (
        ("near_frames", fl.near), ("near_max", fl.near_max),
        ("far_frames", fl.frames), ("far_bytes", fl.bytes),
        ("far_max", fl.max), ("far_bad", fl.bad),
        ("far_dup", sum(1 for n in fl.seen if n > 1)),
        ("far_missing", fl.seen.count(0)), ("csum_partial", fl.partial),
        ("csum_bad", fl.csum_bad))]
print(" ".join(out), flush=True)
'

# A statistic of a net device (0 if it is gone).
hv_stat() { cat "/sys/class/net/$1/statistics/$2" 2>/dev/null || echo 0; }

# hv_lro_start CASE: the veth pair, HV_NEAR in xenbr0 with TSO and
# frag_list off and GSO on (read back: with either left on, dom0 would
# not segment and the case would show nothing), GRO off on HV_FAR, both
# ends at HV_MTU, no IPv6 of their own; the capture running on both
# ends. Undone at exit.
hv_lro_start() {
	local d f
	hv_lro_stop
	trap hv_lro_stop EXIT
	must ip link add "$HV_NEAR" type veth peer name "$HV_FAR"
	for d in "$HV_NEAR" "$HV_FAR"; do
		f=/proc/sys/net/ipv6/conf/$d/disable_ipv6
		[ -e "$f" ] && echo 1 >"$f"
		must ip link set "$d" mtu $HV_MTU
	done
	must ethtool -K "$HV_NEAR" tso off tx-scatter-gather-fraglist off gso on
	f=$(ethtool -k "$HV_NEAR")
	for d in tcp-segmentation-offload tx-scatter-gather-fraglist; do
		echo "$f" | grep -Eq "^[[:space:]]*$d: off" || error "$HV_NEAR: $d still on"
	done
	echo "$f" | grep -Eq '^generic-segmentation-offload: on' || error "$HV_NEAR: GSO off"
	# the far end takes frames as they come (GRO would merge them again)
	must ethtool -K "$HV_FAR" gro off
	must ip link set "$HV_NEAR" master xenbr0
	must ip link set "$HV_NEAR" up
	must ip link set "$HV_FAR" up
	python3 -c "$HV_CAPTURE" "$HV_NEAR" "$HV_FAR" "${HV_LRO_FLOWS[$1]}" >"$HV_CAP_OUT" 2>&1 &
	HV_CAP=$!
	wait_for 30 grep -q '^ready' "$HV_CAP_OUT" ||
		error "the capture on $HV_NEAR/$HV_FAR did not start: $(tail -n 3 "$HV_CAP_OUT")"
	HB[near_dropped0]=$(hv_stat "$HV_NEAR" tx_dropped)
	HB[far_dropped0]=$(hv_stat "$HV_FAR" rx_dropped)
}

# hv_lro_collect: the capture's counts into HB (a second for what dom0
# still forwards), and the frames each end of the pair dropped
# (near_dropped, far_dropped: a frame longer than the far end's MTU is
# dropped there); then the pair goes.
hv_lro_collect() {
	local kv
	kill "$HV_PING" 2>/dev/null
	wait "$HV_PING" 2>/dev/null
	HV_PING=""
	sleep 1
	HB[near_dropped]=$(($(hv_stat "$HV_NEAR" tx_dropped) - HB[near_dropped0]))
	HB[far_dropped]=$(($(hv_stat "$HV_FAR" rx_dropped) - HB[far_dropped0]))
	kill -TERM "$HV_CAP" 2>/dev/null
	wait "$HV_CAP"
	HV_CAP=""
	log "capture: $(tail -n 1 "$HV_CAP_OUT")"
	for kv in $(tail -n 1 "$HV_CAP_OUT"); do
		case $kv in *=*) HB[${kv%%=*}]=${kv#*=} ;; esac
	done
	hv_lro_stop
}

hv_lro_stop() {
	[ -n "$HV_CAP" ] && kill -TERM "$HV_CAP" 2>/dev/null
	[ -n "$HV_PING" ] && kill "$HV_PING" 2>/dev/null
	HV_CAP="" HV_PING=""
	ip link del "$HV_NEAR" 2>/dev/null
	trap - EXIT
}

# Lines of dom0's kernel log since stock_mark that belong to a splat
# (counted, not quoted: a quoted one in our log would be a splat on the
# console).
hv_splat_count() {
	dmesg | tail -n +$((${STOCK_MARK:-0} + 1)) |
		grep -cE 'kernel BUG|BUG:|WARNING:|Oops|general protection fault|Call Trace:|Kernel panic'
}

# hv_lro_judge CASE: the why and det of hostile_vjudge (its locals) for
# an lro_* case, from HS (the guest's report) and HB (the capture).
hv_lro_judge() {
	local c=$1 f p n max=$((HV_MTU + 14)) splats
	[ "${HS[linked]:-0}" = 1 ] ||
		why="$why nothing came from the bridge in $((${HS[ms]:-0} / 1000)) s, no segment sent"
	# every slot answered; lro_gso's segments are valid ones: OKAY (a
	# backend may refuse lro_mtu's, longer than the MTU)
	[ "${HS[segs]:-0}" -gt 0 ] && [ "${HS[answered]}" = "${HS[posted]}" ] &&
		{ [ $c = lro_mtu ] || [ "${HS[okay]}" = "${HS[segs]}" ]; } ||
		why="$why ${HS[answered]} of ${HS[posted]} slots answered, ${HS[okay]} of ${HS[segs]} segments OKAY"
	splats=$(hv_splat_count)
	[ "$splats" = 0 ] || why="$why $splats lines of a splat in dom0's kernel log"
	[ -n "${HB[stray]:-}" ] || why="$why no count from the capture"
	[ "${HB[stray]:-0}" = 0 ] || why="$why ${HB[stray]} frames of ours with a bad IP header or port"
	[ "${HB[far_dropped]}" = 0 ] ||
		why="$why $HV_FAR dropped ${HB[far_dropped]} frames (longer than its MTU)"
	for f in ${HV_LRO_FLOWS[$c]//,/ }; do
		p=${f%%:*} n=${f#*:}
		# nothing past the port's MTU left the bridge, or arrived
		[ "${HB[${p}_near_max]:-99999}" -le $max ] && [ "${HB[${p}_far_max]:-99999}" -le $max ] ||
			why="$why port $p: a frame of ${HB[${p}_near_max]:-?} bytes sent to $HV_NEAR (MTU $HV_MTU)"
		# what arrived is the guest's: each byte in place, once, checksums right
		[ "${HB[${p}_far_bad]:-1}" = 0 ] && [ "${HB[${p}_far_dup]:-1}" = 0 ] &&
			[ "${HB[${p}_csum_bad]:-1}" = 0 ] ||
			why="$why port $p: ${HB[${p}_far_bad]:-?} bytes wrong, ${HB[${p}_far_dup]:-?} twice, ${HB[${p}_csum_bad]:-?} checksums bad"
		# lro_gso: all of it arrived (as segments of the GSO size the
		# guest gave, 8 bytes each); lro_mtu: what may arrive is only
		# what fits the MTU, so none of it from a stock backend
		if [ $c = lro_gso ]; then
			[ "${HB[${p}_far_bytes]:-0}" = "$n" ] && [ "${HB[${p}_far_missing]:-1}" = 0 ] ||
				why="$why port $p: ${HB[${p}_far_bytes]:-0} of $n payload bytes arrived, ${HB[${p}_far_missing]:-?} missing"
		fi
		det="$det $p:${HB[${p}_far_frames]:-?}x/${HB[${p}_far_bytes]:-?}B/max${HB[${p}_near_max]:-?}"
	done
	det="${det# } okay=${HS[okay]} lro_out=${HB[txr_lro_out]:--}"
}

# ---- xfab_hostile as dom0's backend (051) ----
HS_REPORT=/sys/module/xfab_hostile/parameters/report

# hostile_backend ARGS DOMU MODULE...: xfab_hostile, loaded with ARGS
# (backend=1 netback=1), becomes dom0's only backend of those kinds: each
# MODULE (the stock and the xfab backend) goes and is blacklisted (udev
# would load a stock one for the next device). Undone at exit, so that a
# failed case does not leave later scenarios' devices to the hostile
# backend; DOMU, if still running, is destroyed first (its bound devices
# hold the module).
hostile_backend() {
	local args=$1 m
	HS_DOMU=$2
	shift 2
	HS_CONFS=""
	trap hostile_backend_done EXIT
	for m in "$@"; do
		HS_CONFS="$HS_CONFS /etc/modprobe.d/xfab-test-$m.conf"
		echo "blacklist ${m//-/_}" >"/etc/modprobe.d/xfab-test-$m.conf"
		lsmod | grep -q "^${m//-/_} " || continue
		modprobe -r "$m" 2>/dev/null || rmmod "${m//-/_}" 2>/dev/null
		lsmod | grep -q "^${m//-/_} " && error "$m would not unload"
	done
	must insmod "$XFAB/modules/xfab_hostile.ko" $args
}

hostile_backend_done() {
	# a domain that died stays in the expected list: the runner sees it
	domu_alive "$HS_DOMU" && domu_destroy "$HS_DOMU" >/dev/null
	rmmod xfab_hostile 2>/dev/null
	rm -f $HS_CONFS
}

# hostile_back_report FE CASE BEFORE: the hostile backend's report of
# CASE, a line other than BEFORE (the report as it was before the
# attach), written once the frontend closed; into HS.
hostile_back_report() {
	local rep kv
	wait_for 20 sh -c "[ \"\$(cat $HS_REPORT)\" != '$3' ] && grep -q 'case=$2 ' $HS_REPORT" ||
		fail "$1 $2: no report from the hostile backend"
	rep=$(cat $HS_REPORT)
	log "$1 $2: $rep"
	HS=()
	for kv in $rep; do HS[${kv%%=*}]=${kv#*=}; done
}
