# Block pair helpers (sourced by the vbd scenarios after lib.sh; bash).
#
# Disks lent to d1: a dom0 RAM disk (brd, phy:/dev/ram0) as xvdb and a
# file in dom0 as xvdc (xl's block script puts it on a loop device), so
# both a bare block device and a file back the backend.

BLK_FILE=$W/blk-xvdc.img
BLK_SIZE_MB=${BLK_SIZE_MB:-256}

# Make NAME (xen-blkback or xfab_blkback) the only vbd backend in dom0.
blk_use_backend() { use_backend xen-blkback xfab_blkback "$1"; }

# A fresh RAM disk and a fresh sparse file, both BLK_SIZE_MB.
blk_make_disks() {
	rmmod brd 2>/dev/null
	must modprobe brd rd_nr=1 rd_size=$((BLK_SIZE_MB * 1024)) max_part=0
	rm -f "$BLK_FILE"
	must truncate -s "${BLK_SIZE_MB}M" "$BLK_FILE"
}

# The xl disk specs for blk_make_disks' two disks.
BLK_DISKS=(--disk 'phy:/dev/ram0,xvdb,w'
	--disk "format=raw,vdev=xvdc,access=rw,backendtype=phy,target=$BLK_FILE")

# xvdb -> 51728: the vbd handle xl gives a Xen virtual disk name.
blk_handle() {
	local n=${1#xvd}
	echo $((202 * 256 + ($(printf '%d' "'$n") - 97) * 16))
}

# blk_sysdir NAME|ID DEV: the backend's sysfs directory of the domain's
# disk DEV (a domain id, as domu_exec takes, spares an xl call)
blk_sysdir() {
	local id=$1
	case $id in *[!0-9]*) id=$(domu_id "$id") ;; esac
	echo "/sys/bus/xen-backend/devices/vbd-$id-$(blk_handle "$2")"
}

# One statistics counter of the xfab backend of NAME's disk DEV.
blk_stat() {
	cat "$(blk_sysdir "$1" "$2")/statistics/$3" 2>/dev/null || echo 0
}

# Module of the driver bound to NAME's disk DEV, in dom0 and in NAME.
blk_driver_back() {
	basename "$(readlink "$(blk_sysdir "$1" "$2")/driver/module" 2>/dev/null)" 2>/dev/null
}
blk_driver_front() {
	domu_exec "$1" 10 "basename \$(readlink /sys/block/$2/device/driver/module)" 2>/dev/null
}

