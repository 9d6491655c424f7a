#!/bin/bash
# 050 hostile frontends against both block and both network backends
# Objective: one domU plays a frontend that breaks the protocol on
#   purpose, first as a vbd, then as a vif; one boot for all four backends.
#   vbd: a frontend that breaks blkif on purpose (tests/hostile,
#   xfab_hostile) must not hang, crash or starve the backend, in the
#   same boot for xen-blkback and xfab_blkback: one block-attach per case
#   (valid reads as the control, a flood of refused requests, grant refs
#   nobody granted, a sector range that wraps, 255 direct segments, a
#   producer index 4 rings ahead, an event storm with nothing posted),
#   then valid reads again (the backend still takes new devices). After
#   each: the detach completes through xenwatch, the backend device is
#   gone and xfab_blkback holds nothing. xfab_blkback must also answer as
#   a defended backend does, each case with the counter that says why;
#   the stock column, from the same boot, must be what check-full
#   measured before (HS_STOCK in hostile.sh). Control: with
#   refuse_rate=0 the refusal bound must catch xfab_blkback (the check
#   can fail: without the bound it answered 35,000 refusals/s).
#   Kept read-only mappings (ro_writes: a frontend announcing relaxed
#   trust writes from 2048 read-only pages; each mapping kept holds one
#   of dom0's maptrack entries): with ro_grants_per_disk=256
#   xfab_blkback must refuse to keep more (the writes still OKAY,
#   ro_budget counted); with a cache of 8 slots an 11-page write finds
#   them all pinned and must map read-only for that request, not
#   writable (which Xen refuses for a read-only grant).
#   close_inflight: a ring's worth of reads on a disk that holds each for
#   12 s (dm-delay over the RAM disk), detached at once: the detach must
#   finish in 5 s, not wait in xenwatch for the disk (every PV device of
#   dom0 waits with it); xfab_blkback finishes those rings in the
#   background (draining 1 in debugfs), then holds nothing.
#   reconnect_flood (without a bound, ring sets left draining piled up,
#   each with its grants mapped): on the same slow disk, a ring's worth
#   of reads, then 5 times as fast as the backend follows: Closing,
#   Closed, Initialising, a new ring, Initialised, and reads again on
#   each ring the backend took. xfab_blkback: dom0 samples the disk's
#   statistics/draining and debugfs' draining every 0.2 s: never more
#   than 2 (drain_sets_per_disk) and at least 1; drain_refused_disk > 0
#   (connects kept in InitWait); the frontend connected again once a
#   drain ended; the detach within 5 s; then nothing held. Twice more:
#   drain_sets_total=0 (at most 1 draining, drain_refused_total > 0;
#   row reconnect_flood_total), and the control, drain_sets_per_disk=64,
#   which must come out bad. xen-blkback (check-full) is judged on what
#   applies to it: the reconnects made, connected again, the detach.
#   state_flip: the frontend's state key through every state, in no
#   protocol order, every 20 ms for secs, with reads in flight: the
#   backend may connect and disconnect as it likes, but must survive,
#   let the device go at detach and hold nothing.
#   make check runs refuse_flood, prod_jump, ro_writes and close_inflight
#   (then the control and both bounds, which attach again) against
#   xfab_blkback only; check-full every case against both (HOSTILE_FULL),
#   reconnect_flood among them (each run waits for the slow disk, about
#   20 s; with its two more runs and xen-blkback's about 80 s: not in
#   make check).
#   vif: a frontend that breaks netif on purpose (tests/hostile,
#   xfab_hostile) must not hang, crash or starve the backend, in the
#   same boot for xen-netback and xfab_netback: one network-attach per
#   case (valid frames as the control, no RX buffers while dom0 floods
#   the bridge with broadcasts, a few RX buffers at a time about as
#   often as the backend's stall timer purges its backlog (1 s), under
#   a harder flood (rx_trickle: the purge and the take of the next
#   packet meet, where xfab_netback once raced without the backlog's
#   lock), grant refs nobody granted, an empty second slot, a slot past
#   its page, a 20-slot chain, a TX producer index 4 rings ahead, an
#   event storm, TCP segments the backend's LRO may merge (below), the
#   frontend's state key flipped through every state every 20 ms), then
#   valid frames again (the backend still takes new vifs). After each:
#   the detach completes through xenwatch, the vif is gone and
#   xfab_netback holds nothing.
#   xfab_netback must also answer as a defended backend does, each case
#   with the counter that says why (no_rx: its backlog dropped on a
#   stall although the queue never stopped; rx_trickle: frames kept
#   coming, none in error, and at least 3 stalls ended); the stock
#   column, from the same boot, must be what HS_STOCK says.
#   LRO: the guest sends two consecutive TCP segments of one flow in one
#   push to a MAC nobody has, once a broadcast from the bridge reached
#   it; xenbr0 floods them to hsveth0, one end of a veth pair with TSO
#   and frag_list off (GSO on: dom0 segments in software), made before
#   the attach; a capture on both ends. lro_gso: 16 payload bytes each
#   with a GSO extra of size 8, over IPv4, then over IPv6: all 32 bytes
#   of each flow arrive at the far end, each byte once and in place, the
#   checksums right (a merge chained onto a frag_list made skb_segment
#   BUG and dom0 die: then the run ends with 050 in ERROR, "did not
#   finish", and the trace in serial.log).
#   lro_mtu: 3000 bytes each, no GSO extra: no frame longer than the
#   MTU (1500) leaves the bridge for hsveth0 or is dropped at its far
#   end (a stock backend's frames die at the bridge's MTU check; a merge
#   made them one GSO packet that passes it). Both: no splat in dom0's
#   kernel log, every slot answered.
#   pool_hog (pools mapped without a bound once exhausted dom0's
#   maptrack): two vifs of h1, the second attached while the first
#   holds its mappings, each publishing a TX and an RX pool of the
#   most pages xfab_netback maps (pool_pages) on every queue it offers,
#   then 32 frames per queue from the TX pool. Bounds lowered for the
#   case (restored after): pool_grants_per_vif = 2 x queues - 1 pools,
#   pool_grants_total = what was held + that + one pool. The first vif
#   must map all its pools but one (pool_refused_vif 1, every frame by
#   memcpy), the second one pool (the backend's bound refuses the rest:
#   pool_refused_total; its other queues grant-copy), every frame OKAY,
#   no more mapped than the bounds, the budget equal to what is mapped,
#   and back at 0 after the detach. xen-netback maps no pool: "n/a".
#   rx_drip (a guest that posts a few buffers now and then never
#   stalls, so only packets aging out bound its backlog): 8 RX buffers
#   every 2.5 s under the flood of rx_trickle, for 5 s (check) or 14 s
#   (check-full), then all 64; xfab_netback's rx_drain_ms 1000 and
#   rx_stall_secs 6 for the case (restored after). Both backends: frames
#   at every round, none in error, traffic once all buffers were out.
#   xfab_netback: rxr_drop_aged > 0, rxr_drop_stall 0, and the oldest
#   packet of its backlog (debugfs oldest_ms, read every 0.25 s) never
#   older than 2 x rx_drain_ms; xen-netback (rx_drain_timeout_msecs,
#   10 s, fixed at load): rx_dropped > 0. HV_DRIP_DRAIN_MS=60000 is the
#   control (must come out bad).
#   make check
#   runs no_rx, rx_trickle, tx_prod_jump, lro_gso (the dom0 panic) and
#   state_flip (which attaches a vif again) against xfab_netback only
#   (rx_stall_secs 3); rx_drip, lro_mtu and pool_hog run in check-full,
#   as make check already takes over twice its goal on a slow day.
# Topology: dom0 (the backends; brd /dev/ram0, xfab-slow (dm-delay over
#   it), bridge xenbr0 10.0.0.1/24, for lro_* the veth pair hsveth0 (in
#   xenbr0) / hsveth1) <-> domU h1 (xfab_hostile only, no other
#   frontend, no vif at boot), xvdb or one vif attached per case.
#   make check: the subsets above against the xfab backends only;
#   check-full every case against both (HOSTILE_FULL). To run a few vif
#   cases alone: HOSTILE_ONLY=vif (no vbd part), HOSTILE_VIF_CASES (the
#   cases), HOSTILE_NET_BACKENDS (the backends, in order); a few vbd
#   cases: HOSTILE_ONLY=vbd (no vif part), HOSTILE_VBD_CASES,
#   HOSTILE_BLK_BACKENDS.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

