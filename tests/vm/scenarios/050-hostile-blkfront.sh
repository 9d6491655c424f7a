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
# Topology: dom0 (the backend; brd /dev/ram0) <-> domU h1 (xfab_hostile
#   only, no other frontend, no network), xvdb attached per case.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh
. /xfab/guest/hostile.sh

CASES="valid refuse_flood bad_gref sector_wrap too_many_segs prod_jump kick_storm valid"
declare -A TABLE
bad=""

blk_make_disks
domu_start h1 --novif --mods xfab_hostile
for be in xen-blkback xfab_blkback; do
	blk_use_backend $be
	for c in $CASES; do
		hostile_vbd $be $c
		v=$(hostile_judge $be $c)
		log "$be $c: $v"
		TABLE[$be.$c]=$v
		figure "hostile.$be.$c.answered" "${HS[answered]}"
		figure "hostile.$be.$c.ms" "${HS[ms]}"
		[ $be = xfab_blkback ] && [ "${v%% *}" != ok ] && bad="$bad $c:${v#bad}"
	done
done

# The control: an unthrottled xfab_blkback must break the bound.
echo 0 >/sys/module/xfab_blkback/parameters/refuse_rate
hostile_vbd xfab_blkback refuse_flood
ctl=$(hostile_judge xfab_blkback refuse_flood)
echo 100 >/sys/module/xfab_blkback/parameters/refuse_rate
log "control (refuse_rate=0): $ctl"
figure hostile.control.refuse_rate0.answered "${HS[answered]}"
case $ctl in
bad*) ;;
*) fail "control: refuse_rate=0 stayed within the bound (${HS[answered]} in ${HS[ms]} ms): the flood case does not measure" ;;
esac

log "| case | xen-blkback | xfab_blkback |"
log "|---|---|---|"
for c in $(echo $CASES | tr ' ' '\n' | awk '!seen[$0]++'); do
	log "| $c | ${TABLE[xen-blkback.$c]} | ${TABLE[xfab_blkback.$c]} |"
done
domu_destroy h1 >/dev/null
[ -z "$bad" ] || fail "xfab_blkback:$bad"
pass "hostile blkfront: $(echo $CASES | wc -w) cases x 2 backends survived; xfab_blkback answered each as defended, control caught"
