#!/bin/bash
# 401 appliance groups in the hypervisor (needs xen-patches/: patched boot)
# Objective: what xen-patches/ allows and refuses, seen from the domains.
#   d1 plants 4 MiB of pages that start with a token and go on with a
#   pattern; d2, in d1's group, lists d1's frames (the group domctl), maps
#   every one read-only and finds every planted page, pattern intact; a writable mapping of d1's page is refused;
#   d3, in no group, may neither list nor map d1's frames; dom0 may not
#   join (xfabctl says why, the raw domctl is refused by the hypervisor),
#   and d2 cannot map a page d3 planted whichever owner it names (d3,
#   dom0 or member d1: xen-patches/0003's rules); a domU may
#   not change groups (the domctl refuses it, xfabctl ends 3); after
#   `xfabctl group remove` d2 may no longer map d1; two xfabctl runs at
#   once keep both members, and two groups made at once get two ids (d2
#   in one cannot map d1 in the other); destroyed, d1 leaves
#   the group, stays a zombie while d2 holds one of its pages mapped
#   (`group show` says so), and goes away whole once d2 lets go. The
#   records members may read are theirs to read, not to write.
#   Figures: frames listed and the time to map them all.
# Topology: dom0 (xfabctl), domUs d1 and d2 (group "app")
#   and d3 (no group), 512 MiB each (the initramfs they boot from does not
#   unpack in 256); no network: xen-privcmd is all the probe needs, with
#   unrestricted=1 (Linux 6.12 limits a domU's privcmd to the domain it
#   is a device model for, so the hypervisor's answers are never seen).
. /xfab/guest/lib.sh

xen_patched ||
	error "not the patched Xen (xl info has no -xfab in xen_extra): run with --patched-xen"
TOKEN=xfab-401-$RANDOM$RANDOM
for d in d1 d2 d3; do
	domu_start $d --novif --mods xen-privcmd --vcpus 1 --kargs xen_privcmd.unrestricted=1
done
d1=$(domu_id d1) d2=$(domu_id d2) d3=$(domu_id d3)

must xfabctl group add app d1 d2
js=$(must xfabctl group show app --json) || exit $?
for d in $d1 $d2; do
	echo "$js" | grep -q "\"domid\":$d,[^}]*\"state\":\"member\"" ||
		fail "group show --json does not list d$d as a member: $js"
done
[ "$(xenstore-read "/local/domain/$d2/xfab/members")" = "$d1 $d2" ] ||
	fail "d2's record lists members '$(xenstore-read "/local/domain/$d2/xfab/members")'"

# the records: readable by the member, not writable
out=$(domu_exec d2 60 "xenstore-read /local/domain/$d2/xfab/group; xenstore-write /local/domain/$d2/xfab/group evil; echo rc=\$?")
echo "$out" | head -n 1 | grep -qx app || fail "d2 cannot read its group record: $out"
echo "$out" | grep -q "rc=0" && fail "d2 could rewrite its group record"

domu_plant d1 "$TOKEN"

# a member maps all of d1 read-only and finds every planted page
out=$(domu_must d2 300 "xfab-peek scan $d1 $TOKEN") || exit $?
log "d2 scans d1: $out"
set -- $(echo "$out" | grep -o 'scan frames [0-9]* mapped [0-9]* failed [0-9]* found [0-9]* good [0-9]* map_ms [0-9]*' |
	awk '{ print $3, $5, $7, $9, $13, $11 }')