# Counters of every xfab vbd and what both ends wrote, for a failure.
blk_diag() {
	local d f
	for d in /sys/bus/xen-backend/devices/vbd-*; do
		[ -e "$d" ] || continue
		echo "== $d ($(basename "$(readlink "$d/driver" 2>/dev/null)" 2>/dev/null))"
		for f in "$d"/statistics/*; do
			[ -e "$f" ] && [ "$(cat "$f")" != 0 ] && echo "$(basename "$f") $(cat "$f")"
		done
	done
	xenstore-ls -f /local/domain/0/backend/vbd 2>/dev/null | grep -v '/params\|/physical-device-path'
	grep -E 'xfab-blk|blkif' /proc/interrupts
	dmesg | tail -n 30
	for d in $(xl list | awk 'NR > 2 { print $1 }'); do
		echo "== $d"
		xenstore-ls -f "/local/domain/$(domu_id "$d")/device/vbd" 2>/dev/null
		domu_exec "$d" 20 "grep -E 'blkif|xvd' /proc/interrupts; cat /proc/diskstats | grep xvd; dmesg | tail -n 20"
	done
}

# blk_fio_verify NAME DEV: fio writes and reads back with crc32c over
# 4 KiB, 64 KiB and 1 MiB blocks, random and sequential, iodepth 1 and
# 32, one job after the other; any verify error or I/O error fails.
# make check-full runs all twelve; make check six, every block size
# random at depth 32 and sequential at depth 1, which keeps one request
# of each shape (one segment, direct segments, indirect) both alone on
# the ring and with the ring full, in half the time (the jobs took 50 s
# to 2 min a scenario under TCG; fio's start and its verify pass, not
# the data, are most of it).
# blk_fio_short NAME DEV: one fio job, 32 MiB of 64 KiB random reads and
# writes at depth 16, crc32c-verified: where blk_fio_verify's twelve
# jobs ran already or would say nothing more.
blk_fio_short() {
	domu_must "$1" 300 "fio --name=short --filename=/dev/$2 --direct=1 --ioengine=libaio \
		--rw=randrw --bs=64k --iodepth=16 --size=32M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 >/tmp/fio.out 2>&1 || { tail -n 5 /tmp/fio.out; exit 1; }" >/dev/null || exit $?
}

blk_fio_verify() {
	local name=$1 dev=$2 jobs="" n=0 rw bs qd size out bad what
	for rw in randwrite write; do
		for bs in 4k 64k 1m; do
			for qd in 1 32; do
				if [ -z "${XFAB_FULL:-}" ]; then
					[ $rw = randwrite ] && [ $qd = 1 ] && continue
					[ $rw = write ] && [ $qd = 32 ] && continue
				fi
				size=16M
				[ $bs = 4k ] && size=4M
				jobs="$jobs --name=$rw-$bs-qd$qd --rw=$rw --bs=$bs --iodepth=$qd --size=$size --stonewall"
				n=$((n + 1))
			done
		done
	done
	what="{randwrite,write} x {4k,64k,1m} x iodepth {1,32}"
	[ -z "${XFAB_FULL:-}" ] && what="randwrite x {4k,64k,1m} x iodepth 32, write x {4k,64k,1m} x iodepth 1"
	log "fio verify=crc32c on $name:$dev: $what"
	# terse v3 per job: 3 name, 5 error, 7 read KiB/s, 48 write KiB/s
	out=$(domu_exec "$name" 900 "fio --filename=/dev/$dev --direct=1 --ioengine=libaio \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --minimal $jobs >/tmp/fio.out 2>&1; \
		rc=\$?; awk -F';' '\$1 == 3 { print \"job\", \$3, \$5, \$7, \$48 }' /tmp/fio.out; \
		grep -v '^3;' /tmp/fio.out | tail -n 3; echo fio-rc=\$rc") ||
		fail "fio on $dev did not run: $(echo "$out" | tail -n 3)"
	echo "$out"
	echo "$out" | grep -q '^fio-rc=0$' ||
		fail "fio verify on $dev failed: $(echo "$out" | tail -n 4 | tr '\n' ' ')"
	bad=$(echo "$out" | awk '$1 == "job" && $3 != 0 { print $2 "=" $3 }')
	[ -z "$bad" ] || fail "fio jobs with errors on $dev: $bad"
	[ "$(echo "$out" | grep -c '^job ')" = $n ] ||
		fail "fio on $dev reported $(echo "$out" | grep -c '^job ') of $n jobs"
	echo "$out" | awk -v d="$dev" '$1 == "job" { print "fio_" d "_" $2 "_kib_s", $4 + $5 }' |
		while read -r k v; do figure "$k" "$v"; done
}

# blk_fs_tree NAME DEV: mkfs.ext4, copy the domU's /usr into it, sha256 of
# every file; unmount, e2fsck -fn must find it clean; mount again with
# caches dropped and compare the sums.
blk_fs_tree() {
	local name=$1 dev=$2 out
	log "ext4 on $name:$dev: mkfs, copy /usr, fsck, read back"
	out=$(domu_exec "$name" 900 "set -e; mkfs.ext4 -q -F /dev/$dev; mount -t ext4 /dev/$dev /mnt;
		cp -a /usr /mnt/tree; cd /usr; find . -type f | sort | xargs sha256sum >/tmp/sums.a; cd /;
		umount /mnt; e2fsck -fn /dev/$dev; echo 3 >/proc/sys/vm/drop_caches;
		mount -t ext4 /dev/$dev /mnt; cd /mnt/tree; find . -type f | sort | xargs sha256sum >/tmp/sums.b; cd /;
		umount /mnt; wc -l </tmp/sums.a; cmp /tmp/sums.a /tmp/sums.b && echo tree-equal" 2>&1) ||
		fail "ext4 tree on $dev: $(echo "$out" | tail -n 5)"
	echo "$out" | tail -n 8
	echo "$out" | grep -q '^tree-equal$' || fail "ext4 tree on $dev read back different"
	figure "ext4_tree_files_$dev" "$(echo "$out" | grep -E '^[0-9]+$' | tail -n 1)"
}

# blk_discard NAME DEV: blkdiscard the whole disk; an xfab backend must
# have counted discards (only where it offered the feature).
blk_discard() {
	local name=$1 dev=$2 before after
	before=$(blk_stat "$name" "$dev" discard_req)
	domu_must "$name" 120 "blkdiscard /dev/$dev" >/dev/null || exit $?
	lsmod | grep -q '^xfab_blkback ' || return 0
	after=$(blk_stat "$name" "$dev" discard_req)
	[ "$after" -gt "$before" ] || fail "blkdiscard on $dev: backend discard_req $before -> $after"
	figure "discard_req_$dev" $((after - before))
}

# blk_resize NAME: xvdc's file grows by 64 MiB while NAME runs, as a user
# grows one (truncate, losetup -c). NAME must see the new size within 20
# rounds of a read (a round is 2-3 s under TCG) and fio must verify
# writes to the new tail; an xfab end on either side must count the
# resize.
blk_resize() {
	local name=$1 loop want got=0 i
	loop=$(losetup -j "$BLK_FILE" | cut -d: -f1 | head -n 1)
	[ -n "$loop" ] || error "no loop device backs $BLK_FILE"
	must truncate -s "$((BLK_SIZE_MB + 64))M" "$BLK_FILE"
	must losetup -c "$loop"
	want=$(((BLK_SIZE_MB + 64) * 2048))
	# a read each round: xen-blkback only looks at the size when it
	# has a request to serve
	for i in $(seq 20); do
		got=$(domu_exec "$name" 10 "dd if=/dev/xvdc of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; cat /sys/block/xvdc/size" | tail -n 1)
		[ "$got" = "$want" ] && break
		sleep 0.5
	done
	[ "$got" = "$want" ] || fail "xvdc: $got sectors in $name 20 reads after its file grew, want $want"
	domu_must "$name" 120 "fio --name=tail --filename=/dev/xvdc --direct=1 --ioengine=libaio \
		--rw=write --bs=64k --iodepth=8 --offset=${BLK_SIZE_MB}M --size=64M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 >/tmp/fio.out 2>&1 ||
		{ tail -n 5 /tmp/fio.out; exit 1; }" >/dev/null || exit $?
	if [ "$(blk_driver_back "$name" xvdc)" = xfab_blkback ]; then
		[ "$(blk_stat "$name" xvdc resizes)" = 1 ] ||
			fail "xvdc: xfab_blkback counted $(blk_stat "$name" xvdc resizes) resizes, want 1"
	fi
	if [ "$(blk_driver_front "$name" xvdc)" = xfab_blkfront ]; then
		[ "$(blk_fstat "$name" xvdc resizes)" = 1 ] ||
			fail "xvdc: xfab_blkfront counted $(blk_fstat "$name" xvdc resizes) resizes, want 1"
	fi
	log "xvdc grew to $want sectors: seen by $name, its new tail verified"
}

# The toolstack's trust choice for the disks in BLK_RELAXED (xfab-trust in
# each frontend directory, where the backend's domain cannot write),
# written while the domain is paused: the frontend reads it when it
# connects.
BLK_RELAXED=""
# blk_relaxed DEV: true if the "toolstack" put DEV in relaxed trust.
blk_relaxed() { [[ " $BLK_RELAXED " == *" $1 "* ]]; }
blk_trust_hook() {
	local dev
	for dev in $BLK_RELAXED; do
		xenstore-write "/local/domain/$1/device/vbd/$(blk_handle "$dev")/xfab-trust" relaxed || return 1
	done
}

# blk_swap NAME FE BE PREP [PARAM=VALUE...]: NAME (running, without a
# disk or with the xvdb of an earlier turn) gets frontend FE over backend
# BE and a fresh RAM disk as xvdb: the old one detached and its frontend
# unloaded, dom0's backend switched (then PREP, if not "": settings a
# ring takes when it connects), the disk made again and attached, the
# devices of BLK_RELAXED given relaxed trust, FE loaded with PARAMs. The
# benchmarks' way to change drivers without a boot.
blk_swap() {
	local name=$1 fe=$2 be=$3 prep=$4 id t0=$SECONDS
	shift 4
	id=$(domu_id "$name") || error "domain $name is gone"
	if xenstore-read "/local/domain/$id/device/vbd/$(blk_handle xvdb)/state" >/dev/null 2>&1; then
		must timeout 90 xl block-detach "$name" xvdb
	fi
	domu_must "$name" 30 'for m in xen_blkfront xfab_blkfront; do
		! grep -q "^$m " /proc/modules || rmmod $m || exit 1; done' >/dev/null || exit $?
	blk_nothing_left
	blk_use_backend "$be"
	[ -z "$prep" ] || "$prep"
	blk_make_disks
	must timeout 90 xl block-attach "$name" 'phy:/dev/ram0,xvdb,w'
	blk_trust_hook "$id" || fail "could not relax the trust of $name's xvdb"
	domu_load "$name" "${fe//-/_}" "$@"
	domu_must "$name" 60 'for i in $(seq 120); do [ -b /dev/xvdb ] && exit 0; sleep 0.5; done; exit 1' >/dev/null ||
		fail "no /dev/xvdb in $name 60 s after its $fe loaded"
	log "$name: block drivers $fe / $be swapped in $((SECONDS - t0)) s"
}

# blk_interop FE BE [RELAXED_DEVS]: one cell of the vbd matrix on d1 with
# both disks: drivers bound, the fio matrix on the RAM disk, fio and ext4
# on the file. RELAXED_DEVS get xfab-trust=relaxed from the "toolstack".
# BLK_KARGS: d1's extra kernel arguments (module parameters).
blk_interop() {
	local fe=$1 be=$2 id got dev kargs=()
	DIAG=blk_diag
	BLK_RELAXED=${3:-}
	blk_use_backend "$be"
	blk_make_disks
	[ -n "${BLK_KARGS:-}" ] && kargs=(--kargs "$BLK_KARGS")
	domu_start d1 --mods "$fe" --novif --vcpus 2 --paused-hook blk_trust_hook \
		"${kargs[@]}" "${BLK_DISKS[@]}"
	id=$(domu_id d1)
	xs_features "$id"
	for dev in xvdb xvdc; do
		got=$(blk_driver_back d1 $dev)
		[ "$got" = "${be//-/_}" ] || fail "dom0 vbd of $dev is driven by '$got', not $be"
		got=$(blk_driver_front d1 $dev)
		[ "$got" = "${fe//-/_}" ] || fail "d1 $dev is driven by '$got', not $fe"
	done
	blk_fio_verify d1 xvdb
	# The file-backed disk: the same data paths, a shorter fio, ext4.
	blk_fio_short d1 xvdc
	blk_fs_tree d1 xvdc
	blk_status_check "$fe" "$be" "$id"
}

# blk_status_check FE BE DOMID: what xfabctl status says of both disks
# after blk_interop's I/O: the drivers, xfab or stock, and in relaxed
# trust with xfab at both ends, read-only grants.
blk_status_check() {
	local fe=$1 be=$2 id=$3 dev mode trust
	for dev in xvdb xvdc; do
		mode=stock trust=strict
		[ "$fe" = xfab_blkfront ] && [ "$be" = xfab_blkback ] && mode=xfab
		blk_relaxed $dev && trust=relaxed
		if [ $mode = xfab ] && [ $trust = relaxed ]; then
			set -- ro-grants
		else
			set -- '!ro-grants'
		fi
		status_check "$id" "vbd/$(blk_handle $dev)" "$(status_fe "$fe")" \
			"$be" $mode $trust "$@" 'rd_req>0' 'wr_req>0'
	done
}

# ---- lifecycle ----

# One line of xfab_blkback's totals (devices, rings, grants_mapped,
# ro_kept, draining).
blk_total() { backend_total xfab_blkback "$1"; }

# After the last guest went: the backend holds no device, ring or grant.
blk_nothing_left() {
	lsmod | grep -q '^xfab_blkback ' || return 0
	wait_for 30 sh -c '[ "$(awk '"'"'$2 != 0'"'"' /sys/kernel/debug/xfab_blkback/summary)" = "" ]' ||
		fail "xfab_blkback still holds: $(awk '$2 != 0' /sys/kernel/debug/xfab_blkback/summary | tr '\n' ' ')"
}

# blk_durability NAME DEV BACKING: NAME writes numbered records to DEV,
# each fdatasync'ed before its "ack" goes to the console, and is destroyed
# mid-stream; every record it acknowledged must read back intact from
# BACKING (the dom0 device behind DEV), and the backend must let go of
# everything.
blk_durability() {
	local name=$1 dev=$2 backing=$3 seed=$((RANDOM + 1)) log start last i
	log=/var/log/xen/console/guest-$name.log
	start=$(wc -l <"$log")
	domu_must "$name" 10 "xfab-records write /dev/$dev $seed >/dev/hvc0 2>&1 &" >/dev/null || exit $?
	for i in $(seq 60); do
		[ "$(tail -n +$((start + 1)) "$log" | grep -c 'ack [0-9]')" -ge 300 ] && break
		sleep 0.5
	done
	domu_destroy "$name" >/dev/null
	wait_for 30 sh -c "[ \$(xl list | wc -l) -le 2 ]" || fail "$name still listed 30s after destroy"
	sleep 1		# the console daemon writes what it had
	last=$(tail -n +$((start + 1)) "$log" | grep -o 'ack [0-9]*' | awk '{ print $2 }' | sort -n | tail -n 1)
	[ -n "$last" ] || fail "$name acknowledged no record before it was destroyed"
	figure durability_acked_records $((last + 1))
	out=$(xfab-records check "$backing" "$seed" "$last") ||
		fail "record acknowledged by $name but not on $backing: $out"
	log "durability: $out (acknowledged before destroy)"
	blk_nothing_left
}

# blk_reattach NAME DEV SPEC: block-detach DEV (nothing may use it), wait
# for both ends to let go, block-attach SPEC, wait for DEV in the guest.
blk_reattach() {
	local name=$1 dev=$2 spec=$3 dir
	dir=$(blk_sysdir "$name" "$dev")
	must xl block-detach "$name" "$dev"
	wait_for 30 sh -c "! [ -e $dir ]" || fail "$dir still present 30s after block-detach"
	domu_must "$name" 30 "for i in \$(seq 60); do [ -e /sys/block/$dev ] || exit 0; sleep 0.5; done; exit 1" >/dev/null ||
		fail "$name still has $dev after block-detach"
	must xl block-attach "$name" "$spec"
	domu_must "$name" 30 "for i in \$(seq 60); do [ -e /sys/block/$dev ] && exit 0; sleep 0.5; done; exit 1" >/dev/null ||
		fail "$name has no $dev 30s after block-attach"
	log "block-detach/attach of $dev: back"
}

# blk_fio_bg NAME DEV TAG SIZE: start a 16 KiB random-write fio verify
# of SIZE on DEV in NAME, in the background (its output in /tmp/TAG.fio).
blk_fio_bg() {
	domu_must "$1" 10 "fio --name=$3 --filename=/dev/$2 --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=16k --iodepth=16 --size=$4 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 >/tmp/$3.fio 2>&1; echo fio-rc=\$? >>/tmp/$3.fio &" >/dev/null || exit $?
}

# blk_fio_bg_wait NAME TAG WHAT: wait for blk_fio_bg's fio; it must have
# verified (WHAT names what it ran across, for the failure).
blk_fio_bg_wait() {
	local out
	out=$(domu_exec "$1" 600 "for i in \$(seq 1100); do grep -q fio-rc= /tmp/$2.fio && break; sleep 0.5; done; cat /tmp/$2.fio") ||
		fail "fio across $3: $(echo "$out" | tail -n 3)"
	echo "$out" | tail -n 3
	echo "$out" | grep -q '^fio-rc=0$' || fail "fio verify across $3 failed: $(echo "$out" | tail -n 3)"
}

# blk_save_restore NAME DEV: fio verify runs on DEV across xl save/restore
# and must finish without an error. The disks in BLK_RELAXED get their
# xfab-trust again before the restored domain runs.
blk_save_restore() {
	local name=$1 dev=$2 hook=""
	blk_fio_bg "$name" "$dev" sr 64M
	sleep 4
	must xl save "$name" "$W/$name.save"
	# new device directories: the toolstack sets the trust again
	[ -n "$BLK_RELAXED" ] && hook=blk_trust_hook
	xl_paused "$name" "$hook" restore "$W/$name.save" || fail "writing xfab-trust after restore"
	rm -f "$W/$name.save"
	log "$name restored as domid $(domu_id "$name")"
	blk_fio_bg_wait "$name" sr "save/restore"
	log "save/restore during fio verify: verified"
}

# blk_split NAME DEV: 1 MiB O_DIRECT writes, then their verify reads, at
# iodepth 1 (xfab pair, NAME booted with xfab_blkfront.split_kb=256): each
# lone read, and each write in default trust (not in relaxed: nothing to
# copy), must go out in parts (four ring requests of 256 KiB), and the
# data must verify.
blk_split() {
	local name=$1 dev=$2 c want_s=32 want_w=64 s r w
	declare -A was
	blk_fsnap "$name" "$dev"
	for c in splits rd_req wr_req; do was[$c]=$(blk_f $c); done
	domu_must "$name" 120 "fio --name=split --filename=/dev/$dev --direct=1 --ioengine=libaio \
		--rw=write --bs=1m --iodepth=1 --size=16M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 >/tmp/fio.out 2>&1 || { tail -n 5 /tmp/fio.out; exit 1; }" >/dev/null || exit $?
	blk_fsnap "$name" "$dev"
	s=$(($(blk_f splits) - ${was[splits]}))
	r=$(($(blk_f rd_req) - ${was[rd_req]}))
	w=$(($(blk_f wr_req) - ${was[wr_req]}))
	if blk_relaxed "$dev"; then
		want_s=16
		want_w=16
	fi
	[ "$s" -ge "$want_s" ] || fail "$dev: $s of 32 lone 1 MiB requests went in parts, want $want_s or more"
	[ "$r" -ge 64 ] || fail "$dev: 16 MiB read back at iodepth 1 in $r ring requests, want 64 or more (parts of 256 KiB)"
	[ "$w" = "$want_w" ] || fail "$dev: 16 writes of 1 MiB took $w ring requests, want $want_w"
	log "$dev: lone 1 MiB requests in parts ($s split; $r reads, $w writes on the ring), verified"
}

# One statistics counter of xfab_blkfront for NAME's disk DEV (in NAME).
blk_fstat() {
	domu_exec "$1" 10 "cat /sys/bus/xen/devices/vbd-$(blk_handle "$2")/statistics/$3" 2>/dev/null | tail -n 1
}

# blk_fsnap NAME DEV: all of xfab_blkfront's statistics for NAME's DEV
# (counters and write_mode) in one agent call, into BF; blk_f KEY reads
# them. An agent call costs a second or more under TCG, and checks read
# dozens of counters. The agent keeps the last 1800 bytes of output, so
# the file count comes last: a lost head shows as missing lines. A
# statistic of BF_KEYS missing is the driver's fault: it fails here, in
# the scenario's shell, not in blk_f's command substitution.
declare -gA BF=()
BF_KEYS="rd_req wr_req flush_req discard_req indirect_req bytes_copied grants
	kicks irqs busy io_errors fatal_ring fatal_id fatal_op splits ro_hits
	ro_grants ro_replaced ro_full quiet_pushes reconnects resizes write_mode"
blk_fsnap() {
	local out k v n=0 want
	out=$(domu_must "$1" 20 "cd /sys/bus/xen/devices/vbd-$(blk_handle "$2")/statistics &&
		n=0; for f in *; do [ -f \$f ] || continue; echo \"\$f \$(cat \$f)\"; n=\$((n + 1)); done;
		echo @files \$n") || exit $?
	BF=()
	while read -r k v; do
		case $k in
		@files) want=$v ;;
		?*) BF[$k]=$v n=$((n + 1)) ;;
		esac
	done <<<"$out"
	[ -n "${want:-}" ] && [ "$n" = "$want" ] ||
		error "$1 $2: read $n of ${want:-?} xfab_blkfront statistics: $(echo "$out" | head -n 2 | tr '\n' ' ')"
	blk_snap_has BF "$2: xfab_blkfront" $BF_KEYS
}
blk_f() { blk_snap_get BF "$1"; }

# blk_bsnap NAME DEV: all of xfab_blkback's statistics for NAME's DEV
# into BB, read by blk_b KEY. Read with the shell's own `read`: a process
# started in dom0 costs 0.1-0.2 s under TCG, and blk_stat starts four per
# counter (`xl domid` among them).
declare -gA BB=()
BB_KEYS="rd_req wr_req flush_req indirect_req grant_maps map_calls pgrant_hits
	persistent_grants kicks irqs rings io_errors map_errors err_bad_op
	err_not_offered err_read_only err_empty err_too_many_segs err_bad_sect
	err_misaligned err_range err_bad_indirect ro_hits ro_maps ro_evictions
	ro_purged ro_full polls poll_found poll_empty mode"
blk_bsnap() {
	local dir f
	dir=$(blk_sysdir "$1" "$2")/statistics
	[ -d "$dir" ] || fail "$2: no xfab_blkback statistics for $1 ($dir)"
	BB=()
	for f in "$dir"/*; do
		read -r "BB[${f##*/}]" <"$f" || fail "$2: cannot read $f"
	done
	blk_snap_has BB "$2: xfab_blkback" $BB_KEYS
}
blk_b() { blk_snap_get BB "$1"; }

