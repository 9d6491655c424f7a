#!/bin/bash
# 404 guest TX by pointer into dom0 (patched Xen; docs/pointer-mode.md)
# Objective: two members of one appliance group, both in relaxed trust,
#   send TX by pointer: their xfab_netfront puts its own frames in the
#   TX slots, and dom0's xfab_netback reads the payload through
#   xfab_window's window over the member, answering each slot only once
#   the stack let go of its pages (late completion).
#   - Negotiation: dom0's backend offers feature-xfab-ptr=1 in its vif
#     directory (it has xfab_window) and each member's frontend answers
#     xfab-ptr=1 in its own; dom0 then holds a window over each member.
#   - d1 -> dom0, 64 MiB, sha256 at both ends: d1 sent at least 60 MiB
#     by pointer (tx_ptr_bytes) and dom0 took at least 60 MiB so
#     (txr_ptr_bytes); dom0 made under 1000 grant copies (txr_copy_ops)
#     and d1 under 512 grants (tx_grants) and 64 bounces (tx_bounced),
#     where 64 MiB granted in place takes 16,384 grants and copies and
#     by the bounce pool a bounce a packet; some slots were answered
#     late (txr_ptr_late_done); no slot was refused for want of a window
#     or for its span (txr_ptr_no_window, txr_ptr_bad_span) or for a
#     mode not negotiated (txr_drop_ptr_refused). Then every TX slot of
#     d1 is answered (its queues have none in flight, xfab_netfront's
#     debugfs) and a second stream of 4 MiB goes through.
#   - d1 -> d2 through dom0's bridge, 32 MiB, sha256 at both ends: at
#     least 30 MiB of it sent by pointer, and passed on to d2 by
#     reference (RX pointer mode): d2 loads xfab_window at boot, so its
#     frontend answers xfab-ptr-rx=1 (d1, without the module, 0), and
#     once d2's window maps d1, dom0 puts d1's frames in d2's RX slots
#     instead of copying: at least 28 MiB by reference (d2's vif
#     rxr_ref_bytes, d2's rx_ref_bytes), under 4 MiB copied into d2's
#     pool by dom0 (rxr_pool_bytes: headers only), no reference d2
#     could not read (rx_drop_ref), the references taken back
#     (rxr_ref_taken) and every TX slot of d1 answered.
#   - LRO of packets sent by reference: d1 with TSO and GSO off sends
#     16 MiB to dom0, at least 15 MiB of it by pointer, merged by
#     dom0's LRO (some merged packets, 4 or more segments each), then
#     8 MiB to d2, whose vif takes GSO packets (the merged packets
#     reach its ring whole); sha256 at both ends, every slot answered.
#   - The age limit: d1 sends UDP to d2 (netperf UDP_STREAM, 8 s, an
#     8 MiB socket buffer) and d2 is paused after 1 s: d1's packets
#     wait in dom0 by reference (d2's ring, then its backlog). From 2 s
#     after the pause, while d1 pings dom0 5 times (the pings get
#     through), the flood's packets are copied because the oldest one
#     waited over ptr_age_ms (1 s): txr_ptr_aged grows by 5 or more.
#     Unpaused, d2 takes what waits and every TX slot of d1 is
#     answered.
#   - dom0 -> d1, 16 MiB, sha256 at both ends: the unchanged RX path.
#   - d1's memory grows (xl mem-set 512 -> 640 MiB; maxmem 640):
#     dom0's xfab_window remakes its window over d1 when d1's page
#     count changed (refresh_ms, 1 s for the step), and so does d2's:
#     within 60 s both windows map at least 30,000 frames more, the
#     old window drained behind the new one and went (its "older" mark
#     gone), stat refreshes grew. Then d1 -> dom0 16 MiB and d1 -> d2
#     8 MiB, sha256 at both ends, still go by pointer and by reference
#     with nothing refused (txr_ptr_no_window, txr_ptr_bad_span, d2's
#     rx_drop_ref 0). Back to 512 MiB (the frames given back stay held
#     by the windows, a documented limit), 4 MiB d1 -> dom0 still goes
#     by pointer, nothing refused.
#   - d2 leaves the group in the middle of a 32 MiB stream to dom0: the
#     stream arrives intact, d2's frontend says it left and grants its
#     TX in place from then on (tx_grants grows). dom0 keeps its window
#     over d2 for xfab_window's leave_ms (set to 30 s for the step):
#     the window is marked leaving, and no pointer slot of d2 is
#     dropped for want of one (txr_ptr_no_window). With leave_ms back at
#     its default the window goes.
#   - d2 destroyed: it goes away whole (dom0's window lets go).
#   - A hostile member h1 (xfab_hostile, tests/hostile/vif.c, in the
#     group) sends one-slot frames by pointer on a vif of its own: its
#     own frame with xfab-ptr=1 (ptr_valid, the control: all answered
#     OKAY, late), its own frame without xfab-ptr (ptr_unasked:
#     txr_drop_ptr_refused), a frame nobody has (ptr_bad_frame) and a
#     frame of d1's planted pages, which dom0 maps in its window over d1
#     (ptr_other): each refused with an error, counted
#     (txr_ptr_bad_span), nothing sent up by reference, the vif up.
#   - d3, not a member, relaxed trust too: the backend offers the mode
#     as to anyone, but d3's frontend does not take it (no xfab-ptr=1),
#     and dom0 maps nothing of d3; 16 MiB d3 -> dom0 intact, granted in
#     place as before (over 2048 grants), nothing by pointer.
#   - d1 destroyed in the middle of a 64 MiB stream (once pointer slots
#     are flowing): its vif and domain go away whole, xfab_netback's
#     debugfs summary is all zero, dom0's kernel logs no splat, dom0's
#     window over d1 is gone, then xfab_netback and after it
#     xfab_window unload (their references released), xfab_window
#     having unmapped every frame it mapped.
#   Sizes: 64 + 4 + 16 MiB d1 -> dom0, 32 + 8 MiB d1 -> d2, 16 MiB dom0 -> d1,
#   32 MiB d2 -> dom0, 16 MiB d3 -> dom0, and the 64 MiB stream cut by
#   the destroy (about 255 MiB in all: 1-3 minutes at this testbed's
#   20-120 Mbit/s).
#   Figures: each stream's rate, the counters above per stream.
# Topology: dom0 (xfab_window, then xfab_netback, both loaded for the
#   scenario and unloaded at its end; bridge xenbr0 10.0.0.1/24; the
#   balloon may hotplug unpopulated memory, so dom0's windows cost
#   struct pages, not its RAM) <-> d1 (xfab_netfront, 10.0.0.2/24,
#   2 vCPUs) and d2 (xfab_window and xfab_netfront, its balloon
#   allowed to hotplug, 10.0.0.3/24, 1 vCPU), group "ptr"
#   from an appliance file (`trust dN vif/0 relaxed` each), then d3
#   (xfab_netfront, 10.0.0.4/24, 1 vCPU, no group, trust relaxed while
#   paused); 512 MiB each, three at most at once.
. /xfab/guest/lib.sh
. /xfab/guest/net.sh
. /xfab/guest/hostile.sh

