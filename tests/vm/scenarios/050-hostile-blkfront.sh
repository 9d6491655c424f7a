#!/bin/bash
# 050 hostile blkfront against both block backends
# Objective: a frontend that breaks blkif on purpose (tests/hostile,
#   xfab_hostile) must not hang, crash or starve the backend, in the
#   same boot for xen-blkback and xfab_blkback: one block-attach per case
#   (valid reads as the control, a flood of refused requests, grant refs
#   nobody granted, a sector range that wraps, 255 direct segments, a
#   producer index 4 rings ahead, an event storm with nothing posted),
#   then valid reads again (the backend still takes new devices). After
#   each: the detach completes through xenwatch, the backend device is
#   gone and xfab_blkback holds nothing. xfab_blkback must also answer as
#   a defended backend does, each case with the counter that says why;
#   the stock column is recorded from the same boot. Control: with
#   refuse_rate=0 the refusal bound must catch xfab_blkback (the check
#   can fail: issue 20 defect 1 measured 35,000 refusals/s before).
#   Kept read-only mappings (ro_writes: a frontend announcing relaxed
#   trust writes from 2048 read-only pages, issue 20 defect 8): with
#   ro_grants_per_disk=256 xfab_blkback must refuse to keep more (the
#   writes still OKAY, ro_budget counted); with a cache of 8 slots an
#   11-page write finds them all pinned and must map read-only for that
#   request, not writable (which Xen refuses for a read-only grant).
#   close_inflight: a ring's worth of reads on a disk that holds each for
#   12 s (dm-delay over the RAM disk), detached at once: the detach must
#   finish in 5 s, not wait in xenwatch for the disk (every PV device of
#   dom0 waits with it); xfab_blkback finishes those rings in the
#   background (draining 1 in debugfs), then holds nothing.
#   state_flip: the frontend's state key through every state, in no
#   protocol order, every 20 ms for secs, with reads in flight: the
#   backend may connect and disconnect as it likes, but must survive,
#   let the device go at detach and hold nothing.
#   make check runs refuse_flood, prod_jump, ro_writes, close_inflight,
#   state_flip and valid (and the control and both bounds) against xfab_blkback
#   only; check-full every case against both (HOSTILE_FULL).
# Topology: dom0 (the backend; brd /dev/ram0, and xfab-slow, dm-delay
#   over it) <-> domU h1 (xfab_hostile only, no other frontend, no
#   network), xvdb attached per case.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CASES=$(hostile_cases "valid refuse_flood bad_gref sector_wrap too_many_segs prod_jump kick_storm ro_writes close_inflight state_flip valid" \
	"refuse_flood prod_jump ro_writes close_inflight state_flip valid")

BACKENDS=xfab_blkback
[ -n "$HOSTILE_FULL" ] && BACKENDS="xen-blkback xfab_blkback"

blk_make_disks
hostile_slow_disk
domu_start h1 --novif --mods xfab_hostile
for be in $BACKENDS; do
	blk_use_backend $be
	for c in $CASES; do
		HS_DISK=/dev/ram0
		[ $c = close_inflight ] && HS_DISK=/dev/mapper/xfab-slow
		hostile_vbd $be $c
		hostile_record $be $c "$(hostile_judge $be $c)"
		figure "hostile.$be.$c.answered" "${HS[answered]}"
		figure "hostile.$be.$c.ms" "${HS[ms]}"
		[ $c = close_inflight ] && figure "hostile.$be.$c.detach_ms" "${HB[detach_ms]}"
	done
done
HS_DISK=/dev/ram0
hostile_slow_disk_done

# The control: an unthrottled xfab_blkback must break the bound.
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
echo 256 >/sys/module/xfab_blkback/parameters/ro_grants_per_disk
ro_case "ro_grants_per_disk=256" ro_budget
echo 8192 >/sys/module/xfab_blkback/parameters/ro_grants_per_disk
must rmmod xfab_blkback
must insmod "$XFAB/modules/xfab_blkback.ko" ro_grants=8
ro_case "ro_grants=8 (every slot pinned)" ro_full
must rmmod xfab_blkback
load_backend xfab_blkback

hostile_table xen-blkback xfab_blkback $CASES ro_writes_ro_budget ro_writes_ro_full
domu_destroy h1 >/dev/null
[ -z "$bad" ] || fail "xfab_blkback:$bad"
pass "hostile blkfront: $(echo $CASES | wc -w) cases x $(echo $BACKENDS | wc -w) backend(s) survived; xfab_blkback answered each as defended, control caught"
