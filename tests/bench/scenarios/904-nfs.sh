#!/bin/bash
# 904 the NFS appliance benchmark: a storage guest serves its disk to a
#   client guest over NFS
# Objective: Fido's case study (a network-attached storage appliance
#   across VMs) with each driver set: s puts ext4 on its vbd (a dom0 RAM
#   disk served by the set's block pair) and exports it over NFSv4.2; c
#   mounts it through the set's network pair. In c: IOZone with O_DIRECT
#   (write, rewrite, read, reread, random read, random write) at each
#   record size of NFS_RECORDS (KiB, default 1024) on a file of
#   NFS_FILE_MB (32; --quick 16), and with BENCH_MORE fio sequential
#   write and read of 1 MiB (O_DIRECT, iodepth 4) on a file of the mount.
#   The reference: the same IOZone in s on /srv, its own filesystem on
#   the same disk, no network (workloads nfs_local_*): the report gives
#   NFS's fraction of it per set. Every set of BENCH_SETS, rotated each
#   round as 901 does; the block pair follows the set (stock* the stock
#   pair, stocksafe with xen_blkfront.trusted=0 too; xfab* the xfab pair,
#   xfabro with both devices in relaxed trust, xfabptr likewise with s
#   and c members of one appliance group: c's TX and s's go by
#   pointer). Cost counters (c's vif, c's and dom0's /proc/stat) around
#   every run. Fails only if a workload
#   does not run or a set's setting did not reach its driver.
# Topology: dom0 (the set's backends on xenbr0 and a 320 MiB RAM disk) <->
#   s (the set's netfront 10.0.0.2/24, its blkfront xvdb, nfsd) ; c (the
#   set's netfront 10.0.0.3/24, the NFS client). 2 vCPUs, 512 MiB each,
#   booted once without devices: each set's turn gives them new ones
#   and freshly loaded frontends (blk_swap, bench_net_switch),
#   and s a fresh disk.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/bench.sh
. /xfab/guest/blk.sh
. /xfab/guest/nfs.sh
DIAG=net_diag
BLK_SIZE_MB=320

# IOZone -I on DIR in domain NAME at each record size of NFS_RECORDS,
# recorded as PREFIX_<phase>_<R>K in MiB/s, on a file of NFS_FILE_MB at
# every record size (32; --quick 16): over NFS under TCG a phase moves
# 5-10 MiB/s, so 902's 256 records (256 MiB at 1 MiB) would take minutes
# a phase, and the file and fio's must fit s's disk.
nfs_iozone() {
	local set=$1 rep=$2 name=$3 dir=$4 prefix=$5 r kb=$((${NFS_FILE_MB:-32} * 1024)) out vals ph i
	for r in ${NFS_RECORDS:-1024}; do
		out=$(MEASURE_TMO=1200 bench_measure "$set" "$rep" "${prefix}_iozone_${r}K" "$name" \
			"iozone -I -i 0 -i 1 -i 2 -r $r -s $kb -f $dir/iozone.tmp; rc=\$?; rm -f $dir/iozone.tmp; exit \$rc") ||
			exit $?
		# KB reclen write rewrite read reread random-read random-write
		vals=$(echo "$out" | awk -v s="$kb" -v r="$r" '$1 == s && $2 == r && NF >= 8 { print $3, $4, $5, $6, $7, $8; exit }')
		[ -n "$vals" ] || fail "$set rep $rep $prefix iozone ${r}K: no result line: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
		log "$set/$rep $prefix iozone ${r}K (KB/s write rewrite read reread randread randwrite): $vals"
		i=0
		for ph in write rewrite read reread randread randwrite; do
			i=$((i + 1))
			rec "$set" "$rep" "${prefix}_iozone_${ph}_${r}K" mib_s \
				"$(echo "$vals" | awk -v i=$i '{ printf "%.1f", $i / 1024 }')"
		done
	done
}