xen_patched ||
	error "not the patched Xen (xl info has no -xfab in xen_extra): run with --patched-xen"
DIAG=net_diag
D=$NET_WN
# the counters read, totals over the vif's queues (ethtool -S)
BE_KEYS="txr_ptr_packets txr_ptr_bytes txr_ptr_late_done txr_ptr_stack_copied
	txr_ptr_fallback txr_ptr_aged txr_ptr_no_window txr_ptr_bad_span txr_drop_ptr_refused
	txr_copy_ops txr_pool_bytes txr_packets"
FE_KEYS="tx_ptr_slots tx_ptr_bytes tx_grants tx_bounced"
declare -A ctr b0 b1 f0 f1 nr r0 r1 g0 g1

# dom0's windows cost struct pages, not its RAM (restored at the end);
# xfab_window goes in before xfab_netback (which uses it) and out after
dom0_hotplug=$(cat /proc/sys/xen/balloon/hotplug_unpopulated)
ptr_off() {
	rmmod xfab_wnprobe 2>/dev/null
	rmmod xfab_netback 2>/dev/null
	rmmod xfab_window 2>/dev/null
	echo "$dom0_hotplug" >/proc/sys/xen/balloon/hotplug_unpopulated
}
trap ptr_off EXIT
# a scenario before may have left xfab_netback loaded without the window
# (its guests' vifs go with the runner's clean-up, which may still run)
if lsmod | grep -q '^xfab_netback '; then
	wait_for 30 sh -c '! ls /sys/class/net | grep -q "^vif"'
	must rmmod xfab_netback
fi
net_ptr_dom0
net_use_backend xfab_netback

dom0_maps_none() { [ -z "$(cat $D/windows)" ]; }

# pick_counters TEXT KEYS ARRAY WHERE: counters KEYS of ethtool -S output
# TEXT (read from WHERE) into ARRAY; fails on a counter that is missing
pick_counters() {
	local -n into=$3
	local k
	counters_of "$1"
	into=()
	for k in $2; do
		[ -n "${ctr[$k]:-}" ] ||
			fail "$4 has no counter $k (a driver without pointer mode?)"
		into[$k]=${ctr[$k]}
	done
}
# be_read DOMID ARRAY [KEYS]: dom0's vif counters of KEYS (BE_KEYS) into
# ARRAY
be_read() {
	pick_counters "$(ethtool -S "vif$1.0")" "${3:-$BE_KEYS}" "$2" "dom0's vif$1.0"
}
# fe_read NAME ARRAY [KEYS]: the guest's eth0 counters of KEYS (FE_KEYS)
# into ARRAY
fe_read() {
	local out keys=${3:-$FE_KEYS}
	out=$(domu_must "$1" 30 "ethtool -S eth0 | grep -E '^ *(${keys// /|}):'") || exit $?
	pick_counters "$out" "$keys" "$2" "$1's eth0"
}
# delta BEFORE AFTER KEY: how much counter KEY grew between two reads
delta() {
	local -n x=$1 y=$2
	echo $((${y[$3]} - ${x[$3]}))
}
# tx_settled NAME: within 15 s, no queue of the guest's eth0 has a TX
# slot in flight (every one answered); prints the queues' TX lines
tx_settled() {
	domu_exec "$1" 60 'for i in $(seq 30); do
		l=$(grep -h "^tx: ids in flight" /sys/kernel/debug/xfab_netfront/eth0/q* 2>/dev/null)
		[ -n "$l" ] && ! echo "$l" | grep -qv "in flight 0," && break
		sleep 0.5; done; echo "${l:-no queue dump}"
		[ -n "$l" ] && ! echo "$l" | grep -qv "in flight 0,"'
}
# no_refusals DOMID: nothing of the vif's TX refused, ever (absolute)
no_refusals() {
	be_read "$1" nr
	[ "${nr[txr_ptr_no_window]}" = 0 ] && [ "${nr[txr_ptr_bad_span]}" = 0 ] &&
		[ "${nr[txr_drop_ptr_refused]}" = 0 ] ||
		fail "vif$1.0 refused pointer slots ($2): txr_ptr_no_window=${nr[txr_ptr_no_window]} txr_ptr_bad_span=${nr[txr_ptr_bad_span]} txr_drop_ptr_refused=${nr[txr_drop_ptr_refused]} (want 0 each)"
}