# blk_snap_has ARRAY WHO KEY...: a statistic the checks use that the
# driver does not have fails the scenario (here, not in a command
# substitution of blk_snap_get).
blk_snap_has() {
	local -n snap=$1
	local who=$2 k
	shift 2
	for k; do
		[ -n "${snap[$k]+set}" ] || fail "$who has no statistic '$k'"
	done
}
blk_snap_get() {
	local -n snap=$1
	[ -n "${snap[$2]+set}" ] || error "no statistic '$2' in $1 (have: ${!snap[*]})"
	echo "${snap[$2]}"
}

# xfab_blkfront's counters after blk_interop: what ran went through it,
# and the backend never broke the protocol. SEGS: the segments per
# request it must have picked for this backend. Its pool stays within
# pool_pages (1056) per ring, 2 rings (2 vCPUs), though 1 MiB requests
# at iodepth 32 would take 8 times that.
blk_front_checks() {
	local name=$1 want=$2 dev c segs
	for dev in xvdb xvdc; do
		segs=$(domu_exec "$name" 10 "cat /sys/block/$dev/queue/max_segments" | tail -n 1)
		[ "$segs" = "$want" ] || fail "$dev: xfab_blkfront picked $segs segments per request, want $want"
		blk_fsnap "$name" $dev
		[ "$(blk_f grants)" -le 2112 ] ||
			fail "$dev: xfab_blkfront granted $(blk_f grants) pool pages, over 2 x pool_pages"
		for c in rd_req wr_req flush_req indirect_req bytes_copied grants kicks irqs busy; do
			figure "front_${c}_$dev" "$(blk_f $c)"
		done
		for c in rd_req wr_req indirect_req; do
			[ "$(blk_f $c)" -gt 0 ] || fail "$dev: xfab_blkfront $c is 0"
		done
		for c in io_errors fatal_ring fatal_id fatal_op; do
			[ "$(blk_f $c)" = 0 ] || fail "$dev: xfab_blkfront $c = $(blk_f $c)"
		done
		# 128 KiB requests stay whole (split_kb is 0, or 256 in 032)
		if [ "$want" -le 64 ]; then
			[ "$(blk_f splits)" = 0 ] ||
				fail "$dev: $(blk_f splits) requests of at most 256 KiB were split"
		fi
		# ext4 (journal commits) and blkdiscard ran on the file-backed disk
		if [ $dev = xvdc ]; then
			[ "$(blk_f flush_req)" -gt 0 ] || fail "xvdc: xfab_blkfront sent no flush"
			[ "$(blk_f discard_req)" -gt 0 ] || fail "xvdc: xfab_blkfront sent no discard"
		fi
	done
}

