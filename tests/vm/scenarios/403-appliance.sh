#!/bin/bash
# 403 xfab-appliance: an appliance up and down from its file (patched Xen)
# Objective: `xfab-appliance up` brings up two domUs named in a file: it
#   creates them paused, puts both in the group, sets
#   the trust key of a1's vif while a1 is paused (so a1's xfab_netfront
#   reads it when it connects: its TX is granted in place), and unpauses.
#   `xfabctl status` then shows a1's vif as xfab with pools, relaxed, in
#   group app, and the appliance's `status --json` is one JSON object
#   naming the two members. `up` of a running appliance is refused, and
#   so is a file naming dom0 as a member (2, with the reason: a domain
#   with rights over others never joins, xen-patches/README.md).
#   `down` takes every member out of the group, shuts the domUs down
#   (they power off when asked, none is destroyed) and leaves no group
#   record. Two failed bring-ups undo themselves: an xl config
#   that does not start (the first member, already created, goes) and
#   a group that cannot be joined (an xfabctl whose join fails: both
#   created members go, exit 1 with xfabctl's reason).
# Topology: dom0 (xfab_netback, xenbr0 10.0.0.1/24, xfab-appliance) <->
#   a1 (xfab_netfront, 10.0.0.2/24, 1 vCPU), a2 (no network, 1 vCPU).
. /xfab/guest/lib.sh
. /xfab/guest/net.sh

xen_patched ||
	error "not the patched Xen (xl info has no -xfab in xen_extra): run with --patched-xen"
net_use_backend xfab_netback
A=$W/appliance
mkdir -p "$A"

domu_cfg "$A/a1.cfg" xfab_netfront 10.0.0.2/24 "" "vcpus = 1" \
	"vif = [ 'mac=00:16:3e:00:00:02,bridge=xenbr0' ]"
domu_cfg "$A/a2.cfg" xen-blkfront "" "" "vcpus = 1" "vif = [ ]"
sed 's|^kernel = .*|kernel = "/nonexistent/vmlinux"|' "$A/a2.cfg" >"$A/broken.cfg"
cat >"$A/app.appliance" <<EOF
# scenario 403's appliance
appliance app
member a1 a1.cfg     # relative to this file
member a2 $A/a2.cfg
trust a1 vif/0 relaxed
EOF
printf 'appliance bad\nmember a1 a1.cfg\nmember b2 broken.cfg\n' >"$A/bad.appliance"
printf 'appliance d0\nmember dom0\nmember a1 a1.cfg\nmember a2 a2.cfg\n' >"$A/dom0.appliance"
# an xfabctl whose joins fail as the hypervisor's refusal would
cat >"$A/xfabctl-nojoin" <<'EOF'
#!/bin/bash
if [ "${1:-} ${2:-}" = "group add" ]; then
	echo "xfabctl: domain 4242 is in another group; remove it first" >&2
	exit 1
fi
exec xfabctl "$@"
EOF
chmod +x "$A/xfabctl-nojoin"
domu_expect a1 xfab
domu_expect a2
# nothing_left: no member domain, no group record, dom0 in no group
nothing_left() {
	local n
	for n in a1 a2 b2; do
		dom_gone $n || fail "$1: domain $n is still there: $(xl list)"
	done
	xenstore-read /xfab/groups/app/id >/dev/null 2>&1 && fail "$1: group app still recorded"
	xenstore-read /local/domain/0/xfab/group >/dev/null 2>&1 &&
		fail "$1: dom0 is still in group $(xenstore-read /local/domain/0/xfab/group)"
	return 0
}

must xfab-appliance check "$A/app.appliance" >/dev/null
appliance_run 2 check "$A/dom0.appliance"
echo "$out" | grep -q "dom0.appliance:2: dom0 may not be a member: it has rights over every domain" ||
	fail "a file with dom0 as a member: no reason given: $out"

# 1. a member that does not start: the one created before it goes
appliance_run 1 up "$A/bad.appliance"
echo "$out" | grep -q "xl create of b2 failed" || fail "no reason given for the failed up: $out"
nothing_left "after the broken config"

# 2. a group that cannot be joined: both created members go
export XFABCTL=$A/xfabctl-nojoin
appliance_run 1 up "$A/app.appliance"
unset XFABCTL
echo "$out" | grep -q "domain 4242 is in another group" || fail "xfabctl's reason not passed on: $out"
dom_gone a1 && dom_gone a2 || fail "members left after the failed join: $(xl list)"
nothing_left "after the failed join"

# 3. up for real
t0=$SECONDS
appliance_run 0 up "$A/app.appliance"
figure up_secs $((SECONDS - t0))
for n in a1 a2; do
	domu_wait_ready $n "$(domu_id $n)"
done
a1=$(domu_id a1) a2=$(domu_id a2)
appliance_run 1 up "$A/app.appliance"
echo "$out" | grep -q "already runs" || fail "a second up gave no reason: $out"

out=$(must xfabctl group show app --json) || exit $?
python3 -c '
import json, sys
rows = json.loads(sys.argv[1])
got = sorted((r["domid"], r["state"]) for r in rows)
want = sorted((int(d), "member") for d in sys.argv[2:])
sys.exit(0 if got == want else "group app: %s, want %s" % (got, want))
' "$out" "$a1" "$a2" || fail "xfabctl group show app --json: $out"
[ "$(xenstore-read "/local/domain/$a1/device/vif/0/xfab-trust")" = relaxed ] ||
	fail "a1's vif/0 has no xfab-trust=relaxed"
out=$(domu_must a1 30 "dmesg | grep 'backend /local/domain/0/backend/vif'") || exit $?
echo "$out" | grep -q "granted in place (relaxed trust)" ||
	fail "a1's xfab_netfront did not take the trust set while it was paused: $out"
must ping -c 3 -i 0.2 -W 5 10.0.0.2 >/dev/null
status_check "$a1" vif/0 xfab_netfront xfab_netback pool relaxed \
	'rx_packets>0' 'tx_packets>0'

out=$(must xfab-appliance status "$A/app.appliance" --json) || exit $?
python3 -c '
import json, sys
s = json.loads(sys.argv[1])
m = {x["name"]: x for x in s["members"]}
assert s["appliance"] == "app", s["appliance"]
assert len(s["group"]) == 2, s["group"]
assert sorted(m) == ["a1", "a2"], sorted(m)
assert [d["dev"] for d in m["a1"]["devices"]] == ["vif/0"], m["a1"]
assert m["a2"]["devices"] == [], m["a2"]
' "$out" || fail "xfab-appliance status --json: $out"
log "xfab-appliance status --json: ok"

# 4. down
t0=$SECONDS
appliance_run 0 down "$A/app.appliance" --timeout 30
figure down_secs $((SECONDS - t0))
# the testbed's domUs power off when asked (domu-init): none destroyed
echo "$out" | grep -q "destroying it" && fail "a member did not shut down when asked: $out"
sed -i '/^a[12]$/d' "$W/expected-domains"
nothing_left "after down"
[ -z "$(xenstore-ls /xfab/groups 2>/dev/null)" ] || fail "group records left: $(xenstore-ls /xfab)"
pass "xfab-appliance: up (paused create, group, trust, unpause), status, refused twice, down; two failed ups undone"
