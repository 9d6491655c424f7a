#!/bin/bash
# 051 hostile netfront against both network backends
# Objective: a frontend that breaks netif on purpose (tests/hostile,
#   xfab_hostile) must not hang, crash or starve the backend, in the
#   same boot for xen-netback and xfab_netback: one network-attach per
#   case (valid frames as the control, no RX buffers while dom0 floods
#   the bridge with broadcasts, grant refs nobody granted, an empty
#   second slot, a slot past its page, a 20-slot chain, a TX producer
#   index 4 rings ahead, an event storm, the frontend's state key flipped
#   through every state every 20 ms), then valid frames again (the
#   backend still takes new vifs). After each: the detach completes
#   through xenwatch, the vif is gone and xfab_netback holds nothing.
#   xfab_netback must also answer as a defended backend does, each case
#   with the counter that says why (no_rx: its backlog dropped on a
#   stall although the queue never stopped, issue 20 defect 9); the
#   stock column is recorded from the same boot.
# Topology: dom0 (the backend; bridge xenbr0 10.0.0.1/24) <-> domU h1
#   (xfab_hostile only, no other frontend), one vif attached per case.
#   make check runs no_rx, tx_prod_jump, state_flip and valid against
#   xfab_netback only (rx_stall_secs 3); check-full every case against
#   both (HOSTILE_FULL).
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CASES=$(hostile_cases "valid no_rx tx_bad_gref tx_zero_frag tx_cross_page tx_slot_flood tx_prod_jump kick_storm state_flip valid" \
	"no_rx tx_prod_jump state_flip valid")
# check: xfab_netback only, its stall timer shortened (the stock one,
# rx_drain_timeout_msecs, is fixed at load); check-full: both, defaults
BACKENDS="xfab_netback"
[ -n "$HOSTILE_FULL" ] && BACKENDS="xen-netback xfab_netback"

domu_start h1 --novif --mods xfab_hostile
for be in $BACKENDS; do
	net_use_backend $be
	if [ -z "$HOSTILE_FULL" ]; then
		echo 3 >/sys/module/xfab_netback/parameters/rx_stall_secs
		HV_SECS=8
	fi
	for c in $CASES; do
		hostile_vif $be $c
		hostile_record $be $c "$(hostile_vjudge $be $c)"
		figure "hostile.$be.$c.answered" "${HS[answered]}"
		[ $c = no_rx ] && figure "hostile.$be.no_rx.rx_after" "${HS[rx_after]}" &&
			figure "hostile.$be.no_rx.dom0_sent" "${HB[dom0_sent]}"
	done
done

hostile_table xen-netback xfab_netback $CASES
echo 10 >/sys/module/xfab_netback/parameters/rx_stall_secs
domu_destroy h1 >/dev/null
[ -z "$bad" ] || fail "xfab_netback:$bad"
pass "hostile netfront: $(echo $CASES | wc -w) cases x $(echo $BACKENDS | wc -w) backend(s) survived; xfab_netback answered each as defended"
