#!/bin/bash
# 402 the kernel's read-only window over a group member (patched Xen)
# Objective: xfab_window in two members maps all of the other's memory
#   read-only as soon as the toolstack puts them in a group, and each
#   finds, through its window, every page of the 4 MiB the other
#   planted, pattern intact (a checksum of each page's bytes), and every
#   window page's tag leads back to its frame. The probes take windows
#   through the drivers' API (xfab_wnprobe). A write through the window
#   faults (the write gets -EFAULT) and the owner's page is unchanged.
#   - dom0, in no group, maps nothing unasked; asked (as a backend in
#     pointer mode will ask) it maps member d1 and reads its planted
#     pages through a window that is read-only too, drops it when d1
#     leaves (after xfab_window's leave_ms; and refuses to want it
#     then), maps it again when d1 rejoins, and lets go of it when d1
#     dies, at once (no leave_ms grace for a dying domain).
#   - A window held (as an skb in flight would hold it) when its peer
#     leaves the group is unpublished at once but stays mapped and
#     readable until let go, and no second window over that peer is
#     made meanwhile; let go, it is unmapped and made again.
#   - A page of a window still referenced after the window's last
#     holder let go (as an skb's frag is, for a moment after its
#     packet's completion) keeps the dropped window mapped, its page
#     readable, until that reference goes; then it is unmapped, and
#     unmap_wait_max_ms says how long it waited (a second or more).
#   - `group remove` drops both windows, `group add` makes them again
#     (with max_total_x=1 in d2, d2 maps nothing of d1 and says why).
#   - Destroying a member while the other holds its window drops that
#     window, the dead member's memory goes back (the domain
#     disappears) and nothing leaks in the survivor (its counters:
#     every frame it ever mapped was unmapped), which then unloads the
#     module; so does dom0.
#   A microbenchmark reads 64 pages d1 granted to d2 by grant copy and
#   through d2's window (the same bytes, both ways).
#   Figures: nanoseconds per page of each, frames and milliseconds to
#   map each window, and the survivor's free memory before and after.
# Topology: dom0 (xfabctl; xfab_window and xfab_wnprobe loaded for the
#   scenario, unloaded at its end) <-> domUs d1, d2 (512 MiB, 1 vCPU, no
#   network; xfab_window and xfab_wnprobe loaded at boot; the balloon
#   may hotplug unpopulated memory, so a window costs struct pages, not
#   the mapper's RAM).
. /xfab/guest/lib.sh

xen_patched ||
	error "not the patched Xen (xl info has no -xfab in xen_extra): run with --patched-xen"
D=/sys/kernel/debug/xfab_window P=/sys/kernel/debug/xfab_wnprobe
T1=w1-$RANDOM$RANDOM T2=w2-$RANDOM$RANDOM
for d in d1 d2; do
	domu_start $d --novif --mods xfab_window,xfab_wnprobe --vcpus 1
	domu_must $d 30 "echo 1 >/proc/sys/xen/balloon/hotplug_unpopulated; mount -t debugfs none /sys/kernel/debug 2>/dev/null; cat $D/stats" >/dev/null
done
d1=$(domu_id d1) d2=$(domu_id d2)
domu_plant d1 "$T1"
domu_plant d2 "$T2"
free_before=$(domu_must d2 30 "awk '/MemFree/ { print \$2 }' /proc/meminfo") || exit $?

# window_of NAME PEER: the "windows" line of NAME's window over PEER
window_of() { domu_exec "$1" 30 "grep '^peer $2 ' $D/windows" 2>/dev/null; }
# no_window NAME PEER: NAME holds no window over PEER
no_window() { [ -z "$(window_of "$1" "$2")" ]; }
both_mapped() {
	window_of d1 "$d2" | grep -q mapped && window_of d2 "$d1" | grep -q mapped
}
wait_windows() {
	wait_for 120 both_mapped ||
		fail "windows not made within 120 s: d1: $(window_of d1 "$d2"); d2: $(window_of d2 "$d1")"
}