# xfab_blkback's counters after blk_interop with 2 vCPUs: 2 rings,
# persistent grants reused, indirect requests on both disks, flushes on
# the one with ext4, nothing refused or failed.
blk_back_checks() {
	local name=$1 dev c
	for dev in xvdb xvdc; do
		blk_bsnap "$name" $dev
		for c in rd_req wr_req flush_req indirect_req grant_maps map_calls \
			pgrant_hits persistent_grants kicks irqs; do
			figure "${c}_$dev" "$(blk_b $c)"
		done
		[ "$(blk_b rings)" = 2 ] || fail "$dev: $(blk_b rings) rings, want 2 (2 vCPUs)"
		[ "$(blk_b pgrant_hits)" -gt 0 ] || fail "$dev: no persistent grant reused"
		[ "$(blk_b indirect_req)" -gt 0 ] || fail "$dev: no indirect request (1 MiB fio)"
		for c in io_errors map_errors err_bad_op err_not_offered err_read_only \
			err_empty err_too_many_segs err_bad_sect err_misaligned err_range \
			err_bad_indirect; do
			[ "$(blk_b $c)" = 0 ] || fail "$dev: $c = $(blk_b $c)"
		done
		if [ $dev = xvdc ]; then
			[ "$(blk_b flush_req)" -gt 0 ] || fail "xvdc: no flush (ext4 journal commits)"
		fi
	done
}

