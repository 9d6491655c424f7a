#!/bin/bash
# The testbed runner inside dom0. Started by xfab-run.service from the run
# disk (mounted read-only at /xfab); runs the selected scenarios one by one
# and reports on the results channel, a virtio serial port the host reads:
#
#   @@meta KEY VALUE           machine record (versions, CPU)
#   @@begin SCEN               a scenario starts
#   @@fig SCEN KEY VALUE       a figure the scenario measured
#   @@line SCEN TEXT           an offending kernel-log line (sick testbed)
#   @@end SCEN STATUS SECONDS REASON
#   @@done                     all scenarios ran; the host stops the VM
#
# A scenario exits 0 (PASS), 1 (FAIL), 77 (SKIP) or anything else (ERROR).
# After each one the runner checks the testbed's health; a sick testbed
# turns the verdict into ERROR whatever the scenario said.
set -u
export XFAB=/xfab W=/var/xfab
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=/dev/null
. "$XFAB/run.conf"
. "$XFAB/guest/lib.sh"

mkdir -p "$W/logs" "$W/out"
res_port() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = org.xfab.results ] &&
			{ echo "/dev/$(basename "$p")"; return; }
	done
	echo /dev/ttyS1
}
exec 3>"$(res_port)"

meta() { echo "@@meta $1 $2" >&3; }
say() { echo "xfab-run: $*" >/dev/console; }

machine_record() {
	meta kernel "$(uname -r)"
	meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	meta dom0_vcpus "$(nproc)"
	meta xen "$(xl info 2>/dev/null | sed -n 's/^xen_version *: //p')"
	meta xen_caps "$(xl info 2>/dev/null | sed -n 's/^xen_caps *: //p')"
	meta host_total_mb "$(xl info 2>/dev/null | sed -n 's/^total_memory *: //p')"
}