must xfabctl group add app d1 d2
wait_windows
for pair in "d1 $d2 $T2" "d2 $d1 $T1"; do
	set -- $pair
	line=$(window_of "$1" "$2")
	log "$1: $line"
	frames=$(echo "$line" | awk '{ print $4 }') ms=$(echo "$line" | awk '{ print $10 }')
	probe=$(echo "$line" | awk '{ print $12 }')
	figure "$1.window_frames" "$frames"
	figure "$1.window_map_ms" "$ms"
	figure "$1.window_max_probe" "$probe"
	[ "$frames" -ge 120000 ] || fail "$1's window over d$2 has $frames frames, a 512 MiB domain owns about 131072"
	# a frame is found in a few reads of the window's table (the
	# datapath looks one up per slot a peer sends)
	[ -n "$probe" ] && [ "$probe" -lt 32 ] ||
		fail "$1's window over d$2: longest lookup '$probe' slots (want under 32)"
	out=$(domu_must "$1" 120 "echo $2 $3 >$P/scan && cat $P/scan") || exit $?
	log "$1 scans d$2: $out"
	echo "$out" | grep -q "found 1024 good 1024 " ||
		fail "$1 does not read d$2's 1024 planted pages intact through its window: $out"
	echo "$out" | grep -q " tagged $frames of $frames$" ||
		fail "$1: not every page of its window over d$2 leads back to its frame: $out"
done
free_after=$(domu_must d2 30 "awk '/MemFree/ { print \$2 }' /proc/meminfo") || exit $?
figure d2.memfree_kb_before "$free_before"
figure d2.memfree_kb_after "$free_after"

# the microbenchmark: d1 grants 64 pages to d2, which reads them by
# grant copy (one batch per round) and through its window
domu_must d1 30 "echo $d2 64 >$P/offer" >/dev/null || exit $?
offer=$(domu_must d1 30 "cat $P/offer") || exit $?
out=$(domu_must d2 300 "echo '$d1 50 $offer' >$P/bench && cat $P/bench") || exit $?
log "d2 bench: $out"
set -- $out
[ "$1 $3 $5 $7 $9" = "pages rounds copy_ns window_ns equal" ] || fail "no bench line from d2: $out"
figure bench.grant_copy_ns_per_page "$6"
figure bench.window_ns_per_page "$8"
[ "${10}" = 1 ] || fail "the grant copy and the window read different bytes of the same pages: $out"

# a write through the window faults; the owner's page is unchanged
out=$(domu_must d2 30 "echo $d1 >$P/poke && cat $P/poke") || exit $?
log "d2 pokes d1: $out"
echo "$out" | grep -q "^poke -14 " || fail "a write through d2's window did not fault: $out"
set -- $out
[ "$4" = "$6" ] || fail "the page read back changed after a refused write: $out"
out=$(domu_must d2 120 "echo $d1 $T1 >$P/scan && cat $P/scan") || exit $?
echo "$out" | grep -q "found 1024 good 1024 " || fail "d1's pages changed after d2's poke: $out"

# dom0: no window unasked; asked, one over d1, read-only, every page of
# d1's plant intact. Its windows cost struct pages, not its RAM, with
# the balloon's hotplug (restored at the end).
dom0_hotplug=$(cat /proc/sys/xen/balloon/hotplug_unpopulated)
dom0_off() {
	rmmod xfab_wnprobe 2>/dev/null
	rmmod xfab_window 2>/dev/null
	echo "$dom0_hotplug" >/proc/sys/xen/balloon/hotplug_unpopulated
}
trap dom0_off EXIT
echo 1 >/proc/sys/xen/balloon/hotplug_unpopulated
mount -t debugfs none /sys/kernel/debug 2>/dev/null
load_backend xfab_window
load_backend xfab_wnprobe
dom0_has() { grep -q "^peer $1 " $D/windows; }
dom0_lacks() { ! dom0_has "$1"; }
sleep 3
[ -z "$(cat $D/windows)" ] || fail "dom0 mapped what nobody asked for: $(cat $D/windows)"
echo "$d1" >$P/want || fail "dom0 may not want d1, a member: $(dmesg | tail -n 3)"
wait_for 120 dom0_has "$d1" || fail "dom0 made no window over d1 within 120 s: $(cat $D/stats | tr '\n' ' ')"
log "dom0: $(grep "^peer $d1 " $D/windows)"
echo "$d1 $T1" >$P/scan || fail "dom0 cannot scan its window over d1"
out=$(cat $P/scan)
log "dom0 scans d$d1: $out"
f0=$(grep "^peer $d1 " $D/windows | awk '{ print $4 }')
echo "$out" | grep -q "found 1024 good 1024 tagged $f0 of $f0$" ||
	fail "dom0 does not read d1's 1024 planted pages intact, every page tagged: $out"