# ---- the appliance: d1 and d2 members, both vifs relaxed ----
A=$W/ptr
mkdir -p "$A"
domu_cfg "$A/d1.cfg" xfab_netfront 10.0.0.2/24 "" "vcpus = 2" "maxmem = 640" \
	"vif = [ 'mac=00:16:3e:00:00:02,bridge=xenbr0' ]"
domu_cfg "$A/d2.cfg" xfab_window,xfab_netfront 10.0.0.3/24 "" "vcpus = 1" \
	"vif = [ 'mac=00:16:3e:00:00:03,bridge=xenbr0' ]"
cat >"$A/ptr.appliance" <<EOF
# scenario 404's appliance
appliance ptr
member d1 d1.cfg
member d2 d2.cfg
trust d1 vif/0 relaxed
trust d2 vif/0 relaxed
EOF
domu_expect d1 xfab
domu_expect d2 xfab
appliance_run 0 up "$A/ptr.appliance"
for n in d1 d2; do
	domu_wait_ready $n "$(domu_id $n)"
done
d1=$(domu_id d1) d2=$(domu_id d2)

for pair in "d1 $d1" "d2 $d2"; do
	set -- $pair
	[ "$(xenstore-read "/local/domain/$2/device/vif/0/xfab-trust" 2>/dev/null)" = relaxed ] ||
		fail "$1's vif/0 has no xfab-trust=relaxed after xfab-appliance up"
	wait_for 30 net_ptr_on "$2" ||
		fail "$1 (domid $2) did not negotiate pointer mode: backend feature-xfab-ptr, frontend xfab-ptr: $(net_ptr_keys "$2") (want 1 1; dom0's xfab_window: $(grep '^want_refused' $D/stats))"
	wait_for 60 net_wn_maps "$2" ||
		fail "dom0 holds no window over member $1 (domid $2) 60 s after it connected in pointer mode: $(tr '\n' ' ' <$D/stats)"
	log "$1: feature-xfab-ptr, xfab-ptr: $(net_ptr_keys "$2"); dom0: $(grep "^peer $2 " $D/windows)"
done
xs_features "$d1"
# RX by reference: d2 loaded xfab_window at boot (its init lets the
# balloon hotplug first, so that its window over d1 costs struct pages,
# not its RAM), so its frontend asks for references; d1 has no window
d2_window() { domu_exec d2 30 "grep '^peer $d1 ' $D/windows" 2>/dev/null | grep -q mapped; }
wait_for 90 d2_window ||
	fail "d2 (xfab_window loaded at boot) maps no window over member d1 after 90 s: $(domu_exec d2 30 "cat $D/stats $D/windows" 2>&1 | tr '\n' ' ')"
rx_keys="$(xenstore-read "/local/domain/$d1/device/vif/0/xfab-ptr-rx" 2>/dev/null) $(xenstore-read "/local/domain/$d2/device/vif/0/xfab-ptr-rx" 2>/dev/null)"
[ "$rx_keys" = "0 1" ] ||
	fail "xfab-ptr-rx of d1 and d2: '$rx_keys', want '0 1' (only d2 has xfab_window loaded)"
must ping -c 3 -i 0.2 -W 5 10.0.0.2 >/dev/null
must ping -c 3 -i 0.2 -W 5 10.0.0.3 >/dev/null

# ---- 1. d1 -> dom0, 64 MiB ----
be_read "$d1" b0
fe_read d1 f0
xfer_domu_to_dom0 d1 64M 41 ptr_d1_to_dom0_mbit
be_read "$d1" b1
fe_read d1 f1
fe_ptr=$(delta f0 f1 tx_ptr_bytes) be_ptr=$(delta b0 b1 txr_ptr_bytes)
grants=$(delta f0 f1 tx_grants) bounced=$(delta f0 f1 tx_bounced)
copies=$(delta b0 b1 txr_copy_ops) late=$(delta b0 b1 txr_ptr_late_done)
figure d1_to_dom0.tx_ptr_slots "$(delta f0 f1 tx_ptr_slots)"
figure d1_to_dom0.tx_ptr_bytes "$fe_ptr"
figure d1_to_dom0.tx_grants "$grants"
figure d1_to_dom0.tx_bounced "$bounced"
for k in $BE_KEYS; do
	figure "d1_to_dom0.$k" "$(delta b0 b1 $k)"
done
[ "$fe_ptr" -ge $((60 << 20)) ] ||
	fail "d1 -> dom0, 64 MiB: d1 sent $fe_ptr bytes by pointer (tx_ptr_bytes), want at least 60 MiB"
[ "$be_ptr" -ge $((60 << 20)) ] ||
	fail "d1 -> dom0, 64 MiB: dom0's vif$d1.0 took $be_ptr bytes by pointer (txr_ptr_bytes), want at least 60 MiB"
