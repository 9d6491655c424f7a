#!/bin/bash
# 052 hostile blkback against both block frontends
# Objective: a backend that reads all a frontend grants it and maps what
#   it should not (tests/hostile, xfab_hostile backend=1, in place of
#   blkback) must get nothing from the frontend but what the guest put
#   there on purpose, in the same boot for xen-blkfront and
#   xfab_blkfront (one domU each):
#   stale_read: the guest fills and frees 64 MiB (its free pages then
#     hold old data), then reads 16 MiB with O_DIRECT; the backend
#     answers every read OKAY without data after copying out each
#     granted segment and counting the bytes that are not zero (issue 20
#     defect 2, XSA-403 class: pool pages granted unzeroed);
#   ring_keep: at detach the backend keeps the ring page mapped for 7 s
#     while the guest churns its memory, and compares it with what it
#     held: a change means the frontend freed and reused a page the
#     backend still maps (defect 3, XSA-396 class).
#   xfab_blkfront must pass both; xen-blkfront is recorded (it frees its
#   rings only when its device goes, after the backend closed: ring_keep
#   cannot see that). ring_keep runs in check-full only (HOSTILE_FULL):
#   against the drivers of 88724db it has not yet caught the page being
#   reused within its 7 s (4 runs), so it has not shown it can fail. The domU runs with init_on_alloc=0: Debian's
#   kernel zeroes every allocation by default, which hides defect 2.
# Topology: dom0 (xfab_hostile as the vbd backend; brd /dev/ram0 named by
#   the toolstack, never touched) <-> domU b1 (the frontend under test,
#   no network), xvdb attached per case.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CHURN="dd if=/dev/urandom of=/tmp/churn bs=1M count=64 2>/dev/null; rm /tmp/churn"
# ring_keep: two processes that fork and exec for about 10 s: page
# tables and kernel stacks are unmovable kernel allocations, the kind a
# freed ring page goes back to, so such a page is taken again at once
# while the backend watches (filling tmpfs would not: its pages are
# movable and come from other free lists)
CHURN2="for j in 1 2; do (i=0; while [ \$i -lt 800 ]; do dd if=/dev/zero of=/dev/null count=1 2>/dev/null; i=\$((i + 1)); done) & done"

# hostile_back FE CASE: one attach of xvdb to b1 with the backend running
# CASE; the report (written when the frontend has closed) in HS.
hostile_back() {
	local fe=$1 c=$2 rep kv
	echo "$c" >/sys/module/xfab_hostile/parameters/vbdback_case
	must timeout 60 xl block-attach b1 'phy:/dev/ram0,xvdb,w' >/dev/null
	domu_must b1 60 "i=0; until [ -b /dev/xvdb ] || [ \$i -ge 120 ]; do sleep 0.5; i=\$((i + 1)); done
		dd if=/dev/xvdb of=/dev/null bs=64k count=256 iflag=direct 2>&1 | tail -n 1" || exit $?
	# ring_keep: the guest reuses its free pages while the backend watches
	[ "$c" = ring_keep ] && { domu_must b1 10 "($CHURN2) >/dev/null 2>&1" >/dev/null || exit $?; }
	timeout 90 xl block-detach b1 xvdb >/dev/null 2>&1 || fail "$fe $c: block-detach did not finish"
	wait_for 20 grep -q "case=$c " /sys/module/xfab_hostile/parameters/report ||
		fail "$fe $c: no report from the hostile backend"
	rep=$(cat /sys/module/xfab_hostile/parameters/report)
	log "$fe $c: $rep"
	HS=()
	for kv in $rep; do HS[${kv%%=*}]=${kv#*=}; done
	[ "${HS[reads]:-0}" -gt 0 ] || fail "$fe $c: the hostile backend served no reads ($rep)"
}

# hostile_back_judge CASE: "ok ..." or "bad ..." from HS.
hostile_back_judge() {
	case $1 in
	stale_read)
		[ "${HS[stale_segs]}" = 0 ] && echo "ok segs=${HS[segs]} stale_segs=0" ||
			echo "bad ${HS[stale_segs]} of ${HS[segs]} segments showed ${HS[stale_bytes]} old bytes" ;;
	ring_keep)
		[ "${HS[changed]}" = 0 ] && echo "ok ring page unchanged while held (7 s)" ||
			echo "bad ring page reused while mapped (${HS[changed]} of 14 looks, up to ${HS[changed_bytes]} bytes)" ;;
	esac
}

blk_make_disks
# neither real backend may take the vbd
echo "blacklist xen_blkback" >/etc/modprobe.d/xfab-test-xen-blkback.conf
modprobe -r xen-blkback 2>/dev/null
lsmod | grep -q '^xfab_blkback ' && must rmmod xfab_blkback
lsmod | grep -q '^xen_blkback ' && error "xen-blkback would not unload"
must insmod "$XFAB/modules/xfab_hostile.ko" backend=1

# check: xfab_blkfront only; check-full: the stock frontend as well
FRONTENDS=xfab_blkfront
[ -n "$HOSTILE_FULL" ] && FRONTENDS="xen-blkfront xfab_blkfront"
for fe in $FRONTENDS; do
	# Debian zeroes every page it allocates (init_on_alloc); appliance
	# kernels may not, and then a frontend must zero what it grants
	domu_start b1 --novif --mods "$fe" --kargs init_on_alloc=0
	domu_must b1 120 "$CHURN" >/dev/null || exit $?
	for c in $(hostile_cases "stale_read ring_keep" stale_read); do
		hostile_back $fe $c
		hostile_record $fe $c "$(hostile_back_judge $c)"
	done
	domu_destroy b1 >/dev/null
	wait_for 30 sh -c "! xl list b1" || fail "b1 still there after destroy"
done
must rmmod xfab_hostile
rm -f /etc/modprobe.d/xfab-test-xen-blkback.conf
hostile_table xen-blkfront xfab_blkfront $(hostile_cases "stale_read ring_keep" stale_read)
[ -z "$bad" ] || fail "xfab_blkfront:$bad"
pass "hostile blkback: xfab_blkfront showed the backend no old data ($(hostile_cases "stale_read, ring_keep" stale_read)); xen-blkfront: ${TABLE[xen-blkfront.stale_read]:-not run}"