VBD_CASES=$(hostile_cases "valid refuse_flood bad_gref sector_wrap too_many_segs prod_jump kick_storm ro_writes close_inflight reconnect_flood state_flip valid" \
	"refuse_flood prod_jump ro_writes close_inflight")

BLK_BACKENDS=xfab_blkback
[ -n "$HOSTILE_FULL" ] && BLK_BACKENDS="xen-blkback xfab_blkback"
# one vbd case or a few, against the backends named (e.g. HOSTILE_ONLY=vbd
# HOSTILE_VBD_CASES=reconnect_flood HOSTILE_BLK_BACKENDS="xen-blkback
# xfab_blkback"); the runs that go with a case (refuse_flood's and
# reconnect_flood's controls, ro_writes' bounds) come with it
[ -n "${HOSTILE_VBD_CASES:-}" ] && VBD_CASES=$HOSTILE_VBD_CASES
[ -n "${HOSTILE_BLK_BACKENDS:-}" ] && BLK_BACKENDS=$HOSTILE_BLK_BACKENDS
hs_has() { case " $VBD_CASES " in *" $1 "*) return 0 ;; esac; return 1; }

# HOSTILE_ONLY=vif: the vif part alone (with HOSTILE_VIF_CASES and
# HOSTILE_NET_BACKENDS, one case against one backend or both);
# HOSTILE_ONLY=vbd: the vbd part alone
BLK_PART=1
[ "${HOSTILE_ONLY:-}" = vif ] && BLK_PART="" VBD_CASES="" BLK_BACKENDS=""
if [ -n "$BLK_PART" ]; then
	blk_make_disks
	hostile_slow_disk