[ "$copies" -lt 1000 ] ||
	fail "d1 -> dom0, 64 MiB: dom0 made $copies grant copies (txr_copy_ops), want under 1000: the payload was grant-copied (16,384 or more), not read through the window"
[ "$grants" -lt 512 ] ||
	fail "d1 -> dom0, 64 MiB: d1 made $grants TX grants (tx_grants), want under 512: pointer slots need none (granted in place: 16,384 or more)"
[ "$bounced" -lt 64 ] ||
	fail "d1 -> dom0, 64 MiB: d1 copied $bounced packets into its bounce pool (tx_bounced), want under 64"
[ "$late" -gt 0 ] ||
	fail "d1 -> dom0, 64 MiB: no pointer slot answered late (txr_ptr_late_done grew by 0; txr_ptr_packets by $(delta b0 b1 txr_ptr_packets), txr_ptr_fallback by $(delta b0 b1 txr_ptr_fallback))"
no_refusals "$d1" "after d1 -> dom0"
out=$(tx_settled d1) || fail "d1 still has TX slots unanswered 15 s after its stream to dom0: $(echo "$out" | tr '\n' ' ')"
log "d1 TX settled: $(echo "$out" | tr '\n' ' ')"
# what dom0's counters say of it: packets sent up by reference and not
# (yet) answered late (a figure: what each counter counts is the
# implementation's)
be_read "$d1" nr
figure d1_to_dom0.ptr_packets_not_answered_late $((${nr[txr_ptr_packets]} - ${nr[txr_ptr_late_done]}))
xfer_domu_to_dom0 d1 4M 42 ptr_d1_to_dom0_again_mbit
log "d1 -> dom0: $fe_ptr bytes sent by pointer, $copies grant copies, $grants grants, $late late answers"
p1_ptr=$fe_ptr p1_copies=$copies

# ---- 2. d1 -> d2 through dom0's bridge, 32 MiB: by reference ----
# d1 names its frames to dom0, dom0 names them to d2, and d2 reads them
# through its own window: dom0 copies only the headers into d2's pool
fe_read d1 f0
ref_keys="rxr_ref_packets rxr_ref_bytes rxr_ref_taken rxr_ref_over rxr_pool_bytes"
be_read "$d2" r0 "$ref_keys"
fe_read d2 g0 "rx_ref_bytes rx_drop_ref"
xfer_domu_to_domu d1 d2 10.0.0.3 32M 43 ptr_d1_to_d2_mbit
fe_read d1 f1
be_read "$d2" r1 "$ref_keys"
fe_read d2 g1 "rx_ref_bytes rx_drop_ref"
fe_ptr=$(delta f0 f1 tx_ptr_bytes)
figure d1_to_d2.tx_ptr_bytes "$fe_ptr"
figure d1_to_d2.tx_grants "$(delta f0 f1 tx_grants)"
for k in $ref_keys; do
	figure "d1_to_d2.$k" "$(delta r0 r1 $k)"
done
d2_ref=$(delta g0 g1 rx_ref_bytes) d2_drop=$(delta g0 g1 rx_drop_ref)
figure d1_to_d2.d2_rx_ref_bytes "$d2_ref"
figure d1_to_d2.d2_rx_drop_ref "$d2_drop"
[ "$fe_ptr" -ge $((30 << 20)) ] ||
	fail "d1 -> d2, 32 MiB: d1 sent $fe_ptr bytes by pointer (tx_ptr_bytes), want at least 30 MiB"
[ "$(delta r0 r1 rxr_ref_bytes)" -ge $((28 << 20)) ] ||
	fail "d1 -> d2, 32 MiB: dom0 passed $(delta r0 r1 rxr_ref_bytes) bytes to d2 by reference (vif$d2.0 rxr_ref_bytes), want at least 28 MiB (rxr_ref_over grew by $(delta r0 r1 rxr_ref_over))"
[ "$(delta r0 r1 rxr_pool_bytes)" -lt $((4 << 20)) ] ||
	fail "d1 -> d2, 32 MiB: dom0 copied $(delta r0 r1 rxr_pool_bytes) bytes into d2's pool (rxr_pool_bytes), want under 4 MiB (the headers only)"
[ "$d2_ref" -ge $((28 << 20)) ] && [ "$d2_drop" = 0 ] ||
	fail "d1 -> d2, 32 MiB: d2 read $d2_ref bytes through its window (rx_ref_bytes, want at least 28 MiB) and dropped $d2_drop references it could not read (rx_drop_ref, want 0)"
[ "$(delta r0 r1 rxr_ref_taken)" -gt 0 ] ||
	fail "d1 -> d2: d2 took back none of the packets passed by reference (rxr_ref_taken grew by 0)"
out=$(tx_settled d1) ||
	fail "d1 still has TX slots unanswered 15 s after its stream to d2 by reference: $(echo "$out" | tr '\n' ' ')"
no_refusals "$d1" "after d1 -> d2"
no_refusals "$d2" "after d1 -> d2 (d2's ACKs)"
p2_ref=$(delta r0 r1 rxr_ref_bytes) p2_pool=$(delta r0 r1 rxr_pool_bytes)
log "d1 -> d2: $p2_ref bytes by reference, $p2_pool copied by dom0, d2 read $d2_ref"

