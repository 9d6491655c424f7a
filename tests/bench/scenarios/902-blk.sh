#!/bin/bash
# 902 block benchmark, stock pairs vs xfab pairs (copy, and in place)
# Objective: the raw figures of `make bench` for the block drivers, on a
#   dom0 RAM disk lent to the domU: fio sequential write and read (1 MiB,
#   iodepth 4; with BENCH_MORE also iodepth 1: one request at a time, as
#   IOZone issues them), fio 4 KiB random read at iodepth 32 (IOPS), and
#   IOZone (O_DIRECT) on ext4 on that disk at each record size of
#   BLK_RECORDS (KiB, default 1024); the same fio and IOZone on a RAM
#   disk inside the domU are the "monolithic" reference (rounds 1, 4,
#   7, ...: bench_ref_round).
#   Every round runs every set of BLK_SETS, in an order rotated each
#   round. Default sets: stockbig (xen-blkfront with
#   max_indirect_segments=256: 1 MiB requests, as xfab sends, where
#   stock's default is 128 KiB), xfab (the xfab pair, default trust:
#   writes copied through the frontend's pool) and xfabro (the xfab pair
#   with xfab-trust=relaxed: writes read in place). More sets, run only
#   when BLK_SETS names them: stock (xen-blkfront/xen-blkback as they
#   come), stocksafe (xen-blkfront with trusted=0: it copies through
#   pages of its own), xfabsp (xfab_blkfront.split_kb=256: lone large
#   requests in parts) and xfabnp (xfab_blkback.poll_us=0: no in-ring
#   polling). Cost counters around
#   every run (requests from the domU's diskstats, grant map/unmap
#   hypercalls and notifications from the xfab counters, interrupts and
#   /proc/stat ticks both sides). Fails only if a workload does not run
#   or a set's setting did not reach its driver.
# Topology: dom0 (the set's backend; brd /dev/ram0, BLK_SIZE_MB) <->
#   domU d1 (the set's frontend, 2 vCPUs, 768 MiB, no network), disk xvdb.
#   d1 is booted once; each set's turn gives it a fresh RAM disk and the
#   set's drivers (blk_swap).
. /xfab/guest/lib.sh
. /xfab/guest/bench.sh
. /xfab/guest/blk.sh
DIAG=blk_diag
BLK_SIZE_MB=320
BLK_SETS=${BLK_SETS:-$BENCH_BLK_DEFAULT}
# BLK_POLL_US: xfab_blkback's poll_us for every xfab set of this run
# (xfabnp: 0 regardless); BLK_FE_KARGS: parameters of every set's
# frontend, written as kernel arguments, e.g.
# "xfab_blkfront.max_indirect_segments=256" (experiments; the words of
# other modules are left out)
why=$(bench_check_sets blk "$BLK_SETS") || fail "BLK_SETS: $why"
H=$(blk_handle xvdb)

# Shell text for the domU: requests and sectors completed on xvdb, blkif
# interrupts, and xfab_blkfront's kicks and bytes copied ("-" for
# xen-blkfront). Sectors, because the drivers size requests differently
# (xen-blkfront 128 KiB, xfab 1 MiB or more): per request is not per byte.
DOMU_BLK="awk '\$3 == \"xvdb\" { print \"@reqs\", \$4 + \$8; print \"@sectors\", \$6 + \$10 }' /proc/diskstats;
awk '\$NF ~ /^(blkif|xvdb-q)/ { for (i = 2; i < NF; i++) if (\$i ~ /^[0-9]+\$/) s += \$i } END { print \"@irqs\", s + 0 }' /proc/interrupts;
d=/sys/bus/xen/devices/vbd-$H/statistics;
if [ -d \$d ]; then echo @fekicks \$(cat \$d/kicks); echo @copied \$(cat \$d/bytes_copied);
else echo @fekicks -; echo @copied -; fi"

# blk_snap ID: dom0's side for domain ID's xvdb: backend interrupts and
# xfab_blkback's map and unmap hypercalls, kicks and in-ring polls ("-"
# for stock), read with the shell's own read (twice a run; a cat each
# cost 0.1-0.2 s under TCG). CPU time: both domains' /proc/stat ticks
# (bench.sh's stat_snap and DOMU_STAT).
BLK_BE_COUNTERS="map_calls unmap_calls kicks polls"
blk_snap() {
	local d c v vals=""
	d=$(blk_sysdir "$1" xvdb)/statistics
	for c in $BLK_BE_COUNTERS; do
		v=-
		[ -e "$d/$c" ] && read -r v <"$d/$c"
		vals="$vals $v"
	done
	echo "$(irq_count '^(blkif-backend|xfab-blk)')$vals"
}