# The fast path after blk_interop with RELAXED_DEVS of an xfab pair: those
# disks write in place (the frontend's kept read-only grants, reused, and
# the backend's kept mappings, reused), the others copy; the backend
# polled its rings.
blk_fast_checks() {
	local name=$1 dev c
	for dev in xvdb xvdc; do
		blk_fsnap "$name" $dev
		for c in ro_hits ro_grants ro_replaced ro_full quiet_pushes bytes_copied; do
			figure "front_${c}_$dev" "$(blk_f $c)"
		done
		blk_bsnap "$name" $dev
		for c in ro_hits ro_maps ro_evictions ro_purged ro_full polls poll_found poll_empty; do
			figure "${c}_$dev" "$(blk_b $c)"
		done
		[ "$(blk_b polls)" -gt 0 ] || fail "$dev: xfab_blkback never polled an xfab frontend's ring"
		# 1 MiB requests, yet the frontend's pool fits what the backend
		# keeps: each page mapped once, no map per request
		c=$(($(blk_b grant_maps) - $(blk_b ro_maps)))
		[ "$c" = "$(blk_b persistent_grants)" ] ||
			fail "$dev: xfab_blkback mapped $c pool grants, kept $(blk_b persistent_grants): some mapped per request"
		if blk_relaxed "$dev"; then
			[ "$(blk_f write_mode)" = in-place ] ||
				fail "$dev: relaxed trust, but the frontend's write_mode is '$(blk_f write_mode)'"
			[ "$(blk_b mode)" = xfab-ro ] ||
				fail "$dev: relaxed trust, but the backend's mode is '$(blk_b mode)'"
			[ "$(blk_f ro_hits)" -gt 0 ] || fail "$dev: no kept read-only grant reused"
			[ "$(blk_b ro_hits)" -gt 0 ] || fail "$dev: backend reused no kept read-only mapping"
		else
			[ "$(blk_f write_mode)" = copy ] ||
				fail "$dev: strict trust, but the frontend's write_mode is '$(blk_f write_mode)'"
			[ "$(blk_f ro_grants)" = 0 ] || fail "$dev: strict trust, yet read-only grants were made"
		fi
	done
}