# ---- LRO of packets sent by reference: d1 without TSO ----
# Each TCP segment is a packet of its own; dom0 merges a poll's segments
# into the frags of one skb (ptr.c), whose release answers them all. To
# dom0 the stack copies the merged skb once; to d2 it goes whole, as GSO,
# into d2's RX pool.
domu_must d1 30 "ethtool -K eth0 tso off gso off" >/dev/null || exit $?
lro0=$(vif_counter "vif$d1.0" txr_lro_out) segs0=$(vif_counter "vif$d1.0" txr_lro_segs)
ptr0=$(vif_counter "vif$d1.0" txr_ptr_bytes)
xfer_domu_to_dom0 d1 16M 48 ptr_nogso_d1_to_dom0_mbit
lro=$(($(vif_counter "vif$d1.0" txr_lro_out) - lro0))
segs=$(($(vif_counter "vif$d1.0" txr_lro_segs) - segs0))
ptr=$(($(vif_counter "vif$d1.0" txr_ptr_bytes) - ptr0))
figure lro_by_ref.merged_packets "$lro"
figure lro_by_ref.segs_per_packet "$(awk -v s=$segs -v o=$lro 'BEGIN { printf "%.1f", o ? s / o : 0 }')"
figure lro_by_ref.txr_ptr_bytes "$ptr"
figure lro_by_ref.stop_by_ref "$(vif_counter "vif$d1.0" txr_lro_stop_by_ref)"
[ "$ptr" -ge $((15 << 20)) ] ||
	fail "d1 (TSO off) -> dom0, 16 MiB: dom0 took $ptr bytes by pointer (txr_ptr_bytes), want at least 15 MiB"
[ "$lro" -gt 0 ] && [ "$segs" -ge $((4 * lro)) ] ||
	fail "d1 (TSO off) -> dom0 by pointer: $lro merged packets of $segs segments (want some, 4 or more segments each; txr_lro_stop_by_ref=$(vif_counter "vif$d1.0" txr_lro_stop_by_ref))"
gso0=$(vif_counter "vif$d2.0" rxr_gso)
lro0=$(vif_counter "vif$d1.0" txr_lro_out)
xfer_domu_to_domu d1 d2 10.0.0.3 8M 49 ptr_nogso_d1_to_d2_mbit
gso=$(($(vif_counter "vif$d2.0" rxr_gso) - gso0))
figure lro_by_ref.to_d2_merged "$(($(vif_counter "vif$d1.0" txr_lro_out) - lro0))"
figure lro_by_ref.to_d2_rxr_gso "$gso"
[ "$gso" -gt 0 ] ||
	fail "d1 (TSO off) -> d2 by pointer: no GSO packet reached d2's ring (rxr_gso grew by 0): the merged packets were cut up on the way"
domu_must d1 30 "ethtool -K eth0 tso on gso on" >/dev/null || exit $?
out=$(tx_settled d1) ||
	fail "d1 still has TX slots unanswered 15 s after its streams without TSO: $(echo "$out" | tr '\n' ' ')"
no_refusals "$d1" "after d1's streams without TSO"
log "LRO by reference: $lro packets merged from $segs segments, $gso GSO packets into d2"

# ---- the age limit: d1 floods d2 while d2 takes nothing ----
# d1's datagrams to a paused d2 wait in dom0 by reference (d2's ring is
# full, then its backlog). Once the oldest has waited ptr_age_ms (1 s),
# the queue's next packets are copied (txr_ptr_aged) and answered at
# once. The age is per queue, so the flood itself must go on: with
# netperf's default socket buffer (208 KiB) the waiting datagrams would
# fill it and block the sender. d1's pings to dom0 meanwhile (on either
# queue) must get through. Unpaused, d2 takes what waits and every TX
# slot of d1 is answered.
domu_must d2 10 "netserver >/dev/null 2>&1" >/dev/null || exit $?
domu_must d1 10 "echo 16777216 >/proc/sys/net/core/wmem_max &&
	netperf -H 10.0.0.3 -t UDP_STREAM -l 8 -- -m 1400 -s 8M >/tmp/age.np 2>&1 &" >/dev/null || exit $?
sleep 1
must xl pause d2
sleep 2
be_read "$d1" b0
figure age.ptr_packets_waiting $((${b0[txr_ptr_packets]} - ${b0[txr_ptr_late_done]}))
out=$(domu_exec d1 60 "ping -c 5 -i 0.2 -W 3 10.0.0.1")
rc=$?
be_read "$d1" b1
must xl unpause d2
[ $rc = 0 ] ||
	fail "d1 could not ping dom0 while its datagrams to a paused d2 waited in dom0: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
aged=$(delta b0 b1 txr_ptr_aged)
figure age.txr_ptr_aged "$aged"
figure age.txr_ptr_fallback "$(delta b0 b1 txr_ptr_fallback)"
[ "$aged" -ge 5 ] ||
	fail "d1's flood to a paused d2, 2 s after the pause: $aged packets copied for age (txr_ptr_aged), want 5 or more (txr_ptr_fallback grew by $(delta b0 b1 txr_ptr_fallback), packets waiting $((${b0[txr_ptr_packets]} - ${b0[txr_ptr_late_done]})))"
out=$(tx_settled d1) ||
	fail "d1 still has TX slots unanswered 15 s after d2 was unpaused: $(echo "$out" | tr '\n' ' ')"
