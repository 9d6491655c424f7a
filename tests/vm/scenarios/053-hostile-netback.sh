#!/bin/bash
# 053 hostile netback against both network frontends
# Objective: a netif backend that reads more than it is sent and answers
#   against the protocol (tests/hostile, xfab_hostile netback=1, in place
#   of netback) must get nothing from the frontend but what the guest
#   sent, and must not make it hold resources, in the same boot for
#   xen-netfront and xfab_netfront (one domU each; issue 20 defect 4):
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
#   xen-netfront is recorded (it grants skb pages in place when the
#   toolstack's trusted key is 1, xl's default, and skips RSP_NULL).
# Topology: dom0 (xfab_hostile as the vif backend, no netback loaded;
#   hotplug script hs-vif-hotplug, no bridge) <-> domU n1 (the frontend
#   under test, booted with no vif and init_on_alloc=0), one vif
#   attached per case. make check runs xfab_netfront only; check-full
#   both frontends (HOSTILE_FULL).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

declare -A GV

# hostile_netback FE CASE: one vif on n1 with the backend running CASE;
# GV gets the guest's view, HS the backend's report.
hostile_netback() {
	local fe=$1 c=$2 rep0 kv devid out
	rep0=$(cat $HS_REPORT)
	echo "$c" >/sys/module/xfab_hostile/parameters/vifback_case
	must timeout 60 xl network-attach n1 mac=00:16:3e:00:00:0a \
		script=/xfab/guest/hs-vif-hotplug >/dev/null
	domu_must n1 60 "i=0; until [ -e /sys/class/net/eth0 ] || [ \$i -ge 120 ]; do sleep 0.5; i=\$((i + 1)); done
		ip addr add 10.0.0.2/24 dev eth0 && ip link set eth0 up" >/dev/null || exit $?
	case $c in
	tx_peek) out=$(domu_must n1 120 "xfab-spray eth0 3000 200 1") || exit $? ;;
	tx_null) out=$(domu_must n1 60 "xfab-spray eth0 32 200 0; sleep 2
		echo carrier=\$(cat /sys/class/net/eth0/carrier 2>/dev/null || echo 0)
		ethtool -S eth0 2>/dev/null | awk '\$1 == \"tx_fatal_null:\" { print \"tx_fatal_null=\" \$2 }'") || exit $? ;;
	esac
	log "$fe $c guest: $(echo $out)"
	GV=()
	for kv in $out; do GV[${kv%%=*}]=${kv#*=}; done
	devid=$(xl network-list n1 | awk 'NR > 1 { print $1; exit }')
	timeout 90 xl network-detach n1 "$devid" >/dev/null 2>&1 ||
		fail "$fe $c: network-detach did not finish"
	hostile_back_report $fe $c "$rep0"
	[ "${HS[slots]:-0}" -gt 0 ] || fail "$fe $c: the hostile backend saw no TX slots ($(cat $HS_REPORT))"
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
	esac
}

# neither real backend may take the vif
hostile_backend xen-netback xfab_netback netback=1 n1

CASES="tx_peek tx_null"
FRONTENDS=xfab_netfront
[ -n "$HOSTILE_FULL" ] && FRONTENDS="xen-netfront xfab_netfront"
for fe in $FRONTENDS; do
	# Debian zeroes every allocation (init_on_alloc): freed marker
	# datagrams would not stay in slab objects a packet reuses
	domu_start n1 --novif --mods "$fe" --kargs init_on_alloc=0
	for c in $CASES; do
		hostile_netback $fe $c
		hostile_record $fe $c "$(hostile_netback_judge $c)"
		figure "hostile.$fe.$c.mark_slots" "${HS[mark_slots]}"
	done
	domu_destroy n1 >/dev/null
	wait_for 30 sh -c "! xl list n1" || fail "n1 still there after destroy"
done
must rmmod xfab_hostile
hostile_backend_done
hostile_table xen-netfront xfab_netfront $CASES
[ -z "$bad" ] || fail "xfab_netfront:$bad"
pass "hostile netback: xfab_netfront showed the backend only what it sent and disabled the vif on RSP_NULL data answers; xen-netfront: ${TABLE[xen-netfront.tx_peek]:-not run}"
