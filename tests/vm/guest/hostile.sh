# Hostile-peer helpers (sourced by scenarios 05x after lib.sh and blk.sh;
# bash). The domU h1 runs xfab_hostile (tests/hostile) instead of a
# frontend; each case is one block-attach of dom0's RAM disk to it, the
# case named in the module's vbd_case parameter, then a block-detach.
# The backend under test is whichever blk_use_backend loaded.

HS_SECS=${HS_SECS:-5}
# xfab_blkback's default refuse_rate: the bound every backend is held to
HS_RATE=100
declare -A HS HB

# hostile_vbd BACKEND CASE: run CASE against BACKEND; HS gets the
# hostile frontend's report (run, case, posted, answered, okay, ...), HB
# the backend's statistics as they were before the detach. Fails the
# scenario if the backend did not take the device, did not let it go, or
# kept anything.
hostile_vbd() {
	local be=$1 c=$2 run rep dir f kv lim=$((HS_SECS + 90))
	HS=() HB=()
	rep=$(domu_must h1 20 "cat /sys/module/xfab_hostile/parameters/report") || exit $?
	run=$(($(echo "$rep" | sed -n 's/^run=\([0-9]*\) .*/\1/p') + 1))
	domu_must h1 20 "echo $c >/sys/module/xfab_hostile/parameters/vbd_case &&
		echo $HS_SECS >/sys/module/xfab_hostile/parameters/secs" >/dev/null || exit $?
	log "hostile vbd: $c against $be (run $run)"
	must timeout 60 xl block-attach h1 'phy:/dev/ram0,xvdb,w' >/dev/null
	rep=$(domu_must h1 $((lim + 10)) "i=0; f=/sys/module/xfab_hostile/parameters/report
		until grep -q '^run=$run ' \$f || [ \$i -ge $((lim * 4)) ]; do sleep 0.25; i=\$((i + 1)); done
		cat \$f") || exit $?
	case $rep in
	"run=$run "*) ;;
	*) fail "$c against $be: no report from the hostile frontend in ${lim}s (last: $rep)" ;;
	esac
	log "report: $rep"
	for kv in $rep; do HS[${kv%%=*}]=${kv#*=}; done
	dir=$(blk_sysdir h1 xvdb)
	for f in "$dir"/statistics/*; do
		[ -f "$f" ] && read -r "HB[${f##*/}]" <"$f"
	done
	# xenwatch must still be serving: the detach goes through it
	timeout 90 xl block-detach h1 xvdb >/dev/null 2>&1 ||
		fail "$c against $be: block-detach did not finish (xenwatch or the backend stuck)"
	wait_for 30 sh -c "! test -e $dir" ||
		fail "$c against $be: backend device $dir still there after detach"
	[ "$be" = xfab_blkback ] && blk_nothing_left
	return 0
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
	*) why="no judge for case $c" ;;
	esac
	if [ -n "$why" ]; then echo "bad$why"; else echo "ok $det"; fi
}