no_refusals "$d1" "after flooding a paused d2"
log "age limit: $aged packets copied while the oldest waited; d1 TX settled"

# ---- 3. dom0 -> d1, 16 MiB: the RX path, unchanged ----
xfer_dom0_to_domu d1 10.0.0.2 16M 44 ptr_dom0_to_d1_mbit

# ---- d1's memory grows, then shrinks: the windows over it are remade ----
# wn_frames WINDOWS: frames of the window over d1 in that debugfs text
wn_frames() { echo "$1" | awk -v p="$d1" '$1 == "peer" && $2 == p { print $4 }'; }
dom0_wn() { cat $D/windows; }
d2_wn() { domu_exec d2 30 "cat $D/windows" 2>/dev/null; }
# wn_settled WHERE CMP N: WHERE's window over d1 maps CMP N frames (-ge,
# -le) and no older window drains behind it
wn_settled() {
	local w n
	w=$($1) && n=$(wn_frames "$w") && [ -n "$n" ] && [ "$n" "$2" "$3" ] &&
		! echo "$w" | grep -q "^peer $d1 .*older-draining"
}
REFRESH=/sys/module/xfab_window/parameters/refresh_ms
refresh_ms=$(cat $REFRESH)
echo 1000 >$REFRESH
domu_must d2 10 "echo 1000 >$REFRESH" >/dev/null || exit $?
rf0=$(awk '$1 == "refreshes" { print $2 }' $D/stats)
m0=$(wn_frames "$(dom0_wn)") g0n=$(wn_frames "$(d2_wn)")
[ -n "$m0" ] && [ -n "$g0n" ] || fail "no window over d1 in dom0 ('$m0') or d2 ('$g0n') before the balloon step"
must xl mem-set d1 640
# 128 MiB more is 32,768 frames: allow for what the balloon keeps back
wait_for 60 wn_settled dom0_wn -ge $((m0 + 30000)) ||
	fail "d1 grew to 640 MiB, but dom0's window over it was not remade to its size within 60 s (frames $m0 -> $(wn_frames "$(dom0_wn)"); $(grep "^peer $d1 " $D/windows); $(grep '^refresh' $D/stats | tr '\n' ' '))"
wait_for 60 wn_settled d2_wn -ge $((g0n + 30000)) ||
	fail "d1 grew to 640 MiB, but d2's window over it was not remade within 60 s (frames $g0n -> $(wn_frames "$(d2_wn)"))"
m1=$(wn_frames "$(dom0_wn)") g1n=$(wn_frames "$(d2_wn)")
figure balloon.dom0_frames "$m0 -> $m1"
figure balloon.d2_frames "$g0n -> $g1n"
be_read "$d1" b0
fe_read d2 g0 "rx_ref_bytes rx_drop_ref"
xfer_domu_to_dom0 d1 16M 50 ptr_grown_d1_to_dom0_mbit
xfer_domu_to_domu d1 d2 10.0.0.3 8M 51 ptr_grown_d1_to_d2_mbit
be_read "$d1" b1
fe_read d2 g1 "rx_ref_bytes rx_drop_ref"
[ "$(delta b0 b1 txr_ptr_bytes)" -ge $((15 << 20)) ] ||
	fail "d1 (grown) -> dom0, 16 MiB: dom0 took $(delta b0 b1 txr_ptr_bytes) bytes by pointer, want at least 15 MiB"
[ "$(delta g0 g1 rx_ref_bytes)" -ge $((6 << 20)) ] && [ "$(delta g0 g1 rx_drop_ref)" = 0 ] ||
	fail "d1 (grown) -> d2, 8 MiB: d2 read $(delta g0 g1 rx_ref_bytes) bytes by reference (want at least 6 MiB) and dropped $(delta g0 g1 rx_drop_ref) references it could not read (want 0)"
no_refusals "$d1" "after d1 grew"
rf=$(($(awk '$1 == "refreshes" { print $2 }' $D/stats) - rf0))
figure balloon.dom0_refreshes "$rf"
[ "$rf" -ge 1 ] || fail "dom0's xfab_window counted no refresh over d1's growth"
# Back to 512 MiB: the frames d1 gives back stay held by the windows
# (Xen frees a page only when its last mapping goes, so d1's page count
# does not fall and nothing is remade: docs/window.md, "Limits"); d1
# goes on sending by pointer from the frames it kept
must xl mem-set d1 512
sleep 5
be_read "$d1" b0
xfer_domu_to_dom0 d1 4M 52 ptr_shrunk_d1_to_dom0_mbit
be_read "$d1" b1
[ "$(delta b0 b1 txr_ptr_bytes)" -ge $((3 << 20)) ] ||
	fail "d1 (shrunk) -> dom0, 4 MiB: dom0 took $(delta b0 b1 txr_ptr_bytes) bytes by pointer, want at least 3 MiB"
no_refusals "$d1" "after d1 shrank"
figure balloon.dom0_frames_after_shrink "$(wn_frames "$(dom0_wn)")"
echo "$refresh_ms" >$REFRESH
domu_must d2 10 "echo $refresh_ms >$REFRESH" >/dev/null || exit $?
log "balloon: dom0's window over d1 $m0 -> $m1 frames, d2's $g0n -> $g1n, $rf refreshes; shrunk, still $(wn_frames "$(dom0_wn)")"