# fio on a file of the mount in c, recorded as WL in MiB/s (terse v3: 7
# read KiB/s, 48 write KiB/s).
nfs_fio() {
	local set=$1 rep=$2 wl=$3 args=$4 field=$5 out v
	out=$(bench_measure "$set" "$rep" "$wl" c "fio --name=$wl --filename=/mnt/nfs/fio.tmp \
		--direct=1 --ioengine=libaio --time_based --runtime=$BENCH_SECS --size=64M $args --minimal") || exit $?
	v=$(echo "$out" | awk -F';' -v f="$field" '$1 == 3 { printf "%.1f", $f / 1024; exit }')
	[ -n "$v" ] || fail "$set rep $rep $wl: no fio result: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	log "$set/$rep $wl: $v MiB/s"
	rec "$set" "$rep" "$wl" mib_s "$v"
}

# s and c, booted once without devices (bench_net_switch: NAME,IP,MAC)
NFS_DOMUS="s,$NFS_SERVER/24,00:16:3e:00:00:02 c,$NFS_CLIENT/24,00:16:3e:00:00:03"

# nfs_switch SET: the set before it stopped (c unmounts, s stops serving),
# then s gets SET's block pair and a fresh disk, both SET's network pair.
nfs_switch() {
	local set=$1 fe
	if [ -n "$NFS_UP" ]; then
		nfs_umount c
		nfs_unserve s
		NFS_UP=""
	fi
	# xfabro and xfabptr: the vbd in relaxed trust too
	BLK_RELAXED=""
	[ "$set" = xfabro ] || [ "$set" = xfabptr ] && BLK_RELAXED=xvdb
	fe=$(bench_blk_frontend "$set")
	blk_swap s "$fe" "$(bench_blk_backend "$set")" "" $(bench_mod_params "$fe" $(bench_blk_kargs "$set"))
	bench_net_switch "$set" $NFS_DOMUS
}

bench_nfs_set() {
	local set=$1 rep=$2 bfe got
	bfe=$(bench_blk_frontend "$set")
	nfs_switch "$set"
	bench_net_ready "$set" s
	bench_net_ready "$set" c
	got=$(blk_driver_front s xvdb)
	[ "$got" = "${bfe//-/_}" ] || fail "$set: s's xvdb is driven by '$got', not $bfe"
	bench_check_param s "$set" stocksafe xen_blkfront trusted N
	if [ "$set" = xfabro ] || [ "$set" = xfabptr ]; then
		[ "$(blk_fstat s xvdb write_mode)" = in-place ] || fail "$set: s's xvdb writes are not in place"
	fi
	nfs_serve s xvdb
	nfs_mount c
	NFS_UP=1
	bench_null "$set" "$rep" c
	nfs_iozone "$set" "$rep" c /mnt/nfs nfs
	if bench_more; then
		nfs_fio "$set" "$rep" nfs_fio_write_1m "--rw=write --bs=1m --iodepth=4" 48
		nfs_fio "$set" "$rep" nfs_fio_read_1m "--rw=read --bs=1m --iodepth=4" 7
	fi
	nfs_iozone "$set" "$rep" s /srv nfs_local
}

why=$(bench_check_sets net "$BENCH_SETS") || fail "BENCH_SETS: $why"
log "NFS appliance bench: $BENCH_REPEATS rounds of '$BENCH_SETS', records ${NFS_RECORDS:-1024} KiB, ${BENCH_SECS}s fio runs"
# ext4 for s's filesystem: its init loads it only with a block frontend
# on its command line
domu_start s --novif --mods ""
domu_load s ext4
domu_start c --novif --mods ""
bench_ids s c
NFS_UP=""
bench_rounds "$BENCH_SETS" bench_nfs_set
nfs_umount c
for s in c s; do
	domu_destroy "$s" >/dev/null
done
wait_for 30 sh -c "! ls /sys/class/net | grep -q '^vif'" || fail "vifs left after destroying s and c"
blk_nothing_left
pass "NFS appliance benchmark: $BENCH_REPEATS rounds of $BENCH_SETS"
