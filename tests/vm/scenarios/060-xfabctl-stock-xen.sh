#!/bin/bash
# 060 xfabctl on Debian's stock Xen
# Objective: the toolstack says clearly what it cannot do, with the exit
#   codes docs/toolstack.md gives: on a hypervisor without xen-patches/,
#   `xfabctl group add` ends 5 naming the patch; bad input ends 2 naming
#   what is wrong; a missing domain or device 4. `xfabctl trust` works on
#   any Xen: it writes the frontend's xfab-trust key, and a domU may not
#   use xfabctl to put domains in groups (refused, 3, or 5 on stock Xen).
#   `xfabctl status` shows the stock pair in its table and JSON, and a
#   driver name the guest forged in its own directory as "?".
#   `xfab-appliance` names a bad line of its file (2), and on this Xen
#   ends 5 naming the patch, having destroyed the member it created.
# Topology: dom0 (xfabctl, xen-netback) <-> domU d1 (xen-netfront; no
#   xfab driver: the toolstack is what is under test).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh

# expect_rc RC WORD CMD...: CMD must exit RC with WORD in its stderr.
expect_rc() {
	local want=$1 word=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	log "$* -> $rc: $out"
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want: $out"
	echo "$out" | grep -q -- "$word" || fail "'$*' said '$out', without '$word'"
}

xen_patched && error "this boot runs the patched Xen; 060 is for Debian's"
must xfabctl --help | grep -q "xfabctl group add" || fail "xfabctl --help prints no usage"
expect_rc 2 usage xfabctl
expect_rc 2 "unknown command 'frobnicate'" xfabctl frobnicate
expect_rc 2 "bad group name" xfabctl group add 'a/b' 0
expect_rc 4 "no domain named 'nosuch'" xfabctl group add app nosuch
net_use_backend xen-netback
domu_start d1 --mods xen-netfront,xen-privcmd --vcpus 1 --kargs xen_privcmd.unrestricted=1
d1=$(domu_id d1)
expect_rc 5 "xen-patches/0001-appliance-groups-domctl.patch" xfabctl group add app d1
expect_rc 5 "xen-patches/0001" xfabctl group frames "$d1"
out=$(must xfabctl group show) || exit $?
echo "$out" | grep -q "^group" || fail "group show printed no header: $out"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "group show lists groups on a stock Xen: $out"

# trust: the key a frontend's backend reads, any Xen
expect_rc 2 "trust must be 'relaxed' or 'strict'" xfabctl trust d1 vif/0 loose
expect_rc 2 "neither vif/N nor vbd/N" xfabctl trust d1 eth0 relaxed
expect_rc 4 "has no device vbd/51712" xfabctl trust d1 vbd/51712 relaxed
must xfabctl trust d1 vif/0 relaxed
[ "$(xenstore-read "/local/domain/$d1/device/vif/0/xfab-trust")" = relaxed ] ||
	fail "xfabctl trust did not write xfab-trust=relaxed"
must xfabctl trust "$d1" vif/0 strict
[ "$(xenstore-read "/local/domain/$d1/device/vif/0/xfab-trust")" = strict ] ||
	fail "xfabctl trust did not write xfab-trust=strict"

# status: the stock pair as it is, and a forged driver name in the
# guest's directory shown as "?", the JSON intact
expect_rc 2 "unexpected argument '--bogus'" xfabctl status --bogus
expect_rc 4 "no domain named 'nosuch'" xfabctl status nosuch
must ping -c 2 -i 0.2 -W 5 10.0.0.2 >/dev/null
status_check "$d1" vif/0 stock xen-netback stock strict 'rx_packets>0' 'tx_packets>0'
must xenstore-write "/local/domain/$d1/device/vif/0/xfab-driver" 'ev"il\'
status_check "$d1" vif/0 '?' xen-netback stock
must xenstore-rm "/local/domain/$d1/device/vif/0/xfab-driver"
out=$(must xfabctl status) || exit $?
echo "$out" | grep -q "^ *$d1 d1 *vif/0 .*connected/connected *stock *xen-netback *stock,strict" ||
	fail "xfabctl status table lacks d1's vif/0 line: $out"

# xfab-appliance: a bad file is named by its line (2); an appliance
# with a group ends 5 naming the patch, and the domU it had created
# paused is gone again
A=$W/app
mkdir -p "$A"
domu_cfg "$A/s1.cfg" "" "" "" "vcpus = 1" "vif = []"
printf 'appliance st\nmember s1 s1.cfg\nmember s2 s1.cfg\nfrob on\n' >"$A/bad.appliance"
expect_rc 2 "bad.appliance:4: unknown keyword 'frob'" xfab-appliance check "$A/bad.appliance"
printf 'appliance st\nmember s1 s1.cfg\n' >"$A/one.appliance"
expect_rc 2 "a group needs two members" xfab-appliance up "$A/one.appliance"
printf 'appliance st\nmember s1 s1.cfg\nmember s2 s1.cfg\n' >"$A/st.appliance"
expect_rc 5 "xen-patches/0001" xfab-appliance up "$A/st.appliance"
dom_gone s1 && dom_gone s2 || fail "xfab-appliance left domain s1 or s2 after its failed up: $(xl list)"

# from a domU: the hypervisor refuses (stock Xen cannot tell "not
# privileged" from "unknown domctl" to a domU: both say EPERM)
out=$(domu_exec d1 60 "xfabctl group add evil $d1; echo rc=\$?" 2>&1)
echo "$out" | grep -q "rc=3" || fail "xfabctl group add in a domU did not end 3: $out"
echo "$out" | grep -q "refused" || fail "xfabctl in a domU gave no reason: $out"
pass "xfabctl: patch missing named (5), usage (2), no domain (4), refused in a domU (3); trust relaxed/strict written; status of a stock pair; xfab-appliance errors"