# ---- d2 leaves its group in the middle of a stream to dom0 ----
# dom0 keeps its window over d2 for leave_ms (30 s here, so the mark is
# seen on any day) after d2 left: the pointer slots d2 sent before it saw
# itself leave are read, none dropped (txr_ptr_no_window)
LEAVE=/sys/module/xfab_window/parameters/leave_ms
leave_ms=$(cat $LEAVE)
echo 30000 >$LEAVE
xfab-xfer recv 5005 >"$W/ptr-leave.rx" 2>&1 &
rpid=$!
fe_read d2 f0
nw0=$(vif_counter "vif$d2.0" txr_ptr_no_window)
base=$(vif_counter "vif$d2.0" txr_ptr_bytes)
leave_moving() { [ "$(vif_counter "vif$d2.0" txr_ptr_bytes)" -gt $((base + (2 << 20))) ]; }
domu_must d2 10 "XFER_IDLE=$XFER_IDLE xfab-xfer send 10.0.0.1 5005 32M 47 >/tmp/leave.tx 2>&1 &" >/dev/null || exit $?
wait_for 30 leave_moving ||
	fail "d2's 32 MiB stream moved no 2 MiB by pointer within 30 s (txr_ptr_bytes $base -> $(vif_counter "vif$d2.0" txr_ptr_bytes))"
must xfabctl group remove d2
wait_for 15 grep -q "^peer $d2 .* leaving\$" $D/windows ||
	fail "dom0's window over d2 was not kept (marked leaving) after d2 left its group: $(grep "^peer $d2 " $D/windows || echo none) ($(grep '^leave_graces' $D/stats))"
tx=$(domu_xfer_wait d2 $((XFER_IDLE + 60)) /tmp/leave.tx) || exit $?
wait "$rpid"
xfer_compare "d2->dom0 (d2 left its group mid-stream)" "$tx" "$(cat "$W/ptr-leave.rx")" \
	ptr_leave_d2_to_dom0_mbit
fe_read d2 f1
figure leave.tx_ptr_bytes "$(delta f0 f1 tx_ptr_bytes)"
figure leave.tx_grants "$(delta f0 f1 tx_grants)"
nw=$(($(vif_counter "vif$d2.0" txr_ptr_no_window) - nw0))
figure leave.txr_ptr_no_window "$nw"
[ "$nw" = 0 ] ||
	fail "dom0 dropped $nw of d2's pointer slots for want of a window (txr_ptr_no_window) while it kept its window for leave_ms"
[ "$(delta f0 f1 tx_grants)" -gt 0 ] ||
	fail "d2 granted nothing after leaving its group mid-stream (tx_grants grew by 0): still sending by frame?"
domu_must d2 10 "dmesg | grep -q 'left the appliance group'" >/dev/null ||
	fail "d2's xfab_netfront did not log that it left the appliance group"
echo "$leave_ms" >$LEAVE
wait_for 30 sh -c "! grep -q '^peer $d2 ' $D/windows" ||
	fail "dom0 still holds a window over d2 (domid $d2) 30 s after leave_ms went back to $leave_ms ms"

# ---- d2 goes: destroyed, it goes away whole ----
domu_destroy d2 >/dev/null
wait_for 30 vif_gone "$d2" || fail "vif of destroyed d2 (domid $d2) still present"
wait_for 30 dom_gone "$d2" ||
	fail "d2 (domid $d2) still listed 30 s after its destroy: its memory is held ($(xl list | tr '\n' ' '))"

# ---- a hostile member's pointer slots ----
# d1's planted pages give a frame of another member that dom0 has mapped
TOK=ptr404
P=/sys/kernel/debug/xfab_wnprobe
domu_plant d1 "$TOK"
load_backend xfab_wnprobe
echo "$d1 $TOK" >$P/scan || fail "dom0 cannot scan its window over d1"
out=$(cat $P/scan)
must rmmod xfab_wnprobe
other=$(echo "$out" | sed -n 's/.* first \([0-9]*\) found [1-9].*/\1/p')
[ -n "$other" ] && [ "$other" -gt 0 ] || fail "dom0 found no planted page of d1 in its window: $out"
log "a frame of d1 (found by dom0's window): $other"
domu_start h1 --novif --mods xfab_hostile --vcpus 1
must xfabctl group add ptr h1
# d1's vif stays: each case must leave no more than it found
net_held_mark
domu_must h1 10 "echo $other >/sys/module/xfab_hostile/parameters/ptr_frame" >/dev/null || exit $?
for c in ptr_valid ptr_unasked ptr_bad_frame ptr_other; do
	hostile_vif xfab_netback $c
	v=$(hostile_vjudge xfab_netback $c)
	log "hostile member h1, $c: $v"
	figure "hostile.xfab_netback.$c.verdict" "$v"
	[ "${v%% *}" = ok ] || fail "hostile member h1, case $c: $v"
done
domu_destroy h1 >/dev/null
NET_HELD=""

# ---- 4. d3, not a member, relaxed trust: no pointer mode ----
relax_vif() { xfabctl trust "$1" vif/0 relaxed >/dev/null; }
domu_start d3 --mods xfab_netfront --vcpus 1 --ip 10.0.0.4/24 --mac 00:16:3e:00:00:04 \
	--paused-hook relax_vif
d3=$(domu_id d3)
[ "$(xenstore-read "/local/domain/$d3/device/vif/0/xfab-trust" 2>/dev/null)" = relaxed ] ||
	fail "d3's vif/0 has no xfab-trust=relaxed"
