#!/bin/bash
# 051 hostile backends against both block and both network frontends
# Objective: a backend that reads all a frontend grants it, maps what it
#   should not and answers against the protocol (tests/hostile,
#   xfab_hostile backend=1 netback=1, in place of blkback and netback)
#   must get nothing from the frontend but what the guest put there on
#   purpose, and must not make it hold resources; in the same boot for
#   the stock frontends and the xfab ones (one domU per pair).
#   vbd:
#   stale_read: the guest fills and frees 64 MiB (its free pages then
#     hold old data), then reads 16 MiB with O_DIRECT; the backend
#     answers every read OKAY without data after copying out each
#     granted segment and counting the bytes that are not zero (XSA-403
#     class: pool pages granted unzeroed);
#   ro_keep (xfab_blkfront only): the backend claims to be xfab_blkback
#     and the disk is put in relaxed trust, so writes name read-only
#     grants the frontend keeps (ro_grants=16, idle after 100 ms); the
#     backend maps every write grant and keeps it mapped. The guest
#     writes 8 rounds of 2 MiB through the page cache 0.3 s apart: a
#     frontend that replaces kept grants still mapped (ending them leaves
#     grant entries and pages on Xen's deferred list) hands out more
#     than its 16;
#   ring_keep: at detach the backend keeps the ring page mapped for 7 s
#     and compares it with what it held; the guest boots with
#     init_on_free=1, so a page it frees is zeroed at once: a change
#     means the frontend freed a ring page the backend still maps
#     (XSA-396 class). Linux has itself kept such a page since its
#     XSA-396 fix (gnttab_end_foreign_access takes a reference while the
#     grant is in use), so this guards against a frontend that frees it
#     behind the grant table's back, and a kernel without that fix.
#     xen-blkfront frees its rings only when its device goes, after the
#     backend closed: ring_keep cannot see that.
#   vif:
#   tx_peek: the guest sends 3,000 datagrams of zeros out of the vif
#     while it sends the marker XFAB-HOSTILE-SECRET over loopback (kept
#     queued and freed beside them); the backend reads the whole 4 KiB
#     frame behind every TX slot and counts frames with the marker
#     outside the slot: guest memory exposed because it shares a page
#     with a packet (CVE-2022-33741 class). In default trust
#     xfab_netfront copies TX into a bounce pool, so it must show none.
#   tx_null: every TX slot is answered RSP_NULL (the answer for an
#     extra-info slot): xfab_netfront must disable the vif (carrier off,
#     tx_fatal_null) rather than keep those ids, grants and skbs.
#   rx_ref: at connect the backend writes one RX packet whose second
#     slot is a pointer-mode reference (flag bit 15 and a frame slot
#     naming dom0's frame 1) to a frontend that never asked for
#     references (xfab-ptr-rx): xfab_netfront must disable the vif
#     (carrier off, rx_fatal_bad_ref) rather than read it.
#   The xfab frontends must pass all; the stock ones are recorded
#   (xen-netfront grants skb pages in place when the toolstack's trusted
#   key is 1, xl's default, and skips RSP_NULL). The domU runs with
#   init_on_alloc=0: Debian's kernel zeroes every allocation by default,
#   which hides old data in granted pages and would wipe the freed
#   marker datagrams; ring_keep runs in a boot of its own (init_on_free
#   would hide them too).
# Topology: dom0 (xfab_hostile as the vbd and the vif backend, no
#   blkback or netback loaded; brd /dev/ram0 named by the toolstack,
#   never touched; vif hotplug script hs-vif-hotplug, no bridge) <->
#   domU g1 (the frontends under test, no vif at boot), xvdb or one vif
#   attached per case. make check runs the xfab frontends without
#   ring_keep; check-full both pairs, and ring_keep (HOSTILE_FULL); the
#   stock pair's verdicts must be what HS_STOCK (hostile.sh) says.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CHURN="dd if=/dev/urandom of=/tmp/churn bs=1M count=64 2>/dev/null; rm /tmp/churn"

# ro_keep: writes from new page-cache pages, rounds apart by more than
# the frontend's ro_idle_ms (its kept grants turn idle in between)
RO_WRITES="i=0; while [ \$i -lt 8 ]; do dd if=/dev/zero of=/dev/xvdb bs=64k count=32 seek=\$((i * 32)) conv=fsync 2>/dev/null; sleep 0.3; i=\$((i + 1)); done"
RO_GRANTS=16

# blk_attach_relaxed: block-attach xvdb to g1 in relaxed trust: the
# toolstack's key goes in once xl has made the frontend directory (the
# ro_keep backend waits for it before its InitWait).
blk_attach_relaxed() {
	local id dir pid
	id=$(domu_id g1)
	dir=/local/domain/$id/device/vbd/$(blk_handle xvdb)
	timeout 60 xl block-attach g1 'phy:/dev/ram0,xvdb,w' >/dev/null &
	pid=$!
	wait_for 20 xenstore-exists "$dir" || fail "ro_keep: no frontend directory $dir"
	must xenstore-write "$dir/xfab-trust" relaxed
	wait $pid || fail "ro_keep: xl block-attach failed"
}