# blk_measure SET REP WL CMD: CMD in d1 with the counters around it, dom0's
# ticks read closest to the run (see bench_measure).
blk_measure() {
	local set=$1 rep=$2 wl=$3 cmd=$4 a b s0 s1 out fl id
	local snap="$DOMU_BLK; $DOMU_STAT"
	id=$(bench_id d1) || error "domain d1 is gone"
	# the profiled round: perf around the run in both domains (bench.sh)
	prof_begin "$rep"
	a=$(blk_snap "$id")
	s0=$(stat_snap)
	# CMD in a subshell: IOZone's ends in exit (it unmounts first), which
	# skipped the snapshot after it and so every IOZone cost
	out=$(domu_must "$id" $((BENCH_SECS + 120)) "$PROF_PRE $snap; ($cmd); rc=\$?; $PROF_POST $snap; exit \$rc") || exit $?
	s1=$(stat_snap)
	prof_end "$set" "$rep" "$wl" "$id"
	b=$(blk_snap "$id")
	cost_rec "$set" "$rep" "$wl" "irq_dom0 map_calls unmap_calls be_kicks polls $(stat_names dom0)" "$a $s0" "$b $s1"
	fl=$(domu_first_last "$out" "@reqs @sectors @irqs @fekicks @copied @stat")
	cost_rec "$set" "$rep" "$wl" "reqs sectors irq_domu fe_kicks copied $(stat_names domu)" \
		"${fl%%$'\n'*}" "${fl#*$'\n'}"
	echo "$out" | grep -v '^@' || true
}

# fio on DEV in d1; records the field F of the terse line as METRIC.
# terse v3: 7 read KiB/s, 8 read IOPS, 48 write KiB/s, 49 write IOPS.
fio_run() {
	local set=$1 rep=$2 wl=$3 dev=$4 args=$5 field=$6 metric=$7 scale=$8 out v
	out=$(blk_measure "$set" "$rep" "$wl" "fio --name=$wl --filename=/dev/$dev --direct=1 \
		--ioengine=libaio --time_based --runtime=$BENCH_SECS --size=128M $args --minimal") || exit $?
	v=$(echo "$out" | awk -F';' -v f="$field" -v s="$scale" '$1 == 3 { printf "%.1f", $f / s; exit }')
	[ -n "$v" ] || fail "$set rep $rep $wl: no fio result: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	log "$set/$rep $wl: $v $metric"
	rec "$set" "$rep" "$wl" "$metric" "$v"
}

