#!/bin/bash
# 070 a driver domain: xfab_netback and xfab_blkback in a domU
# Objective: an unprivileged domU serves a guest's vif and vbd through
#   xl's backend= option, with `xl devd` running the hotplug scripts in
#   it, as dom0's xl does for dom0's backends. The intended drivers are
#   bound at both ends; ping both ways; 64 MiB of seeded TCP each way,
#   checksummed at both ends; fio verify over the guest's disk, which
#   is the driver domain's own disk lent on; `xfabctl status` in dom0
#   names the drivers of both devices from their xenstore keys (no
#   counters: the backend is not dom0's). Then dd is destroyed while g1
#   lives: g1 carries on (no hang, no splat), `xl network-detach` and
#   `block-detach` let g1's stale devices go at once, 8 MiB g1 synced
#   before is intact once a new dd serves the disk through
#   `xl network-attach`/`block-attach`, and ping, TCP and fio pass again
#   (figures: the detach's seconds, TCP rates before and after).
# Topology: dom0 (xen-blkback: dd's disk, a 256 MiB RAM disk) -> dd
#   (driver domain, driver_domain=1: xen-blkfront for that disk as
#   xvdb, xfab_netback, xfab_blkback, bridge xenbr0 10.0.1.1/24, xl
#   devd) -> g1 (xfab_netfront eth0 10.0.1.2/24, xfab_blkfront xvdb;
#   both with backend=dd). No network between dom0 and either.
. /xfab/guest/lib.sh
. /xfab/guest/blk.sh

DIAG=dd_diag
# dd_diag: what the driver domain's hotplug and backends said
dd_diag() {
	domu_exec dd 60 "tail -n 20 /var/log/xen/xldevd.log; dmesg | grep -i 'xfab\|vif\|vbd' | tail -n 20" 2>&1
	xenstore-ls -f "/local/domain/$(domu_id dd)/backend" 2>&1 | grep -v 'feature-\|pool' | head -n 40
}

G1_VIF='mac=00:16:3e:00:01:02,bridge=xenbr0,backend=dd'
G1_DISK='format=raw,vdev=xvdb,access=rw,backendtype=phy,backend=dd,target=/dev/xvdb'