keys=$(net_ptr_keys "$d3")
log "d3 (no group): feature-xfab-ptr, xfab-ptr: $keys"
set -- $keys
[ "$1" = 1 ] ||
	fail "dom0's backend does not offer feature-xfab-ptr=1 to d3 (domid $d3) though xfab_window is loaded: $1"
[ "$2" != 1 ] ||
	fail "d3 (domid $d3), in no group, wrote xfab-ptr=1"
! net_wn_maps "$d3" || fail "dom0 maps d3 (domid $d3), in no group: $(grep "^peer $d3 " $D/windows)"
be_read "$d3" b0
fe_read d3 f0
xfer_domu_to_dom0 d3 16M 45 d3_to_dom0_mbit
be_read "$d3" b1
fe_read d3 f1
grants=$(delta f0 f1 tx_grants)
figure d3_to_dom0.tx_grants "$grants"
figure d3_to_dom0.txr_copy_ops "$(delta b0 b1 txr_copy_ops)"
[ "${f1[tx_ptr_bytes]}" = 0 ] && [ "${f1[tx_ptr_slots]}" = 0 ] ||
	fail "d3, in no group, sent by pointer: tx_ptr_slots=${f1[tx_ptr_slots]} tx_ptr_bytes=${f1[tx_ptr_bytes]} (want 0)"
[ "${b1[txr_ptr_packets]}" = 0 ] ||
	fail "dom0 took ${b1[txr_ptr_packets]} pointer packets from d3, in no group (want 0)"
no_refusals "$d3" "d3, in no group"
# relaxed trust without pointer mode grants TX in place, a grant a page
[ "$grants" -gt 2048 ] ||
	fail "d3 -> dom0, 16 MiB in relaxed trust: $grants TX grants (tx_grants), want over 2048 (granted in place, a grant a page)"
domu_destroy d3 >/dev/null
wait_for 30 vif_gone "$d3" || fail "vif of destroyed d3 (domid $d3) still present"
log "d3, no group: no pointer mode, 16 MiB granted in place ($grants grants)"

# ---- 5. d1 destroyed in the middle of a 64 MiB stream ----
mark=$(dmesg | wc -l)
xfab-xfer recv 5004 >"$W/ptr-mid.rx" 2>&1 &
rpid=$!
base=$(vif_counter "vif$d1.0" txr_ptr_bytes)
ptr_moving() { [ "$(vif_counter "vif$d1.0" txr_ptr_bytes)" -gt $((base + (2 << 20))) ]; }
domu_must d1 10 "XFER_IDLE=$XFER_IDLE xfab-xfer send 10.0.0.1 5004 64M 46 >/dev/null 2>&1 &" >/dev/null || exit $?
wait_for 30 ptr_moving ||
	fail "d1's 64 MiB stream moved no 2 MiB by pointer within 30 s (txr_ptr_bytes $base -> $(vif_counter "vif$d1.0" txr_ptr_bytes))"
figure destroy_after_ptr_bytes $(($(vif_counter "vif$d1.0" txr_ptr_bytes) - base))
domu_destroy d1 >/dev/null
grep -q 'sha256=' "$W/ptr-mid.rx" && log "the stream had ended before the destroy"
wait_for 30 vif_gone "$d1" || fail "vif of destroyed d1 (domid $d1) still present"
wait_for 30 dom_gone "$d1" ||
	fail "d1 (domid $d1) still listed 30 s after its destroy mid-stream: its memory is held (a window or a pointer slot's pages?): $(xl list | tr '\n' ' ')"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
net_nothing_left "after d1's destroy mid-stream"
n=$(dmesg | tail -n +$((mark + 1)) |
	grep -cE 'WARNING:|BUG:|Oops|general protection fault|unable to handle|Call Trace:')
[ "$n" = 0 ] ||
	fail "dom0's kernel logged $n lines of a kernel splat around d1's destroy mid-stream (see its log)"
wait_for 30 dom0_maps_none ||
	fail "dom0 still holds windows after every member is gone: $(tr '\n' ' ' <$D/windows)"
out=$(rmmod xfab_netback 2>&1) ||
	fail "xfab_netback would not unload once its guests were gone: $out ($(lsmod | grep '^xfab_' | tr '\n' ' '))"
wstats=$(cat $D/stats)
log "dom0 xfab_window: $(echo "$wstats" | tr '\n' ' ')"
out=$(rmmod xfab_window 2>&1) ||
	fail "xfab_window would not unload after xfab_netback (a reference left?): $out"
mapped=$(echo "$wstats" | awk '$1 == "frames_mapped" { print $2 }')
unmapped=$(echo "$wstats" | awk '$1 == "frames_unmapped" { print $2 }')
[ "${mapped:-0}" -gt 0 ] && [ "$mapped" = "$unmapped" ] ||
	fail "dom0's xfab_window mapped $mapped frames over its windows' lives and unmapped $unmapped"
pass "members d1, d2 in pointer mode: 64 MiB d1 -> dom0 ($p1_ptr bytes by pointer, $p1_copies grant copies, answered late), 32 MiB d1 -> d2 ($p2_ref bytes to d2 by reference, $p2_pool copied by dom0), 16 MiB dom0 -> d1, all intact; d2 left its group mid-stream, intact; hostile member h1's foreign, unknown and unasked pointer slots refused and counted; d3 (no group) not in pointer mode; d1 destroyed mid-stream: nothing held, both modules unload"