# IOZone write and read (O_DIRECT) on ext4 on DEV, made fresh, at each
# record size of BLK_RECORDS (KiB): workloads iozone_write_<R>K and
# iozone_read_<R>K, KB/s -> MiB/s. The file is 256 records, at least
# 16 MiB and at most 256 MiB: each phase lasts seconds at every size,
# not a fraction of one, and 4 KiB records under TCG not minutes.
iozone_run() {
	local set=$1 rep=$2 dev=$3 r kb out w rd
	for r in ${BLK_RECORDS:-1024}; do
		kb=$((r * 256))
		[ $kb -lt 16384 ] && kb=16384
		[ $kb -gt 262144 ] && kb=262144
		out=$(blk_measure "$set" "$rep" "iozone_${r}K" "mkfs.ext4 -q -F /dev/$dev && mount /dev/$dev /mnt &&
			iozone -I -i 0 -i 1 -r $r -s $kb -f /mnt/iozone.tmp; rc=\$?; umount /mnt; exit \$rc") || exit $?
		read -r w rd <<<"$(echo "$out" | awk -v s="$kb" -v r="$r" '$1 == s && $2 == r && NF >= 6 { print $3, $5; exit }')"
		[ -n "$rd" ] || fail "$set rep $rep iozone ${r}K: no result line: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
		log "$set/$rep iozone ${r}K records: write $w KB/s, read $rd KB/s"
		rec "$set" "$rep" "iozone_write_${r}K" mib_s "$(awk -v x="$w" 'BEGIN { printf "%.1f", x / 1024 }')"
		rec "$set" "$rep" "iozone_read_${r}K" mib_s "$(awk -v x="$rd" 'BEGIN { printf "%.1f", x / 1024 }')"
	done
}

# The workloads on DEV as SET (ref: the domU's own RAM disk).
blk_workloads() {
	local set=$1 rep=$2 dev=$3
	fio_run "$set" "$rep" seq_write_1m "$dev" "--rw=write --bs=1m --iodepth=4" 48 mib_s 1024
	fio_run "$set" "$rep" seq_read_1m "$dev" "--rw=read --bs=1m --iodepth=4" 7 mib_s 1024
	if bench_more; then
		fio_run "$set" "$rep" seq_write_1m_qd1 "$dev" "--rw=write --bs=1m --iodepth=1" 48 mib_s 1024
		fio_run "$set" "$rep" seq_read_1m_qd1 "$dev" "--rw=read --bs=1m --iodepth=1" 7 mib_s 1024
	fi
	fio_run "$set" "$rep" randread_4k_qd32 "$dev" "--rw=randread --bs=4k --iodepth=32" 8 iops 1
	iozone_run "$set" "$rep" "$dev"
}

# xfab_blkback's poll_us for SET: xfabnp none, the others BLK_POLL_US or
# the module's default. A ring takes it when it connects.
blk_set_poll() {
	local set=$1 us=${BLK_POLL_US:-$BLK_POLL_DEFAULT}
	[ "$set" = xfabnp ] && us=0
	echo "$us" >/sys/module/xfab_blkback/parameters/poll_us ||
		fail "$set: xfab_blkback refused poll_us=$us"
}

# blk_prep: xfab_blkback's poll_us for the set of this turn (blk_swap's
# PREP).
blk_prep() {
	: "${BLK_POLL_DEFAULT:=$(cat /sys/module/xfab_blkback/parameters/poll_us)}"
	blk_set_poll "$BLK_SET"
}

bench_blk_set() {
	local set=$1 rep=$2 fe be got prep=""
	fe=$(bench_blk_frontend "$set")
	be=$(bench_blk_backend "$set")
	BLK_RELAXED=""
	[ "$set" = xfabro ] && BLK_RELAXED=xvdb
	BLK_SET=$set
	[ "$be" = xfab_blkback ] && prep=blk_prep
	blk_swap d1 "$fe" "$be" "$prep" $(bench_mod_params "$fe" ${BLK_FE_KARGS:-} $(bench_blk_kargs "$set"))
	got=$(blk_driver_front d1 xvdb)
	[ "$got" = "${fe//-/_}" ] || fail "$set: d1's xvdb is driven by '$got', not $fe"
	if [ "$set" = xfabro ]; then
		[ "$(blk_fstat d1 xvdb write_mode)" = in-place ] || fail "xfabro: xvdb writes are not in place"
	fi
	bench_check_param d1 "$set" stockbig xen_blkfront max_indirect_segments 256
	bench_check_param d1 "$set" stocksafe xen_blkfront trusted N
	if [ "$set" = xfabsp ]; then
		got=$(domu_must d1 10 "cat /sys/module/xfab_blkfront/parameters/split_kb") || exit $?
		[ "$got" = 256 ] || fail "xfabsp: d1's split_kb is '$got', not 256"
	fi
	blk_workloads "$set" "$rep" xvdb
	if [ "$set" = xfabnp ]; then
		got=$(blk_stat d1 xvdb polls)
		[ "$got" = 0 ] || fail "xfabnp: xfab_blkback polled $got times with poll_us=0"
	fi
	if [ "$set" = "${BLK_SETS%% *}" ] && bench_ref_round "$rep"; then
		domu_must d1 30 "/usr/sbin/modprobe brd rd_nr=1 rd_size=$((BLK_SIZE_MB * 1024))" >/dev/null || exit $?
		blk_workloads ref "$rep" ram0
		# its memory back for the sets after it
		domu_must d1 30 "rmmod brd" >/dev/null || exit $?
	fi
}

log "block bench: $BENCH_REPEATS rounds of '$BLK_SETS', ${BENCH_SECS}s fio runs"
# ext4 for IOZone's filesystem: d1's init loads it only with a block
# frontend on its command line
domu_start d1 --mods "" --novif --vcpus 2 --mem 768
bench_ids d1
domu_load d1 ext4
bench_rounds "$BLK_SETS" bench_blk_set
domu_destroy d1 >/dev/null
blk_nothing_left
pass "block benchmark: $BENCH_REPEATS rounds of $BLK_SETS"