# hostile_back FE CASE: one attach of xvdb to g1 with the backend running
# CASE; the report (written when the frontend has closed) in HS.
hostile_back() {
	local fe=$1 c=$2 rep0
	rep0=$(cat $HS_REPORT)
	echo "$c" >/sys/module/xfab_hostile/parameters/vbdback_case
	if [ "$c" = ro_keep ]; then
		blk_attach_relaxed
	else
		must timeout 60 xl block-attach g1 'phy:/dev/ram0,xvdb,w' >/dev/null
	fi
	domu_must g1 60 "i=0; until [ -b /dev/xvdb ] || [ \$i -ge 120 ]; do sleep 0.5; i=\$((i + 1)); done
		dd if=/dev/xvdb of=/dev/null bs=64k count=256 iflag=direct 2>&1 | tail -n 1" || exit $?
	if [ "$c" = ro_keep ]; then
		domu_must g1 120 "$RO_WRITES" >/dev/null || exit $?
		GV_GRANTS=$(blk_fstat g1 xvdb grants)
		GV_RO=$(blk_fstat g1 xvdb ro_grants)
		GV_BUSY=$(blk_fstat g1 xvdb ro_busy)
		log "$fe ro_keep guest: pool grants $GV_GRANTS, kept grants made $GV_RO, ro_busy ${GV_BUSY:-none}"
	fi
	timeout 90 xl block-detach g1 xvdb >/dev/null 2>&1 || fail "$fe $c: block-detach did not finish"
	hostile_back_report $fe $c "$rep0"
	[ "${HS[reads]:-0}" -gt 0 ] || fail "$fe $c: the hostile backend served no reads ($(cat $HS_REPORT))"
}

# hostile_back_judge CASE: "ok ..." or "bad ..." from HS.
hostile_back_judge() {
	case $1 in
	stale_read)
		[ "${HS[stale_segs]}" = 0 ] && echo "ok segs=${HS[segs]} stale_segs=0" ||
			echo "bad ${HS[stale_segs]} of ${HS[segs]} segments showed ${HS[stale_bytes]} old bytes" ;;
	ring_keep)
		[ "${HS[changed]}" = 0 ] && echo "ok ring page unchanged while held (7 s)" ||
			echo "bad ring page freed while mapped (changed in ${HS[changed]} of ${HS[looks]} looks, up to ${HS[changed_bytes]} bytes, req_prod ${HS[req_prod]})" ;;
	ro_keep)
		local over=$((HS[held] - GV_GRANTS - RO_GRANTS))
		[ "${HS[held]}" -gt "$GV_GRANTS" ] || { echo "bad no kept read-only grant reached the backend (held ${HS[held]}, pool $GV_GRANTS)"; return; }
		[ $over -le 0 ] && echo "ok held ${HS[held]} mapped: pool $GV_GRANTS + at most $RO_GRANTS kept (ro_busy ${GV_BUSY:-none})" ||
			echo "bad $over kept grants beyond its $RO_GRANTS handed out while the old ones were still mapped (held ${HS[held]}, pool $GV_GRANTS)" ;;
	esac
}

declare -A GV