# dd_start: boot the driver domain, its bridge and xl devd (whose
# libxl says, harmlessly, that an unprivileged domain cannot count the
# host's CPUs: that goes to its log)
dd_start() {
	local out
	domu_start dd --novif --mods xen-blkfront,xen-privcmd,xen-evtchn,bridge,xfab_netback,xfab_blkback \
		--vcpus 2 --kargs xen_privcmd.unrestricted=1 --disk 'phy:/dev/ram0,xvdb,w' driver_domain=1
	out=$(domu_must dd 60 "ip link add xenbr0 type bridge && ip addr add 10.0.1.1/24 dev xenbr0 &&
		ip link set xenbr0 up && xl devd 2>>/var/log/xen/xldevd.log && sleep 1 && pidof xl") || exit $?
	log "dd (domid $(domu_id dd)): bridge xenbr0 up, xl devd running (pid $out)"
}

# g1_drivers: the xfab drivers serve g1's vif and vbd at both ends
g1_drivers() {
	local got
	got=$(domu_exec dd 30 "basename \$(readlink /sys/class/net/vif$g1.0/device/driver/module)")
[ "$got" = xfab_netback ] || fail "dd's vif$g1.0 is driven by '$got', not xfab_netback"
got=$(domu_exec dd 30 "basename \$(readlink /sys/bus/xen-backend/devices/vbd-$g1-51728/driver/module)")
[ "$got" = xfab_blkback ] || fail "dd's vbd of g1 is driven by '$got', not xfab_blkback"
got=$(net_driver eth0 g1)
[ "$got" = xfab_netfront ] || fail "g1 eth0 is driven by '$got', not xfab_netfront"
got=$(blk_driver_front g1 xvdb)
[ "$got" = xfab_blkfront ] || fail "g1 xvdb is driven by '$got', not xfab_blkfront"
}

# g1_traffic SEED: ping both ways, a checksummed stream each way
g1_traffic() {
	domu_must g1 60 "ping -c 3 -i 0.2 -W 5 10.0.1.1" >/dev/null || exit $?
	domu_must dd 60 "ping -c 3 -i 0.2 -W 5 10.0.1.2" >/dev/null || exit $?
	log "ping g1 <-> dd: ok"
	xfer_domu_to_domu g1 dd 10.0.1.1 64M "$1" "tcp_guest_to_dd_mbit$2"
	xfer_domu_to_domu dd g1 10.0.1.2 64M $(($1 + 1)) "tcp_dd_to_guest_mbit$2"
}

blk_use_backend xen-blkback
blk_make_disks
dd_start
domu_start g1 --mods xfab_netfront,xfab_blkfront --ip 10.0.1.2/24 --vcpus 1 \
	--vif "$G1_VIF" --disk "$G1_DISK"
g1=$(domu_id g1)
g1_drivers
g1_traffic 21 ""
blk_fio_verify g1 xvdb
status_check "$g1" vif/0 xfab_netfront xfab_netback xfab pool strict
status_check "$g1" vbd/51728 xfab_blkfront xfab_blkback xfab strict

# The driver domain dies while g1 lives. 8 MiB g1 wrote and synced
# before must be on the disk after; g1 must not hang or splat; the
# stale devices must detach at once (their backend is gone), and the
# xfab frontends must take the devices served by the new dd.
sum=$(domu_must g1 60 "dd if=/dev/urandom of=/tmp/blob bs=1M count=8 2>/dev/null &&
	dd if=/tmp/blob of=/dev/xvdb bs=1M seek=200 2>/dev/null && sync &&
	sha256sum </tmp/blob | cut -c1-64") || exit $?
domu_destroy dd >/dev/null
sleep 3
domu_must g1 30 "cat /sys/class/net/eth0/operstate" >/dev/null || exit $?
t0=$SECONDS
out=$(timeout 60 xl network-detach g1 0 2>&1) || fail "network-detach of the dead dd's vif: $out"
out=$(timeout 60 xl block-detach g1 xvdb 2>&1) || fail "block-detach of the dead dd's vbd: $out"
figure stale_detach_secs $((SECONDS - t0))
domu_must g1 30 "! [ -e /sys/class/net/eth0 ] && ! [ -e /sys/block/xvdb ]" >/dev/null || exit $?
dd_start
# network-attach takes the vif spec's settings as separate words
must xl network-attach g1 ${G1_VIF//,/ }
must xl block-attach g1 "$G1_DISK"
domu_must g1 60 "for i in \$(seq 60); do [ -e /sys/class/net/eth0 ] && [ -e /sys/block/xvdb ] && break; sleep 0.5; done
	ip addr add 10.0.1.2/24 dev eth0 && ip link set eth0 up" >/dev/null || exit $?
g1_drivers
got=$(domu_must g1 60 "dd if=/dev/xvdb bs=1M skip=200 count=8 2>/dev/null | sha256sum | cut -c1-64") || exit $?
[ "$got" = "$sum" ] || fail "the 8 MiB g1 synced before dd died read back as $got, not $sum"
log "8 MiB synced before the driver domain died: intact"
g1_traffic 23 _after_restart
# one fio job is enough here: the full set ran before the restart
domu_must g1 300 "fio --name=again --filename=/dev/xvdb --direct=1 --ioengine=libaio \
	--rw=randrw --bs=64k --iodepth=16 --size=32M --verify=crc32c --verify_fatal=1 \
	--do_verify=1 >/tmp/fio.out 2>&1 || { tail -n 5 /tmp/fio.out; exit 1; }" >/dev/null || exit $?
log "fio verify after the restart: ok"
pass "driver domain: xfab_netback and xfab_blkback in dd (xl devd) serve g1: ping, TCP both ways, fio verify; dd destroyed and restarted while g1 lives: stale devices detach, synced data intact, new devices served"
