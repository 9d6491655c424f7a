#!/bin/bash
# 001 stock baseline
# Objective: the stock Linux drivers work on this testbed, so every later
#   scenario has a reference and the harness is shown to see data errors:
#   ping both ways; 256 MiB of seeded TCP data each way with sha256 compared
#   on both ends; fio with verify=crc32c on the vbd; a file written, caches
#   dropped, read back with the same sha256; the negotiated xenstore
#   features recorded as figures.
# Topology: dom0 (xen-netback, xen-blkback, bridge xenbr0 10.0.0.1/24)
#   <-> domU d1 (xen-netfront, xen-blkfront, eth0 10.0.0.2/24, 2 vCPUs),
#   vbd phy:/dev/vdc (a scratch virtio disk of the L1 VM) as xvdb.
. /xfab/guest/lib.sh
SIZE=${XFER_SIZE:-256M}

load_backend xen-netback
load_backend xen-blkback
domu_start d1 --mods xen-netfront,xen-blkfront --disk 'phy:/dev/vdc,xvdb,w'
xs_features "$(domu_id d1)"

must ping -c 3 -W 5 10.0.0.2
domu_must d1 30 "ping -c 3 -W 5 10.0.0.1"

# sha=... field of an xfab-xfer line
sha_of() { echo "$1" | grep -o 'sha256=[0-9a-f]*' | tail -n 1; }
mbit_of() { echo "$1" | grep -o 'mbit=[0-9.]*' | tail -n 1 | cut -d= -f2; }

log "TCP $SIZE domU -> dom0"
xfab-xfer recv 5001 >"$W/rx1" 2>&1 &
rx=$!
tx=$(domu_must d1 600 "xfab-xfer send 10.0.0.1 5001 $SIZE 11") || exit $?
wait $rx
rx1=$(cat "$W/rx1")
log "sent: $tx"
log "recv: $rx1"
[ -n "$(sha_of "$tx")" ] && [ "$(sha_of "$tx")" = "$(sha_of "$rx1")" ] ||
	fail "domU->dom0 transfer: checksums differ (sent $(sha_of "$tx"), got $(sha_of "$rx1"))"
figure tcp_domu_to_dom0_mbit "$(mbit_of "$rx1")"

log "TCP $SIZE dom0 -> domU"
domu_must d1 10 "xfab-xfer recv 5002 >/tmp/rx2 2>&1 &"
tx=$(xfab-xfer send 10.0.0.2 5002 "$SIZE" 12) || fail "dom0->domU send failed: $tx"
rx2=$(domu_must d1 120 'for i in $(seq 240); do grep -q sha256 /tmp/rx2 && break; sleep 0.5; done; cat /tmp/rx2') || exit $?
log "sent: $tx"
log "recv: $rx2"
[ -n "$(sha_of "$tx")" ] && [ "$(sha_of "$tx")" = "$(sha_of "$rx2")" ] ||
	fail "dom0->domU transfer: checksums differ (sent $(sha_of "$tx"), got $(sha_of "$rx2"))"
figure tcp_dom0_to_domu_mbit "$(mbit_of "$rx2")"

log "fio verify=crc32c on xvdb"
out=$(domu_must d1 900 "fio --name=verify --filename=/dev/xvdb --rw=randwrite \
	--bs=64k --size=256M --ioengine=libaio --iodepth=16 --direct=1 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --minimal") || exit $?
echo "$out" | tail -n 1
# terse format: field 3 = error, 48 = write bandwidth KiB/s
figure fio_verify_err "$(echo "$out" | tail -n 1 | cut -d';' -f5)"
figure fio_randwrite_kib_s "$(echo "$out" | tail -n 1 | cut -d';' -f48)"

log "file through ext4, caches dropped, read back"
out=$(domu_must d1 600 "mkfs.ext4 -q -F /dev/xvdb && mount /dev/xvdb /mnt &&
	xfab-xfer gen 64M 13 >/mnt/f 2>/tmp/gen && sync &&
	echo 3 >/proc/sys/vm/drop_caches && sha256sum /mnt/f && cat /tmp/gen &&
	umount /mnt") || exit $?
echo "$out"
want=$(sha_of "$out" | cut -d= -f2)
got=$(echo "$out" | awk '$2 == "/mnt/f" { print $1 }')
[ -n "$want" ] && [ "$want" = "$got" ] ||
	fail "file read back with sha256 $got, written $want"
pass "stock pair: ping, TCP both ways, fio verify, file readback all good"