[ $# = 6 ] || fail "no scan line from d2: $out"
figure frames_listed "$1"
figure frames_mapped "$2"
figure map_ms "$5"
[ "$4" = 1024 ] || fail "d2 found $4 of d1's 1024 planted pages ($out)"
[ "$6" = 1024 ] || fail "of d1's 1024 planted pages, $6 read back intact through d2's mappings ($out)"
[ "$1" -ge 120000 ] || fail "d1's frames: $1 listed, a 512 MiB domain owns about 131072"
[ "$3" -le $(($1 / 100)) ] || fail "$3 of d1's $1 frames would not map read-only"

mfn=$(xfabctl group frames "$d1" --list | sed -n 100p)
[ -n "$mfn" ] || fail "xfabctl group frames listed no frames of d1"
out=$(domu_must d2 60 "xfab-peek map $d1 $mfn ro; xfab-peek map $d1 $mfn rw") || exit $?
echo "$out" | grep -q "map ro ok" || fail "a member's read-only map of $mfn failed: $out"
echo "$out" | grep -q "map rw refused" || fail "a member mapped d1's page writable: $out"

# a non-member: no listing, no mapping
out=$(domu_must d3 60 "xfab-peek scan $d1 $TOKEN; xfab-peek map $d1 $mfn ro") || exit $?
echo "$out" | grep -q "frames refused 1" || fail "a non-member listed d1's frames: $out"
echo "$out" | grep -q "map ro refused" || fail "a non-member mapped d1's page: $out"

# who may be a member (xen-patches/0003): dom0 has rights over every
# domain, so it may not join, by xfabctl (2, with the reason) or by the
# raw domctl (the hypervisor's own answer); and whatever name a member
# gives as the owner of d3's planted page (d3, dom0, a member), it
# cannot map it. On a Xen without 0003 the raw join succeeds and d2
# reads d3's page by naming dom0, which this reports as the leak it is.
domu_plant d3 "$TOKEN-d3"
out=$(must xfab-peek find "$d3" "$TOKEN-d3") || exit $?
mfn3=$(echo "$out" | awk '$1 == "found" { print $2 }')
[ -n "$mfn3" ] || fail "dom0 found none of d3's planted pages: $out"
out=$(xfabctl group add app 0 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "domain 0 may not join a group: it has rights over other domains" ||
	fail "xfabctl group add app 0: exit $rc, not 2 with the reason: $out"
gid=$(must xenstore-read /xfab/groups/app/id) || exit $?
joined=$(must xfab-peek join 0 "$gid") || exit $?
log "raw join of dom0 to group $gid: $joined"
out=$(domu_must d2 60 "for o in $d3 0 $d1; do echo owner \$o; xfab-peek map \$o $mfn3 ro $TOKEN-d3; done") || exit $?
log "d2 maps d3's planted frame $mfn3: $out"
[ "$joined" = "join ok" ] && must xfabctl group remove 0 >/dev/null
echo "$out" | grep -q "token seen" &&
	fail "d2 read d3's planted page (d3 is in no group) by naming another owner: $out"
[ "$(echo "$out" | grep -c "map ro refused")" = 3 ] ||
	fail "d2 mapped d3's frame $mfn3 under some owner's name: $out"
echo "$joined" | grep -q "join refused 95" ||
	fail "the hypervisor let dom0 join group $gid ($joined), not EOPNOTSUPP"

# the domctl is the control domain's (xfabctl ends 3 in a domU)
out=$(domu_exec d2 60 "xfabctl group add evil $d3; echo rc=\$?; xfabctl group remove $d1; echo rc=\$?")
[ "$(echo "$out" | grep -c 'rc=3')" = 2 ] || fail "a domU changed groups: $out"
out=$(domu_exec d3 60 "xfabctl group frames $d1; echo rc=\$?")
echo "$out" | grep -q "rc=3" || fail "xfabctl group frames in a non-member did not end 3: $out"

# out of the group: mapping refused
must xfabctl group remove d1
out=$(domu_must d2 60 "xfab-peek map $d1 $mfn ro") || exit $?
echo "$out" | grep -q "map ro refused" || fail "d2 still maps d1 after group remove: $out"
[ "$(xenstore-read "/local/domain/$d2/xfab/members")" = "$d2" ] || fail "d2's members record not updated"

# xfabctl runs at once (xl's hotplug scripts start one per domain): each
# reads the records it changes in its own transaction, so neither drops
# the other's member, and two groups created at once get two ids (one id
# would be one group to the hypervisor: d2 would map d1)
must xfabctl group remove d2 >/dev/null
both=$(printf '%s\n' "$d1" "$d2" | sort -n | xargs)
for round in 1 2 3 4; do
	xfabctl group add app d1 >/tmp/401-a.log 2>&1 & a=$!
	xfabctl group add app d2 >/tmp/401-b.log 2>&1 & b=$!
	wait $a || fail "concurrent group add app d1 failed: $(cat /tmp/401-a.log)"
	wait $b || fail "concurrent group add app d2 failed: $(cat /tmp/401-b.log)"
	m=$(xenstore-read /xfab/groups/app/members)
	[ "$(echo $m | tr ' ' '\n' | sort -n | xargs)" = "$both" ] ||
		fail "round $round: two group adds at once left members '$m', not $both"
	must xfabctl group remove d1 d2 >/dev/null
	xfabctl group add g1 d1 >/tmp/401-a.log 2>&1 & a=$!
	xfabctl group add g2 d2 >/tmp/401-b.log 2>&1 & b=$!
	wait $a || fail "concurrent group add g1 d1 failed: $(cat /tmp/401-a.log)"
	wait $b || fail "concurrent group add g2 d2 failed: $(cat /tmp/401-b.log)"
	g1=$(xenstore-read /xfab/groups/g1/id) g2=$(xenstore-read /xfab/groups/g2/id)
	[ -n "$g1" ] && [ "$g1" != "$g2" ] ||
		fail "round $round: groups g1 and g2, created at once, have ids '$g1' and '$g2'"
	out=$(domu_must d2 60 "xfab-peek map $d1 $mfn ro") || exit $?
	echo "$out" | grep -q "map ro refused" ||
		fail "round $round: d2 (group g2) maps d1 (group g1): $out"
	must xfabctl group remove d1 d2 >/dev/null
done
out=$(must xfabctl group show) || exit $?
[ "$(echo "$out" | wc -l)" = 1 ] || fail "groups outlived their members: $out"
must xfabctl group add app d2 >/dev/null

# destroyed: out of the group, gone whole
must xfabctl group add app d1
out=$(domu_must d2 60 "xfab-peek map $d1 $mfn ro") || exit $?
echo "$out" | grep -q "map ro ok" || fail "d1 back in the group, d2 cannot map it: $out"
# d2 holds one of d1's pages mapped (a tool in a member) across d1's
# destroy: d1 stays a zombie, which group show names, until d2 lets go
out=$(domu_must d2 60 "xfab-peek hold $d1 $mfn 600 >/tmp/hold.log 2>&1 </dev/null & echo \$! >/tmp/hold.pid; sleep 2; cat /tmp/hold.log") || exit $?
echo "$out" | grep -q "^held" || fail "d2 could not hold d1's page mapped: $out"
must domu_destroy d1
out=$(domu_must d2 60 "xfab-peek map $d1 $mfn ro") || exit $?
echo "$out" | grep -q "map ro refused" || fail "d2 maps a destroyed d1's frame: $out"
# group show's columns: group id domid name state pages
d1_line() { xfabctl group show app | awk -v d="$d1" '$3 == d'; }
zombie() { d1_line | awk '$5 == "zombie"' | grep -q .; }
wait_for 20 zombie || fail "group show does not name the held d1 a zombie: $(xfabctl group show app)"
log "held by d2's mapping: $(d1_line)"
domu_must d2 30 'kill $(cat /tmp/hold.pid)' >/dev/null || exit $?
wait_for 20 dom_gone "$d1" ||
	fail "d1 (domid $d1) still listed 20 s after d2 let go of its page: $(xl list)"
out=$(must xfabctl group show app) || exit $?
d1_line | awk '$5 == "gone"' | grep -q . || fail "group show does not say d1 is gone: $out"
must xfabctl group remove d2
out=$(must xfabctl group show) || exit $?
[ "$(echo "$out" | wc -l)" = 1 ] || fail "group app outlived its members: $out"
xenstore-exists "/local/domain/$d1" && fail "xfabctl wrote records for the destroyed d1"
pass "members map each other read-only (1024/1024 planted pages found in $1 frames, $5 ms); writable, non-member, a non-member's page under any owner's name, dom0 joining, after remove, after destroy: refused; domUs cannot change groups"