# hostile_netback FE CASE: one vif on g1 with the backend running CASE;
# GV gets the guest's view, HS the backend's report.
hostile_netback() {
	local fe=$1 c=$2 rep0 kv devid out
	rep0=$(cat $HS_REPORT)
	echo "$c" >/sys/module/xfab_hostile/parameters/vifback_case
	must timeout 60 xl network-attach g1 mac=00:16:3e:00:00:0a \
		script=/xfab/guest/hs-vif-hotplug >/dev/null
	domu_must g1 60 "i=0; until [ -e /sys/class/net/eth0 ] || [ \$i -ge 120 ]; do sleep 0.5; i=\$((i + 1)); done
		ip addr add 10.0.0.2/24 dev eth0 && ip link set eth0 up" >/dev/null || exit $?
	case $c in
	tx_peek) out=$(domu_must g1 120 "xfab-spray eth0 3000 200 1") || exit $? ;;
	tx_null) out=$(domu_must g1 60 "xfab-spray eth0 32 200 0; sleep 2
		echo carrier=\$(cat /sys/class/net/eth0/carrier 2>/dev/null || echo 0)
		ethtool -S eth0 2>/dev/null | awk '\$1 == \"tx_fatal_null:\" { print \"tx_fatal_null=\" \$2 }'") || exit $? ;;
	rx_ref) out=$(domu_must g1 60 "sleep 2
		echo carrier=\$(cat /sys/class/net/eth0/carrier 2>/dev/null || echo 0)
		ethtool -S eth0 2>/dev/null | awk '\$1 == \"rx_fatal_bad_ref:\" { print \"rx_fatal_bad_ref=\" \$2 }'") || exit $? ;;
	esac
	log "$fe $c guest: $(echo $out)"
	GV=()
	for kv in $out; do GV[${kv%%=*}]=${kv#*=}; done
	devid=$(xl network-list g1 | awk 'NR > 1 { print $1; exit }')
	timeout 90 xl network-detach g1 "$devid" >/dev/null 2>&1 ||
		fail "$fe $c: network-detach did not finish"
	hostile_back_report $fe $c "$rep0"
	# rx_ref disables the vif before the guest sends anything
	[ "$c" = rx_ref ] || [ "${HS[slots]:-0}" -gt 0 ] ||
		fail "$fe $c: the hostile backend saw no TX slots ($(cat $HS_REPORT))"
}

# hostile_netback_judge CASE: "ok ..." or "bad ..." from HS and GV.
hostile_netback_judge() {
	case $1 in
	tx_peek)
		[ "${HS[peeked]:-0}" -gt 0 ] || { echo "bad the backend could read no frame (${HS[copy_errors]} copy errors)"; return; }
		[ "${HS[mark_slots]}" = 0 ] && echo "ok ${HS[peeked]} frames read whole: no other guest data" ||
			echo "bad ${HS[mark_slots]} of ${HS[peeked]} frames showed guest data outside the slot (${HS[mark_hits]} marker copies)" ;;
	tx_null)
		[ "${GV[carrier]}" = 0 ] && echo "ok vif disabled (tx_fatal_null=${GV[tx_fatal_null]:-none}) after ${HS[nulls]} RSP_NULL answers" ||
			echo "bad vif still up after ${HS[nulls]} RSP_NULL answers: their ids, grants and skbs held" ;;
	rx_ref)
		[ "${HS[rx_sent]:-0}" -gt 0 ] || { echo "bad the backend found no 3 RX buffers posted to answer"; return; }
		[ "${GV[carrier]}" = 0 ] && [ "${GV[rx_fatal_bad_ref]:-0}" -ge 1 ] &&
			echo "ok vif disabled on a reference it never asked for (rx_fatal_bad_ref=${GV[rx_fatal_bad_ref]})" ||
			echo "bad a reference it never asked for left the vif up (carrier ${GV[carrier]}, rx_fatal_bad_ref=${GV[rx_fatal_bad_ref]:-none})" ;;
	esac
}

blk_make_disks
# no real backend may take the vbd or the vif
hostile_backend "backend=1 netback=1" g1 xen-blkback xfab_blkback xen-netback xfab_netback

# g1_boot BLKFRONT NETFRONT KARGS: a fresh g1 with those frontends
g1_boot() {
	domu_start g1 --novif --mods "$1,$2" \
		--kargs "$3 xfab_blkfront.ro_grants=$RO_GRANTS xfab_blkfront.ro_idle_ms=100"
}

g1_gone() {
	domu_destroy g1 >/dev/null
	wait_for 30 sh -c "! xl list g1" || fail "g1 still there after destroy"
}

# hostile_back_case FE CASE: a vbd case against FE, its verdict recorded
hostile_back_case() {
	hostile_back $1 $2
	hostile_record $1 $2 "$(hostile_back_judge $2)"
}

# hostile_netback_case FE CASE: the same for a vif case
hostile_netback_case() {
	hostile_netback $1 $2
	hostile_record $1 $2 "$(hostile_netback_judge $2)"
	figure "hostile.$1.$2.mark_slots" "${HS[mark_slots]}"
}

# check: the xfab frontends only; check-full: the stock pair as well
PAIRS="xfab_blkfront:xfab_netfront"
[ -n "$HOSTILE_FULL" ] && PAIRS="xen-blkfront:xen-netfront $PAIRS"
for pair in $PAIRS; do
	bfe=${pair%:*} nfe=${pair#*:}
	# Debian zeroes every page it allocates (init_on_alloc); appliance
	# kernels may not, and then a frontend must zero what it grants
	g1_boot $bfe $nfe init_on_alloc=0
	domu_must g1 120 "$CHURN" >/dev/null || exit $?
	hostile_back_case $bfe stale_read
	[ $bfe = xfab_blkfront ] && hostile_back_case $bfe ro_keep
	hostile_netback_case $nfe tx_peek
	hostile_netback_case $nfe tx_null
	hostile_netback_case $nfe rx_ref
	g1_gone
	[ -n "$HOSTILE_FULL" ] || continue
	# a page freed is zeroed at once: what ring_keep watches for
	g1_boot $bfe $nfe init_on_free=1
	hostile_back_case $bfe ring_keep
	g1_gone
done
must rmmod xfab_hostile
hostile_backend_done
hostile_table xen-blkfront xfab_blkfront stale_read ro_keep $(hostile_cases ring_keep "")
hostile_table xen-netfront xfab_netfront tx_peek tx_null rx_ref
off=$(hostile_stock_off)
[ -z "$bad" ] || fail "xfab frontends:$bad${off:+; $off}"
[ -z "$off" ] || fail "$off"
pass "hostile backends: xfab_blkfront showed the backend no old data ($(hostile_cases "stale_read, ring_keep" stale_read)) and kept no more grants than its bound while they were mapped; xfab_netfront showed it only what it sent and disabled the vif on RSP_NULL data answers and on a reference it never asked for; stock: ${TABLE[xen-blkfront.stale_read]:-not run}, ${TABLE[xen-netfront.tx_peek]:-not run}"