wait_toolstack() {
	local i
	for i in $(seq 120); do
		xenstore-read domid >/dev/null 2>&1 && xl list >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

setup_bridge() {
	ip link add xenbr0 type bridge 2>/dev/null
	ip addr add 10.0.0.1/24 dev xenbr0 2>/dev/null
	ip link set xenbr0 up
}

# The domU initramfs: the image's base (tools, stock modules) with this
# run's part appended (init, agent, helpers, freshly built xfab modules).
# The kernel unpacks concatenated cpio archives in order.
make_domu_initramfs() {
	local kver
	kver=$(uname -r)
	rm -rf "$W/domu-run"
	# Real paths only: an entry named lib/ would replace the base
	# archive's lib -> usr/lib symlink and hide every stock module.
	mkdir -p "$W/domu-run/usr/lib/modules/$kver/xfab" "$W/domu-run/usr/local/bin"
	cp "$XFAB/guest/domu-init" "$W/domu-run/init"
	chmod 755 "$W/domu-run/init"
	cp "$XFAB"/helpers/* "$W/domu-run/usr/local/bin/" 2>/dev/null
	cp "$XFAB"/modules/*.ko "$W/domu-run/usr/lib/modules/$kver/xfab/" 2>/dev/null
	# a driver domain's xl devd runs these (the testbed's quick ones)
	mkdir -p "$W/domu-run/etc/xen/scripts"
	cp "$XFAB"/guest/hotplug/* "$W/domu-run/etc/xen/scripts/"
	: >"$W/domu-run/etc/xen/xl.conf"
	(cd "$W/domu-run" && find . | cpio -o -H newc --quiet) >"$W/domu-run.cpio"
	# perf only where the benchmark profiles (BENCH_PROFILE, bench.sh)
	local perf=""
	[ -n "${BENCH_PROFILE:-}" ] && perf=/opt/xfab/domu-perf.cpio
	cat /opt/xfab/domu-base.cpio $perf "$W/domu-run.cpio" >"$W/domu.cpio"
}

# TESTBED_RE and SPLAT_RE (from run.conf, the host harness's patterns):
# kernel-log lines that mean the testbed is sick (ERROR), and kernel
# splats, which fail the scenario they happened in.

# New lines of a growing file since the offset remembered in $W/off.*
new_lines() {
	local f=$1 key off size
	key=$(echo "$f" | tr '/' '_')
	off=$(cat "$W/off.$key" 2>/dev/null || echo 0)
	size=$(stat -c %s "$f" 2>/dev/null || echo 0)
	[ "$size" -lt "$off" ] && off=0
	tail -c +$((off + 1)) "$f" 2>/dev/null | head -c $((size - off))
	echo "$size" >"$W/off.$key"
}

mark_logs() {
	dmesg >"$W/dmesg.now"
	new_lines "$W/dmesg.now" >/dev/null
	local f
	for f in /var/log/xen/console/guest-*.log; do
		[ -f "$f" ] && new_lines "$f" >/dev/null
	done
}

# Print offending lines logged since mark_logs, dom0's and every domU's,
# but for a stock driver's splats the scenario recorded in file $1 (see
# stock_splats in lib.sh). Each domU's new console text stays in
# $W/con.NAME for the verdict.
sick_lines() {
	local f d
	dmesg >"$W/dmesg.now"
	touch "$1"
	new_lines "$W/dmesg.now" | grep -E "$TESTBED_RE|$SPLAT_RE" |
		grep -vxF -f "$1" | sed 's/^/dom0: /'
	rm -f "$W"/con.*
	for f in /var/log/xen/console/guest-*.log; do
		[ -f "$f" ] || continue
		d=$(basename "$f" .log | sed 's/^guest-//')
		new_lines "$f" >"$W/con.$d"
		grep -E "$TESTBED_RE|$SPLAT_RE" "$W/con.$d" | sed "s/^/$d: /"
	done
}

# D's console (this scenario's part) as lines of a boot with an xfab
# module loaded, prefixed "+", or not, "-": domu-init's line before it
# loads one starts a "+" stretch, a new boot's first line a "-" one.
# Only in a "+" stretch did our code run.
xfab_console() {
	[ -f "$W/con.$1" ] || return 0
	awk '/Linux version / { ours = 0 }
	     /domu-init: xfab module / { ours = 1 }
	     { print (ours ? "+" : "-") $0 }' "$W/con.$1"
}

# The first trap line of a domU that had an xfab module loaded when it
# trapped (it ran our code, so the trap may be ours). A trap in a boot
# that had not loaded one yet ran none of our code: the testbed's.
xfab_domain_trap() {
	local d l
	[ -f "$W/xfab-domains" ] || return 0
	for d in $(sort -u "$W/xfab-domains"); do
		l=$(xfab_console "$d" | grep '^+' | cut -c2- | grep -E "$TESTBED_RE" | head -n 1)
		[ -n "$l" ] && echo "$d: $l"
	done | head -n 1
}

# A domain that died with an xfab module loaded (its console's last
# line is in a "+" stretch).
xfab_domain_died() {
	local d
	for d in $1; do
		grep -qx "$d" "$W/xfab-domains" 2>/dev/null &&
			xfab_console "$d" | tail -n 1 | grep -q '^+' && { echo "$d"; return; }
	done
}

run_scenario() {
	local path=$1 scen status rc t0 reason="" lines died trap err
	scen=$(basename "$path" .sh)
	say "=== $scen"
	echo "@@begin $scen" >&3
	mark_logs
	rm -f "$W/expected-domains" "$W/xfab-domains"
	t0=$(date +%s)
	if ! err=$(hotplug_scripts quick 2>&1); then
		echo "@@end $scen ERROR 0 quick hotplug scripts: ${err//$'\n'/ }" >&3
		say "=== $scen: ERROR quick hotplug scripts: $err"
		return
	fi
	XFAB_SCEN=$scen timeout --kill-after=10 "${SCEN_TIMEOUT:-900}" \
		bash "$path" > >(tee "$W/logs/$scen.log" | sed -u "s/^/[$scen] /" >/dev/console) 2>&1
	rc=$?
	sleep 1
	case $rc in
	0) status=PASS ;;
	1) status=FAIL ;;
	77) status=SKIP ;;
	3) status=ERROR ;;	# the scenario's error(): reason in its file
	124 | 137) status=FAIL reason="timed out after ${SCEN_TIMEOUT:-900}s" ;;
	*) status=ERROR reason="scenario exited $rc" ;;
	esac
	[ -z "$reason" ] && reason=$(tail -n 1 "$W/out/$scen.reason" 2>/dev/null)

	# A domain's death or trap is the testbed's (ERROR, run again)
	# unless the domain ran xfab code: then it is ours (XFAB_DOMAIN in
	# run.py: a FAIL, never run again).
	died=$(lib_dead_domains)
	lines=$(sick_lines "$W/out/$scen.stock-splats")
	# the console has them too: run.py must not count them either
	sed "s/^/@@stock $scen /" "$W/out/$scen.stock-splats" >&3
	if [ -n "$(xfab_domain_died "$died")" ]; then
		status=FAIL reason="xfab domain died: $(xfab_domain_died "$died") (it had xfab modules loaded)"
	elif [ -n "$died" ]; then
		status=ERROR reason="domain died: $died"
	fi
	if [ -n "$lines" ]; then
		echo "$lines" | head -n 20 | while IFS= read -r l; do
			echo "@@line $scen $l" >&3
		done
		# A splat fails the driver (even if a domain died of it); with
		# traps around, the testbed is suspect and the verdict is ERROR,
		# unless the trap is in a domain that ran xfab code.
		trap=$(xfab_domain_trap "$lines")
		if [ -n "$trap" ]; then
			status=FAIL reason="xfab domain trap: $(echo "$trap" | cut -c1-160)"
		elif echo "$lines" | grep -qE "$TESTBED_RE"; then
			status=ERROR reason="kernel log: $(echo "$lines" | head -n 1 | cut -c1-160)"
		else
			status=FAIL reason="kernel log: $(echo "$lines" | head -n 1 | cut -c1-160)"
		fi
	fi
	lib_cleanup_domains
	[ -f "$W/out/$scen.figs" ] && sed "s/^/@@fig $scen /" "$W/out/$scen.figs" >&3
	echo "@@end $scen $status $(($(date +%s) - t0)) $reason" >&3
	say "=== $scen: $status $reason"
}

main() {
	say "runner up; scenarios: $SCENARIOS"
	if ! wait_toolstack; then
		meta fatal "xen toolstack not up after 120s"
		echo "@@done" >&3
		return
	fi
	machine_record
	setup_bridge
	make_domu_initramfs
	local s f
	for s in $SCENARIOS; do
		f=$(ls "$XFAB"/scenarios/"$s"*.sh 2>/dev/null | head -n 1)
		if [ -z "$f" ]; then
			echo "@@begin $s" >&3
			echo "@@end $s ERROR 0 no such scenario" >&3
			continue
		fi
		run_scenario "$f"
	done
	echo "@@done" >&3
}

main
sync
# The host stops the VM once it has read @@done; this is only a fallback.
sleep 5
poweroff -f