fi
domu_start h1 --novif --mods xfab_hostile
bad_blk=""
if [ -n "$BLK_PART" ]; then
	for be in $BLK_BACKENDS; do
		blk_use_backend $be
		for c in $VBD_CASES; do
			HS_DISK=/dev/ram0
			case $c in
			close_inflight | reconnect_flood) HS_DISK=/dev/mapper/xfab-slow ;;
			esac
			hostile_vbd $be $c
			hostile_record $be $c "$(hostile_judge $be $c)"
			figure "hostile.$be.$c.answered" "${HS[answered]}"
			figure "hostile.$be.$c.ms" "${HS[ms]}"
			[ $c = close_inflight ] && figure "hostile.$be.$c.detach_ms" "${HB[detach_ms]}"
			if [ $c = reconnect_flood ]; then
				figure "hostile.$be.$c.detach_ms" "${HB[detach_ms]}"
				[ "$be" = xfab_blkback ] && hostile_reconnect_bounds
			fi
		done
	done
	HS_DISK=/dev/ram0
	hostile_slow_disk_done

	# The control: an unthrottled xfab_blkback must break the bound.
	if hs_has refuse_flood; then
		echo 0 >/sys/module/xfab_blkback/parameters/refuse_rate
		hostile_vbd xfab_blkback refuse_flood
		ctl=$(hostile_judge xfab_blkback refuse_flood)
		echo 100 >/sys/module/xfab_blkback/parameters/refuse_rate
		log "control (refuse_rate=0): $ctl"
		figure hostile.control.refuse_rate0.answered "${HS[answered]}"
		figure hostile.xfab_blkback.refuse_flood_unthrottled.verdict "$ctl (control: must be bad)"
		case $ctl in
		bad*) ;;
		*) fail "control: refuse_rate=0 stayed within the bound (${HS[answered]} in ${HS[ms]} ms): the flood case does not measure" ;;
		esac
	fi

	# Bounds on kept read-only mappings: the per-disk one, then a full cache.
	ro_case() {
		local what=$1 counter=$2 v
		hostile_vbd xfab_blkback ro_writes
		v=$(hostile_judge xfab_blkback ro_writes)
		log "$what:"
		hostile_record xfab_blkback ro_writes_$counter "$v"
		# the bound must also have been met, and counted
		[ "${v%% *}" != ok ] || [ "${HB[$counter]:-0}" -gt 0 ] ||
			bad="$bad ro_writes ($what): $counter=${HB[$counter]:-none}"
	}
	if hs_has ro_writes; then
		echo 256 >/sys/module/xfab_blkback/parameters/ro_grants_per_disk
		ro_case "ro_grants_per_disk=256" ro_budget
		echo 8192 >/sys/module/xfab_blkback/parameters/ro_grants_per_disk
		must rmmod xfab_blkback
		must insmod "$XFAB/modules/xfab_blkback.ko" ro_grants=8
		ro_case "ro_grants=8 (every slot pinned)" ro_full
		must rmmod xfab_blkback
		load_backend xfab_blkback
	fi

	hostile_table xen-blkback xfab_blkback $VBD_CASES ro_writes_ro_budget ro_writes_ro_full reconnect_flood_total
	bad_blk=$bad
	bad=""