# A stock peer on either side: xfab-trust=relaxed must change nothing.
blk_no_fast_path() {
	local name=$1 dev=xvdb
	if lsmod | grep -q '^xfab_blkback '; then
		blk_bsnap "$name" $dev
		[ "$(blk_b mode)" = stock ] ||
			fail "$dev: a stock frontend, but the backend's mode is '$(blk_b mode)'"
		[ "$(blk_b polls)" = 0 ] || fail "$dev: xfab_blkback polled a stock frontend's ring"
	else
		blk_fsnap "$name" $dev
		[ "$(blk_f write_mode)" = copy ] ||
			fail "$dev: a stock backend, but the frontend's write_mode is '$(blk_f write_mode)'"
		[ "$(blk_f ro_grants)" = 0 ] || fail "$dev: read-only grants made for a stock backend"
	fi
	log "relaxed trust with a stock peer on $dev: the standard path, as it must be"
}

# blk_backend_reload NAME DEV: fio verify runs on DEV while xfab_blkback
# is unloaded and loaded again with NAME alive; an xfab frontend holds
# the disk, reconnects by itself and fio must finish verified.
blk_backend_reload() {
	local name=$1 dev=$2 before d
	before=$(blk_fstat "$name" "$dev" reconnects)
	blk_fio_bg "$name" "$dev" rl 48M
	sleep 3
	# The bus holds a module reference per bound device: unbind first.
	for d in /sys/bus/xen-backend/drivers/xfab_blkback/vbd-*; do
		[ -e "$d" ] && must sh -c "echo $(basename "$d") >/sys/bus/xen-backend/drivers/xfab_blkback/unbind"
	done
	must rmmod xfab_blkback
	log "xfab_blkback unloaded with $name's I/O running"
	sleep 2
	load_backend xfab_blkback
	blk_fio_bg_wait "$name" rl "the backend reload"
	[ "$(blk_fstat "$name" "$dev" reconnects)" -gt "$before" ] ||
		fail "$dev: xfab_blkfront counted no reconnect across the backend reload"
	log "backend reload during fio verify: reconnected, verified"
}