echo "$d1" >$P/poke && out=$(cat $P/poke)
log "dom0 pokes d1: $out"
echo "$out" | grep -q "^poke -14 " || fail "a write through dom0's window did not fault: $out"
set -- $out
[ "$4" = "$6" ] || fail "the page read back changed after dom0's refused write: $out"

# d2 holds its window over d1 while d1 leaves: unpublished, still mapped
# (reading it must not fault), not made again until let go
stat_of() { domu_exec "$1" 30 "awk '\$1 == \"$2\" { print \$2 }' $D/stats" 2>/dev/null; }
d2_draining() { [ "$(stat_of d2 windows_draining)" = "$1" ]; }
domu_must d2 30 "echo $d1 >$P/hold" >/dev/null || exit $?
must xfabctl group remove d1
wait_for 30 no_window d2 "$d1" || fail "d2 still publishes its window over d1 after group remove"
wait_for 30 dom0_lacks "$d1" || fail "dom0 still maps d1 after it left every group"
! echo "$d1" >$P/want 2>/dev/null || fail "dom0 may want d1, in no group"
grep -q "^want_refused 1$" $D/stats || fail "dom0 did not count the refused want: $(cat $D/stats | tr '\n' ' ')"
wait_for 30 d2_draining 1 || fail "d2's held window over d1 is not draining: $(stat_of d2 windows_draining)"
out=$(domu_must d2 30 "cat $P/hold; echo $d1 $T1 >$P/scan 2>&1 || echo scan refused") || exit $?
log "d2 holds d1's dropped window: $(echo "$out" | tr '\n' ' ')"
echo "$out" | grep -q "^held $d1 frames $frames first " ||
	fail "d2 cannot read the window over d1 it holds: $out"
echo "$out" | grep -q "scan refused" || fail "d2 gave out a new reference on a dropped window: $out"
must xfabctl group add app d1
d1_maps() { window_of d1 "$d2" | grep -q mapped; }
wait_for 120 d1_maps || fail "d1 made no window over d2 after group add"
no_window d2 "$d1" || fail "d2 made a second window over d1 while the first drains"
wait_for 120 dom0_has "$d1" || fail "dom0 did not map d1 again (still wanted) once it rejoined"
domu_must d2 30 "echo - >$P/hold" >/dev/null || exit $?
wait_for 30 d2_draining 0 || fail "d2's window over d1 still draining after it was let go"
wait_windows

# d2 keeps a reference on a page of its window over d1, none on the
# window, while d1 leaves: the window drains but is not unmapped (the
# page stays readable) until the page is let go
d2_waited() { [ "$(stat_of d2 unmap_waited)" = "$1" ]; }
waited=$(stat_of d2 unmap_waited)
[ -n "$waited" ] || fail "d2's xfab_window has no unmap_waited counter"
domu_must d2 30 "echo $d1 >$P/pin" >/dev/null || exit $?
must xfabctl group remove d1
wait_for 30 no_window d2 "$d1" || fail "d2 still publishes its window over d1 after group remove"
wait_for 30 d2_waited $((waited + 1)) ||
	fail "d2 unmapped its window over d1 under a page reference (unmap_waited $(stat_of d2 unmap_waited), draining $(stat_of d2 windows_draining))"
sleep 1
d2_draining 1 || fail "d2's window over d1, one page still referenced, is not draining: $(stat_of d2 windows_draining)"
out=$(domu_must d2 30 "cat $P/pin") || exit $?
log "d2 pins a page of d1's dropped window: $out"
echo "$out" | grep -q "^pinned $d1 first " || fail "d2 cannot read the page it pinned: $out"
domu_must d2 30 "echo - >$P/pin" >/dev/null || exit $?
wait_for 30 d2_draining 0 || fail "d2's window over d1 still draining after its page was let go"
# the wait is counted as long as it was: the page was held a second or more
max=$(stat_of d2 unmap_wait_max_ms)
[ "${max:-0}" -ge 1000 ] || fail "d2's longest unmap wait is ${max:-missing} ms: the pinned page was held over a second"
must xfabctl group add app d1
wait_windows

