#!/bin/bash
# 001 stock baseline
# Objective: the stock Linux drivers work on this testbed, so every later
#   scenario has a reference and the harness is shown to see data errors:
#   the stock x stock cell of the network interop matrix (net_interop in
#   net.sh: ping 56..1472 and jumbo both ways, 64 MiB of seeded TCP each
#   way at once with sha256 compared on both ends, UDP bursts, 2 queues
#   both used); blk_fio_verify's crc32c-verified fio jobs on the vbd
#   (blk.sh, every job's error judged); a file written, caches
#   dropped, read back with the same sha256; the negotiated xenstore
#   features recorded as figures.
# Topology: dom0 (xen-netback, xen-blkback, bridge xenbr0 10.0.0.1/24)
#   <-> domU d1 (xen-netfront, xen-blkfront, eth0 10.0.0.2/24, 2 vCPUs),
#   vbd phy:/dev/vdc (a scratch virtio disk of the L1 VM) as xvdb.
#   Hotplug: Debian's vif-bridge and block scripts, as a user's dom0
#   runs them (other scenarios use the testbed's quick ones).
# Tier: check-full
#   (it runs no xfab code; make check's stock-peer cells, 010, 011, 030
#   and 031, show the stock drivers work on the testbed)
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/blk.sh
hotplug_scripts debian || error "could not switch to Debian's hotplug scripts"

load_backend xen-blkback
net_interop xen-netfront,xen-blkfront xen-netback --disk 'phy:/dev/vdc,xvdb,w'

# the jobs every block cell runs, judged job by job (blk.sh)
blk_fio_verify d1 xvdb

log "file through ext4, caches dropped, read back"
out=$(domu_must d1 600 "mkfs.ext4 -q -F /dev/xvdb && mount -t ext4 /dev/xvdb /mnt &&
	xfab-xfer gen 64M 13 >/mnt/f 2>/tmp/gen && sync &&
	echo 3 >/proc/sys/vm/drop_caches && sha256sum /mnt/f && cat /tmp/gen &&
	umount /mnt") || exit $?
echo "$out"
want=$(xfer_sha "$out")
got=$(echo "$out" | awk '$2 == "/mnt/f" { print $1 }')
[ -n "$want" ] && [ "$want" = "$got" ] ||
	fail "file read back with sha256 $got, written $want"
pass "stock pair: ping, TCP both ways, fio verify, file readback all good"