fi

# ---- the same frontend as a vif ----
VIF_CASES=$(hostile_cases "valid no_rx rx_trickle rx_drip tx_bad_gref tx_zero_frag tx_cross_page tx_slot_flood tx_prod_jump kick_storm lro_gso lro_mtu pool_hog state_flip valid" \
	"no_rx rx_trickle tx_prod_jump lro_gso state_flip")
# check: xfab_netback only, its stall timer shortened (the stock one,
# rx_drain_timeout_msecs, is fixed at load); check-full: both, defaults
NET_BACKENDS="xfab_netback"
[ -n "$HOSTILE_FULL" ] && NET_BACKENDS="xen-netback xfab_netback"
# one case or a few, against the backends named (e.g. HOSTILE_ONLY=vif
# HOSTILE_VIF_CASES=lro_gso HOSTILE_NET_BACKENDS="xen-netback xfab_netback")
[ -n "${HOSTILE_VIF_CASES:-}" ] && VIF_CASES=$HOSTILE_VIF_CASES
[ -n "${HOSTILE_NET_BACKENDS:-}" ] && NET_BACKENDS=$HOSTILE_NET_BACKENDS
# HOSTILE_ONLY=vbd: no vif part
[ "${HOSTILE_ONLY:-}" = vbd ] && VIF_CASES="" NET_BACKENDS=""
STALL=/sys/module/xfab_netback/parameters/rx_stall_secs

for be in $NET_BACKENDS; do
	net_use_backend $be
	if [ -z "$HOSTILE_FULL" ]; then
		[ "$be" = xfab_netback ] && echo 3 >$STALL
		HV_SECS=5
	fi
	for c in $VIF_CASES; do
		if [ $c = pool_hog ]; then
			# two attaches of its own; nothing to run on a stock backend
			HS=() HB=()
			if [ "$be" = xfab_netback ]; then
				hostile_pool_hog $be
			else
				stock_mark
			fi
			hostile_record $be $c "$(hostile_vjudge $be $c)"
			[ "$be" = xfab_netback ] &&
				figure "hostile.$be.pool_hog.pages" "a=${HB[a_pages]} b=${HB[b_pages]} bounds=${HB[vmax]}/${HB[tmax]}"
			continue
		fi
		hostile_vif $be $c
		hostile_record $be $c "$(hostile_vjudge $be $c)"
		figure "hostile.$be.$c.answered" "${HS[answered]}"
		[ $c = no_rx ] && figure "hostile.$be.no_rx.rx_after" "${HS[rx_after]}" &&
			figure "hostile.$be.no_rx.dom0_sent" "${HB[dom0_sent]}"
		case $c in lro_*) figure "hostile.$be.$c.capture" "$(tail -n 1 "$HV_CAP_OUT")" ;; esac
	done
done

hostile_table xen-netback xfab_netback $VIF_CASES
[ -e $STALL ] && echo 10 >$STALL
domu_destroy h1 >/dev/null
msg=""
[ -n "$bad_blk" ] && msg="xfab_blkback:$bad_blk"
[ -n "$bad" ] && msg="${msg:+$msg; }xfab_netback:$bad"
off=$(hostile_stock_off)
[ -n "$off" ] && msg="${msg:+$msg; }$off"
[ -z "$msg" ] || fail "$msg"
nb=$(echo $BLK_BACKENDS | wc -w)
nn=$(echo $NET_BACKENDS | wc -w)
pass "hostile frontends: $(echo $VBD_CASES | wc -w) vbd cases x $nb backend(s), $(echo $VIF_CASES | wc -w) vif cases x $nn backend(s) each survived; the xfab backends answered each as defended${BLK_PART:+, control caught}$(hostile_cases "; the stock backends as docs/hostile.md says" "")"