# blk_odd_disks NAME FE: a 4096-byte-sector disk and a read-only disk
# attached to NAME (loop devices over files in dom0). The first must
# show 4096-byte sectors in the guest and pass a fio verify; the second
# must read back what dom0 wrote into it and refuse writes.
blk_odd_disks() {
	local name=$1 l4k lro sum out
	must truncate -s 64M "$W/blk-4k.img"
	must dd if=/dev/urandom of="$W/blk-ro.img" bs=1M count=16 status=none
	l4k=$(losetup --find --show --sector-size 4096 "$W/blk-4k.img") || fail "losetup 4096-byte sectors"
	lro=$(losetup --find --show "$W/blk-ro.img") || fail "losetup of the read-only disk"
	sum=$(sha256sum <"$W/blk-ro.img" | cut -d' ' -f1)
	must xl block-attach "$name" "phy:$l4k,xvdd,w"
	must xl block-attach "$name" "phy:$lro,xvde,r"
	out=$(domu_exec "$name" 300 "for i in \$(seq 60); do [ -e /dev/xvdd ] && [ -e /dev/xvde ] && break; sleep 0.5; done
		echo ss=\$(blockdev --getss /dev/xvdd) ro=\$(blockdev --getro /dev/xvde)
		fio --name=4k --filename=/dev/xvdd --direct=1 --ioengine=libaio --rw=randwrite --bs=16k \
			--iodepth=8 --size=32M --verify=crc32c --verify_fatal=1 --do_verify=1 >/tmp/4k.fio 2>&1; echo fio4k=\$?
		echo rosum=\$(sha256sum </dev/xvde | cut -d' ' -f1)
		dd if=/dev/zero of=/dev/xvde bs=4k count=1 oflag=direct 2>/dev/null; echo rowrite=\$?") ||
		fail "4096-sector and read-only disks: $(echo "$out" | tail -n 3)"
	echo "$out"
	echo "$out" | grep -q '^ss=4096 ro=1$' || fail "xvdd/xvde: want 4096-byte sectors and read-only, got '$(echo "$out" | grep '^ss=')'"
	echo "$out" | grep -q '^fio4k=0$' || fail "fio verify on the 4096-byte-sector disk failed"
	echo "$out" | grep -q "^rosum=$sum\$" || fail "the read-only disk read back different from dom0's file"
	echo "$out" | grep -q '^rowrite=0$' && fail "a write to the read-only disk succeeded"
	must xl block-detach "$name" xvdd
	must xl block-detach "$name" xvde
	wait_for 30 sh -c "! [ -e $(blk_sysdir "$name" xvdd) ] && ! [ -e $(blk_sysdir "$name" xvde) ]" ||
		fail "xvdd/xvde still in dom0 30s after block-detach"
	losetup -d "$l4k" "$lro"
	log "4096-byte sectors: fio verified; read-only: reads match, writes refused"
}
