#!/bin/bash
# 301 the Debian packages in dom0: DKMS's modules, xfab-enable on and off
# Objective: what docs/packages.md promises a Xen host, in a boot of the
#   image with xfab-dkms and xfab-utils of HEAD installed by apt
#   (tests/vm/dkms-root.sh; run.py --dkms puts no modules on the run disk):
#   1. DKMS built the five for the running kernel into updates/dkms, and
#      modprobe finds them there;
#   2. `xfab-enable backend` writes its three files; the boot's module
#      loading (systemd-modules-load) then loads xfab_netback and
#      xfab_blkback, and a load of xen-netback by name gives xfab_netback;
#   3. one interop cell with those modules: a stock guest on the packaged
#      xfab_netback, with net_interop's checks (drivers bound, ping, 64 MiB
#      of TCP each way with sha256, UDP, 2 queues, jumbo) and the packaged
#      xfabctl's status;
#   3b. the fallback, as a kernel whose DKMS build failed has it: with
#      xfab_netback's file moved out of updates/dkms (and depmod), a load
#      of xen-netback by name gives the stock module through
#      /etc/modprobe.d/xfab.conf; with it back (and depmod), xfab_netback
#      again;
#   4. `xfab-enable --off` removes its files; with ours unloaded (as a
#      reboot would leave them) the boot's loading loads none of them, a
#      load of xen-netback gives the stock module, and it serves the next
#      guest.
# Topology: dom0 (root with the .debs installed, bridge xenbr0
#   10.0.0.1/24) <-> domU d1 (xen-netfront, 10.0.0.2/24, 2 vCPUs), then
#   domU d2 (xen-netfront, 10.0.0.3/24).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
# the packaged tools, not this run's build of them
PATH=/usr/sbin:$PATH
kver=$(uname -r)
FILES="/etc/xfab/roles /etc/modprobe.d/xfab.conf /etc/modules-load.d/xfab.conf"
DKMS=/lib/modules/$kver/updates/dkms
HIDDEN=/run/xfab-301-hidden
# step 3b's hidden module back where DKMS put it, whatever happens
unhide() {
	[ -d "$HIDDEN" ] || return 0
	mv "$HIDDEN"/* "$DKMS"/ && rmdir "$HIDDEN" && depmod
}

ls "$XFAB"/modules/*.ko >/dev/null 2>&1 &&
	error "the run disk carries modules: this scenario needs run.py --dkms"
dpkg -s xfab-dkms xfab-utils >/dev/null 2>&1 ||
	error "xfab-dkms and xfab-utils are not installed: this scenario needs run.py --dkms"
trap 'unhide; xfab-enable --off >/dev/null 2>&1' EXIT

# 1. the modules DKMS installed
for m in xfab_netfront xfab_netback xfab_blkfront xfab_blkback xfab_window; do
	p=$(modinfo -n "$m" 2>/dev/null) || fail "modprobe finds no $m for $kver"
	case $p in
	*/lib/modules/"$kver"/updates/dkms/*) ;;
	*) fail "$m is $p, not one DKMS installed" ;;
	esac
done
out=$(dkms status xfab 2>&1)
grep -q "$kver.*: installed" <<<"$out" || fail "dkms status says: $out"
log "dkms status: $out"

# 2. on
modprobe -r xen-netback xen-blkback 2>/dev/null
lsmod | grep -qE '^xen_(net|blk)back ' && error "the stock backends would not unload"
out=$(xfab-enable backend 2>&1) || fail "xfab-enable backend: $out"
for f in $FILES; do
	[ -f "$f" ] || fail "xfab-enable backend wrote no $f"
done
must systemctl restart systemd-modules-load.service
for m in xfab_netback xfab_blkback; do
	lsmod | grep -q "^$m " || fail "$m not loaded at boot (systemd-modules-load) after xfab-enable backend"
	# the module loaded is the file DKMS installed (same source hash)
	[ "$(cat "/sys/module/$m/srcversion")" = "$(modinfo -F srcversion "$m")" ] ||
		fail "loaded $m is not the one in updates/dkms"
done
must rmmod xfab_netback
must modprobe xen-netback
lsmod | grep -q "^xen_netback " && fail "modprobe xen-netback loaded the stock module with xfab on"
lsmod | grep -q "^xfab_netback " || fail "modprobe xen-netback did not load xfab_netback"
out=$(xfab-enable --status)
grep -qx "xfab on for: backend" <<<"$out" || fail "xfab-enable --status: $out"
log "xfab-enable backend: files written, xfab_netback and xfab_blkback loaded"

# 3. the cell
net_interop xen-netfront xfab_netback
id=$(domu_id d1)
domu_destroy d1 >/dev/null
wait_for 30 vif_gone "$id" || fail "d1's vif$id.0 still there 30 s after xl destroy"

# net_interop's own blacklist of the stock module (use_backend): from
# here on, xfab-enable's file alone says what loads
rm -f /etc/modprobe.d/xfab-test-xen-netback.conf

# 3b. the fallback: xfab on, xfab_netback missing for this kernel
must rmmod xfab_netback
mkdir -p "$HIDDEN"
must mv "$DKMS"/xfab_netback.ko* "$HIDDEN"/
must depmod
modinfo -n xfab_netback >/dev/null 2>&1 && fail "modprobe still finds xfab_netback with its file moved out of $DKMS"
out=$(modprobe xen-netback 2>&1) ||
	fail "with xfab_netback missing, modprobe xen-netback failed (no fallback to the stock module): $out"
lsmod | grep -q "^xen_netback " ||
	fail "with xfab_netback missing, modprobe xen-netback did not load the stock module (modprobe said: $out)"
lsmod | grep -q "^xfab_netback " && fail "xfab_netback loaded with its file moved out"
log "xfab_netback missing: modprobe xen-netback loaded the stock xen_netback (modprobe said: $out)"
must rmmod xen_netback
unhide || fail "could not put xfab_netback back into $DKMS"
must modprobe xen-netback
lsmod | grep -q "^xfab_netback " || fail "with xfab_netback back, modprobe xen-netback did not load it"
lsmod | grep -q "^xen_netback " && fail "with xfab_netback back, modprobe xen-netback loaded the stock module too"
log "xfab_netback back: modprobe xen-netback loaded xfab_netback"

# 4. off
out=$(xfab-enable --off 2>&1) || fail "xfab-enable --off: $out"
for f in $FILES; do
	[ -e "$f" ] && fail "xfab-enable --off left $f"
done
must rmmod xfab_netback xfab_blkback
must systemctl restart systemd-modules-load.service
lsmod | grep -q '^xfab_' && fail "with xfab off, the boot's loading loaded $(lsmod | awk '/^xfab_/ { print $1 }')"
must modprobe xen-netback
lsmod | grep -q "^xen_netback " || fail "with xfab off, modprobe xen-netback did not load the stock module"
domu_start d2 --ip 10.0.0.3/24 --mac 00:16:3e:00:00:03
id=$(domu_id d2)
got=$(net_driver "vif$id.0")
[ "$got" = xen_netback ] || fail "with xfab off, d2's vif is driven by '$got', not xen_netback"
must ping -c 3 -i 0.2 -W 5 10.0.0.3 >/dev/null
status_check "$id" vif/0 stock xen-netback stock 'rx_packets>0'
pass "DKMS's modules serve a stock guest (ping, TCP, UDP, queues, jumbo); xfab-enable on, the stock module without ours, off, stock again"
