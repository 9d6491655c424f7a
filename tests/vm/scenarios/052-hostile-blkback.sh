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
#     and compares it with what it held; the guest boots with
#     init_on_free=1, so a page it frees is zeroed at once: a change
#     means the frontend freed a ring page the backend still maps
#     (defect 3, XSA-396 class). Linux has itself kept such a page since
#     its XSA-396 fix (gnttab_end_foreign_access takes a reference while
#     the grant is in use), so this guards against a frontend that frees
#     it behind the grant table's back, and a kernel without that fix.
#   ro_keep (xfab_blkfront only): the backend claims to be xfab_blkback
#     and the disk is put in relaxed trust, so writes name read-only
#     grants the frontend keeps (ro_grants=16, idle after 100 ms); the
#     backend maps every write grant and keeps it mapped. The guest
#     writes 8 rounds of 2 MiB through the page cache 0.3 s apart: a
#     frontend that replaces kept grants still mapped (ending them leaves
#     grant entries and pages on Xen's deferred list) hands out more
#     than its 16 (defect 7).
#   xfab_blkfront must pass all; xen-blkfront is recorded (it frees its
#   rings only when its device goes, after the backend closed: ring_keep
#   cannot see that). ring_keep runs in check-full only (HOSTILE_FULL),
#   in a boot of its own (init_on_free would hide defect 2). The other
#   cases run with init_on_alloc=0: Debian's kernel zeroes every
#   allocation by default, which hides defect 2.
# Topology: dom0 (xfab_hostile as the vbd backend; brd /dev/ram0 named by
#   the toolstack, never touched) <-> domU b1 (the frontend under test,
#   no network), xvdb attached per case.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CHURN="dd if=/dev/urandom of=/tmp/churn bs=1M count=64 2>/dev/null; rm /tmp/churn"

# ro_keep: writes from new page-cache pages, rounds apart by more than
# the frontend's ro_idle_ms (its kept grants turn idle in between)
RO_WRITES="i=0; while [ \$i -lt 8 ]; do dd if=/dev/zero of=/dev/xvdb bs=64k count=32 seek=\$((i * 32)) conv=fsync 2>/dev/null; sleep 0.3; i=\$((i + 1)); done"
RO_GRANTS=16

# blk_attach_relaxed: block-attach xvdb to b1 in relaxed trust: the
# toolstack's key goes in once xl has made the frontend directory (the
# ro_keep backend waits for it before its InitWait).
blk_attach_relaxed() {
	local id dir pid
	id=$(domu_id b1)
	dir=/local/domain/$id/device/vbd/$(blk_handle xvdb)
	timeout 60 xl block-attach b1 'phy:/dev/ram0,xvdb,w' >/dev/null &
	pid=$!
	wait_for 20 xenstore-exists "$dir" || fail "ro_keep: no frontend directory $dir"
	must xenstore-write "$dir/xfab-trust" relaxed
	wait $pid || fail "ro_keep: xl block-attach failed"
}

# hostile_back FE CASE: one attach of xvdb to b1 with the backend running
# CASE; the report (written when the frontend has closed) in HS.
hostile_back() {
	local fe=$1 c=$2 rep0
	rep0=$(cat $HS_REPORT)
	echo "$c" >/sys/module/xfab_hostile/parameters/vbdback_case
	if [ "$c" = ro_keep ]; then
		blk_attach_relaxed
	else
		must timeout 60 xl block-attach b1 'phy:/dev/ram0,xvdb,w' >/dev/null
	fi
	domu_must b1 60 "i=0; until [ -b /dev/xvdb ] || [ \$i -ge 120 ]; do sleep 0.5; i=\$((i + 1)); done
		dd if=/dev/xvdb of=/dev/null bs=64k count=256 iflag=direct 2>&1 | tail -n 1" || exit $?
	if [ "$c" = ro_keep ]; then
		domu_must b1 120 "$RO_WRITES" >/dev/null || exit $?
		GV_GRANTS=$(blk_fstat b1 xvdb grants)
		GV_RO=$(blk_fstat b1 xvdb ro_grants)
		GV_BUSY=$(blk_fstat b1 xvdb ro_busy)
		log "$fe ro_keep guest: pool grants $GV_GRANTS, kept grants made $GV_RO, ro_busy ${GV_BUSY:-none}"
	fi
	timeout 90 xl block-detach b1 xvdb >/dev/null 2>&1 || fail "$fe $c: block-detach did not finish"
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

blk_make_disks
# neither real backend may take the vbd
hostile_backend xen-blkback xfab_blkback backend=1 b1

# check: xfab_blkfront only; check-full: the stock frontend as well
FRONTENDS=xfab_blkfront
[ -n "$HOSTILE_FULL" ] && FRONTENDS="xen-blkfront xfab_blkfront"
# b1_boot FE KARGS: a fresh b1 with the frontend FE
b1_boot() {
	domu_start b1 --novif --mods "$1" \
		--kargs "$2 xfab_blkfront.ro_grants=$RO_GRANTS xfab_blkfront.ro_idle_ms=100"
}

b1_gone() {
	domu_destroy b1 >/dev/null
	wait_for 30 sh -c "! xl list b1" || fail "b1 still there after destroy"
}

# hostile_back_case FE CASE: run CASE against FE and record the verdict
hostile_back_case() {
	hostile_back $1 $2
	hostile_record $1 $2 "$(hostile_back_judge $2)"
}

for fe in $FRONTENDS; do
	# Debian zeroes every page it allocates (init_on_alloc); appliance
	# kernels may not, and then a frontend must zero what it grants
	b1_boot $fe init_on_alloc=0
	domu_must b1 120 "$CHURN" >/dev/null || exit $?
	hostile_back_case $fe stale_read
	[ $fe = xfab_blkfront ] && hostile_back_case $fe ro_keep
	b1_gone
	[ -n "$HOSTILE_FULL" ] || continue
	# a page freed is zeroed at once: what ring_keep watches for
	b1_boot $fe init_on_free=1
	hostile_back_case $fe ring_keep
	b1_gone
done
must rmmod xfab_hostile
hostile_backend_done
hostile_table xen-blkfront xfab_blkfront $(hostile_cases "stale_read ring_keep" stale_read) ro_keep
[ -z "$bad" ] || fail "xfab_blkfront:$bad"
pass "hostile blkback: xfab_blkfront showed the backend no old data ($(hostile_cases "stale_read, ring_keep" stale_read)) and kept no more grants than its bound while they were mapped; xen-blkfront: ${TABLE[xen-blkfront.stale_read]:-not run}"