# out of the group: both windows go; back in: both come again, but
# first with d2 bounded to map at most its own RAM in all (max_total_x
# 1): d1's 512 MiB and the slack of a scan are past that, so d2 maps
# nothing and says why, while d1 maps d2 as before
regroup() {
	must xfabctl group remove d1
	wait_for 30 no_window d1 "$d2" && wait_for 30 no_window d2 "$d1" ||
		fail "windows kept after group remove"
	must xfabctl group add app d1
}
MTX=/sys/module/xfab_window/parameters/max_total_x
domu_must d2 30 "echo 1 >$MTX" >/dev/null || exit $?
regroup
wait_for 120 d1_maps || fail "d1 made no window over d2 after group add"
out=$(domu_must d2 60 "for i in \$(seq 30); do dmesg | grep -q 'not mapped: windows would map' && break; sleep 1; done; dmesg | grep 'xfab_window: d$d1'; grep too_big $D/stats") || exit $?
log "d2 with max_total_x=1: $out"
echo "$out" | grep -q "d$d1 (5[0-9][0-9] MiB) not mapped: windows would map .* over max_total_x=1 times our" ||
	fail "d2 gave no reason for not mapping d1 past max_total_x=1: $out"
echo "$out" | grep -q "^too_big 1$" || fail "d2 did not count the peer past its bound: $out"
no_window d2 "$d1" || fail "d2 mapped d1 past max_total_x=1: $(window_of d2 "$d1")"
domu_must d2 30 "echo 8 >$MTX" >/dev/null || exit $?
regroup
wait_windows

# d1 destroyed while d2 holds its window: d2 lets go, d1 goes away whole;
# dom0 drops its window at once, not after the grace a domain that left
# its group gets (a dying one is out of its group before it is gone)
dom0_graces() { awk '$1 == "leave_graces" { print $2 }' $D/stats; }
graces=$(dom0_graces)
must domu_destroy d1
wait_for 30 no_window d2 "$d1" || fail "d2 still holds a window over the destroyed d1"
wait_for 30 dom0_lacks "$d1" || fail "dom0 still holds a window over the destroyed d1"
[ "$(dom0_graces)" = "$graces" ] ||
	fail "dom0 kept its window over the dying d1 as over one that left its group (leave_graces $graces -> $(dom0_graces))"
wait_for 30 dom_gone "$d1" ||
	fail "d1 (domid $d1) still listed 30 s after its destroy: its memory is held ($(xl list | tr '\n' ' '))"
stats=$(domu_must d2 30 "cat $D/stats; rmmod xfab_wnprobe && rmmod xfab_window && echo unloaded") || exit $?
log "d2: $(echo "$stats" | tr '\n' ' ')"
echo "$stats" | grep -q unloaded || fail "xfab_window would not unload in d2"
echo "$stats" | grep -q "^drop_dead [1-9]" || fail "d2 did not count the dead peer's window: $stats"
echo "$stats" | grep -q "^list_refused 0$" ||
	fail "d2 tried to map a peer it could not (the dead d1 its record still named?): $stats"
mapped=$(echo "$stats" | awk '$1 == "frames_mapped" { print $2 }')
unmapped=$(echo "$stats" | awk '$1 == "frames_unmapped" { print $2 }')
[ -n "$mapped" ] && [ "$mapped" = "$unmapped" ] ||
	fail "d2 mapped $mapped frames over its windows' lives and unmapped $unmapped"
# dom0 lets go and unloads; everything it mapped it unmapped
echo "$d1" >$P/unwant || fail "dom0's want of d1 is gone before its unwant"
out=$(cat $D/stats)
rmmod xfab_wnprobe && rmmod xfab_window || fail "xfab_window would not unload in dom0"
log "dom0: $(echo "$out" | tr '\n' ' ')"
mapped=$(echo "$out" | awk '$1 == "frames_mapped" { print $2 }')
unmapped=$(echo "$out" | awk '$1 == "frames_unmapped" { print $2 }')
[ "${mapped:-0}" -gt 0 ] && [ "$mapped" = "$unmapped" ] ||
	fail "dom0 mapped $mapped frames over its windows' lives and unmapped $unmapped"
pass "windows of $frames frames made in ${ms} ms; 1024/1024 planted pages intact both ways, every page tagged; write faults; a held window, or one page of it, outlives its drop until let go; dom0 maps a member only when asked and while it is one; dropped on remove and on the peer's death, which then went away whole"
