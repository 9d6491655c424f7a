# Helpers for the numbered scenarios (sourced in dom0; bash).
#
# A scenario starts domUs from the xl configs in /xfab/xl, drives them
# through the xenstore agent in their init (so commands reach a domU even
# while its network driver is down or reloading), records figures and
# ends with pass / fail / skip / error.

XFAB=${XFAB:-/xfab}
export PATH=$XFAB/helpers:$PATH
W=${W:-/var/xfab}
XFAB_SCEN=${XFAB_SCEN:-adhoc}
OUT=$W/out/$XFAB_SCEN

# bash's own clock, not date(1): under TCG a line took about 0.25 s,
# mostly date's fork and exec (30 figures of xs_features: 7-8 s), and
# make check logs about a thousand lines
log() { printf '%(%T)T %s\n' -1 "$*"; }
_end() {
	local why
	why=$(echo "$2" | tr '\t\n' '  ' | tr -s ' ')
	echo "$why" >"$OUT.reason"
	log "$3: $why"
	exit "$1"
}
pass() { _end 0 "${1:-}" PASS; }
# DIAG names a function that prints what explains a failure (counters,
# ring state); it runs once, before the verdict.
fail() {
	if [ -n "${DIAG:-}" ]; then
		local d=$DIAG
		DIAG=
		$d 2>&1 | sed 's/^/diag: /' >&2
	fi
	_end 1 "$1" FAIL
}
skip() { _end 77 "$1" SKIP; }
# The testbed, not the code under test, is at fault.
error() { _end 3 "$1" ERROR; }

figure() {
	echo "$1 $2" >>"$OUT.figs"
	log "figure $1 = $2"
}

# ---- a stock driver's splat: recorded, not failed ----
# The hostile suite runs its cases against the stock drivers too, and a
# case may make one splat in dom0 (a guest-triggered WARNING in
# xen-blkback): that is the stock column's finding, not a failure of
# ours. stock_mark before such a case, stock_splats MODULE after it:
# each dom0 splat since the mark whose lines name [MODULE] (a stock
# module, never an xfab one) is printed as one line ("warning in
# FUNCTION [MODULE] (FILE:LINE)": worded so that the console's copy of
# the scenario's log is no splat itself), and all its lines, through
# "end trace", go to $OUT.stock-splats, which dom0-run.sh and run.py
# leave out of the kernel-log check. Any other splat still fails.
stock_mark() {
	STOCK_MARK=$(dmesg | wc -l)
}

stock_splats() {
	case $1 in
	xen_blkback | xen_netback) ;;
	*) error "stock_splats: $1 is not a stock backend module" ;;
	esac
	dmesg | tail -n +$((${STOCK_MARK:-0} + 1)) |
		awk -v mod="[$1]" -v out="$OUT.stock-splats" '
		!inb && /WARNING:|BUG:|Oops|general protection fault/ { inb = 1; n = 0; hit = 0 }
		inb { blk[n++] = $0; if (index($0, mod)) hit = 1 }
		inb && /RIP: / { rip = $0; sub(/.*RIP: [0-9a-f]+:/, "", rip) }
		inb && /---\[ end trace/ {
			if (hit) {
				for (i = 0; i < n; i++) print blk[i] >>out
				kind = "oops"
				if (blk[0] ~ /WARNING:/) kind = "warning"
				if (blk[0] ~ /BUG:/) kind = "bug"
				at = ""
				if (match(blk[0], / at [^ ]+:[0-9]+/))
					at = " (" substr(blk[0], RSTART + 4, RLENGTH - 4) ")"
				print kind " in " rip at
			}
			inb = 0
		}'
}

# Run a dom0 command, fail the scenario with its output if it fails.
must() {
	local out
	if ! out=$("$@" 2>&1); then
		echo "$out"
		fail "'$*' failed: $(echo "$out" | tail -n 1)"
	fi
	[ -n "$out" ] && echo "$out"
	return 0
}

domu_id() { xl domid "$1" 2>/dev/null; }

# True while NAME exists and has neither crashed nor started dying
# (on_crash="preserve" keeps a crashed domain listed, for its logs).
domu_alive() {
	local state
	state=$(xl list "$1" 2>/dev/null | awk 'NR == 2 { print $5 }')
	[ -n "$state" ] && ! echo "$state" | grep -q '[cd]'
}

# Kernel arguments that skip boot-time work no scenario needs and that
# costs seconds per domU under TCG (crypto self-tests, the KDF and
# encrypted-keys self-tests, jitter entropy: about 8 of 27 s from unpause
# to agent). run.py gives dom0 the same list.
DOMU_FAST_BOOT="cryptomgr.notests initcall_blacklist=crypto_kdf108_init,init_encrypted,jent_mod_init"

# domu_start NAME [--ip A.B.C.D/N] [--mac MAC] [--mods m1,m2] [--disk SPEC]
#            [--vcpus N] [--mem MB] [--novif | --vif SPEC...] [--kargs "WORDS"]
#            [xl overrides...]
# Boots a PV domU from $XFAB/xl/domu.cfg and waits until its agent answers.
# --mods names the frontend modules its init loads explicitly (stock names
# come from the base initramfs, xfab ones from this run's modules);
# --kargs adds kernel arguments, "xfab_blkfront.param=value" among them
# (the domU's init gives those to the module it loads).
domu_start() {
	local name=$1 ip=10.0.0.2/24 mac=00:16:3e:00:00:02 mods=xen-netfront,xen-blkfront
	local vcpus=2 mem=512 disks="" vif=1 specs="" extra_xl=() id i hook="" kargs=""
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--ip) ip=$2 && shift ;;
		--mac) mac=$2 && shift ;;
		--mods) mods=$2 && shift ;;
		--disk) disks="$disks${disks:+,}'$2'" && shift ;;
		--vcpus) vcpus=$2 && shift ;;
		--mem) mem=$2 && shift ;;
		--novif) vif=0 ip="" ;;
		# a whole vif spec, e.g. one served by a driver domain; once
		# per vif
		--vif) vif=spec specs="$specs${specs:+,}'$2'" && shift ;;
		--kargs) kargs=$2 && shift ;;
		# run "CMD DOMID" between a paused xl create and the unpause
		# (toolstack keys a driver must find when it loads)
		--paused-hook) hook=$2 && shift ;;
		*) extra_xl+=("$1") ;;
		esac
		shift
	done
	local vifs="[]"
	case $vif in
	0) ;;
	1) vifs="['mac=$mac,bridge=xenbr0']" ;;
	*) vifs="[$specs]" ;;
	esac
	echo "$name" >>"$W/expected-domains"
	# our code runs in it: a trap or death there is a FAIL (dom0-run.sh)
	case ,$mods, in *,xfab_*) echo "$name" >>"$W/xfab-domains" ;; esac
	_stream_console "$name"
	log "xl create $name (mods=$mods ip=$ip disks=[$disks]${kargs:+ kargs=$kargs})"
	xl_paused "$name" "$hook" create "$XFAB/xl/domu.cfg" "name=\"$name\"" "vcpus=$vcpus" \
		"memory=$mem" "vif=$vifs" "disk=[$disks]" \
		"extra=\"console=hvc0 $DOMU_FAST_BOOT $kargs xfab.mods=$mods xfab.ip=$ip\"" "${extra_xl[@]}" ||
		error "$name: paused-domain hook '$hook' failed"
	id=$(domu_id "$name") || error "domain $name vanished right after xl create"
	domu_wait_ready "$name" "$id"
}

# domu_load NAME MODULE [PARAM=VALUE...]: load MODULE in the running
# domU NAME as its init loads the ones it boots with: ours by insmod from
# this run's modules, the kernel's by modprobe. The console marker goes
# out before the load: from there a trap in NAME may be our code's (a
# FAIL, dom0-run.sh), as after its init loaded one.
domu_load() {
	local name=$1 m=$2
	shift 2
	case $m in xfab_*) echo "$name" >>"$W/xfab-domains" ;; esac
	domu_must "$name" 60 "f=/lib/modules/\$(uname -r)/xfab/$m.ko
		if [ -f \$f ]; then
			echo 'domu-init: xfab module $m (by the agent)' >/dev/hvc0
			insmod \$f $*
		else
			modprobe $m $*
		fi" >/dev/null || exit $?
}

# domu_cfg FILE MODS IP KARGS [XL-LINE...]: an xl config for a testbed
# domU like domu_start's, for a tool that creates the domain itself
# (xfab-appliance); it names the domain, so the config's name is a
# placeholder.
domu_cfg() {
	local f=$1 mods=$2 ip=$3 kargs=$4
	shift 4
	{
		cat "$XFAB/xl/domu.cfg"
		echo "name = \"unnamed\""
		echo "extra = \"console=hvc0 $DOMU_FAST_BOOT $kargs xfab.mods=$mods xfab.ip=$ip\""
		printf '%s\n' "$@"
	} >"$f"
}

# domu_expect NAME [xfab]: a domU a tool will create: it must stay alive
# (a death FAILs the scenario), its console goes to ours, and with xfab
# our modules run in it (a trap there is a FAIL).
domu_expect() {
	echo "$1" >>"$W/expected-domains"
	[ "${2:-}" = xfab ] && echo "$1" >>"$W/xfab-domains"
	_stream_console "$1"
}

# appliance_run RC CMD...: xfab-appliance CMD must exit RC; its output is
# left in $out.
appliance_run() {
	local want=$1 rc
	shift
	out=$(xfab-appliance "$@" 2>&1)
	rc=$?
	log "xfab-appliance $* -> $rc: $(echo "$out" | tail -n 4 | tr '\n' '|')"
	[ "$rc" = "$want" ] || fail "xfab-appliance $* exited $rc, not $want: $out"
}

# domu_wait_ready NAME DOMID: until the domU's init says it is ready.
# xenstore-read is cheap; xl list costs about a second under TCG, so a
# dead domain is looked for every 2 s only (it was every poll, and the
# polls made a boot look 5-8 s longer than it was).
domu_wait_ready() {
	local name=$1 id=$2 t0=$SECONDS n=0 r
	while [ $((SECONDS - t0)) -lt 120 ]; do
		r=$(xenstore-read "/local/domain/$id/data/xfab/ready" 2>/dev/null)
		case $r in
		1)
			log "$name (domid $id) ready after $((SECONDS - t0))s"
			return 0 ;;
		# a root that did not fit in memory unpacks partly; domu-init
		# sees it (the kernel's log, the last file of the archive)
		incomplete) error "$name: initramfs incomplete (too little memory for it?)" ;;
		esac
		n=$((n + 1))
		if [ $((n % 10)) = 0 ]; then
			domu_alive "$name" || error "domain $name died while booting"
		fi
		sleep 0.2
	done
	domu_alive "$name" || error "domain $name died while booting"
	error "domain $name: agent not ready after 120s (boot stalled)"
}

# xl_paused NAME HOOK CMD ARGS...: xl CMD (create or restore) ARGS; with
# a HOOK, the domain is made paused, "HOOK DOMID" runs (toolstack keys a
# driver must find when it loads), then it is unpaused. Returns 1 if the
# hook failed (NAME stays paused).
xl_paused() {
	local name=$1 hook=$2 cmd=$3
	shift 3
	if [ -z "$hook" ]; then
		must xl "$cmd" "$@"
		return 0
	fi
	must xl "$cmd" -p "$@"
	$hook "$(domu_id "$name")" || return 1
	must xl unpause "$name"
}

_stream_console() {
	local f=/var/log/xen/console/guest-$1.log
	# a domain started again under its name: its log is followed already
	grep -qx "$1" "$W/streamed" 2>/dev/null && return
	echo "$1" >>"$W/streamed"
	touch "$f"
	tail -n 0 -F "$f" 2>/dev/null | sed -u "s/^/[$1] /" >/dev/console &
	echo $! >>"$W/tails"
}

# domu_exec NAME TIMEOUT COMMAND: run COMMAND with sh in the domU (NAME
# or its domain id), print the last 1800 bytes of its output, return its
# exit status. TIMEOUT is at least a minute: it is there to catch a hung
# command, and an agent round trip that takes 2 s on an idle testbed
# took over 10 s on a host busy with a second nested testbed (CI of
# 060390a).
domu_exec() {
	local name=$1 tmo=$2 cmd=$3 id base seq res ev rc=
	[ "$tmo" -ge 60 ] || tmo=60
	case $name in
	*[!0-9]*) id=$(domu_id "$name") || error "domain $name is gone" ;;
	*) id=$name ;;
	esac
	base=/local/domain/$id/data/xfab
	seq=$(($(xenstore-read "$base/req") + 1))
	# xenstored keeps at most 2048 bytes in a node: a longer command is
	# refused here, not left for the timeout
	xenstore-write -R -- "$base/cmd" "$cmd" "$base/req" "$seq" ||
		fail "domain $name: xenstore refused the command (${#cmd} bytes): $cmd"
	# dom0 sleeps in one xenstore-watch until the agent writes "done":
	# polling it read xenstore every 0.25 s, a process each, 0.1-0.2 s
	# of dom0 CPU under TCG, for as long as the command ran (which the
	# benchmark counted as the drivers' cost). The watch fires once as
	# it is set (covering a "done" written before) and on every write.
	# The agent writes out and rc before done, and the reads go in the
	# order asked, so a done of this seq comes with this command's rc
	# (one value per line) and out (read raw, alone: raw values have no
	# separator).
	coproc DOMU_WATCH { exec timeout "$tmo" xenstore-watch "$base/done"; }
	while read -r -u "${DOMU_WATCH[0]}" ev; do
		res=$(xenstore-read -- "$base/done" "$base/rc" 2>/dev/null)
		if [ "${res%%$'\n'*}" = "$seq" ]; then
			rc=${res##*$'\n'}
			break
		fi
	done
	kill "$DOMU_WATCH_PID" 2>/dev/null
	wait "$DOMU_WATCH_PID" 2>/dev/null
	if [ -n "$rc" ]; then
		xenstore-read -R -- "$base/out"
		return "$rc"
	fi
	domu_alive "$name" || error "domain $name died while running: $cmd"
	fail "domain $name: '$cmd' did not finish within ${tmo}s"
}

# Like domu_exec, but a non-zero exit fails the scenario.
domu_must() {
	local out rc
	out=$(domu_exec "$@")
	rc=$?
	echo "$out"
	[ $rc = 0 ] || fail "in $1: '$3' exited $rc: $(echo "$out" | tail -n 1)"
}

# A transfer that makes no progress for XFER_IDLE seconds ends (xfab-xfer
# exits 3, "stalled"), so a dead stream fails its scenario with
# diagnostics instead of hanging until the scenario's time limit. A
# sender is done once its data is in its socket buffer: only the
# receiver's line shows that the data arrived.
export XFER_IDLE=${XFER_IDLE:-60}
domu_destroy() {
	xl destroy "$1" 2>&1
	sed -i "/^$1\$/d" "$W/expected-domains" 2>/dev/null
}

# Domains the scenario started and did not destroy that are gone.
lib_dead_domains() {
	local d
	[ -f "$W/expected-domains" ] || return 0
	for d in $(cat "$W/expected-domains"); do
		domu_alive "$d" || printf '%s ' "$d"
	done
}

lib_cleanup_domains() {
	local d
	for d in $(xl list | awk 'NR > 2 { print $1 }'); do
		xl destroy "$d" >/dev/null 2>&1
	done
	[ -f "$W/tails" ] && kill $(cat "$W/tails") 2>/dev/null
	# A receiver whose sender died would hold its port into the next one.
	pkill -f 'xfab-xfer recv' 2>/dev/null
	rm -f "$W/tails" "$W/streamed" "$W/expected-domains" "$W/xfab-domains"
	# appliance groups (xfabctl): their members are gone
	xenstore-rm /xfab 2>/dev/null
}

# Record what a domain's devices negotiated: every feature-*, multi-queue,
# ring and event-channel key of both ends, as figures xs.<dev>.<end>.<key>.
xs_features() {
	local id=$1 dev end path k v
	for dev in vif vbd; do
		for end in front back; do
			if [ $end = front ]; then
				path=/local/domain/$id/device/$dev
			else
				path=/local/domain/0/backend/$dev/$id
			fi
			xenstore-ls -f "$path" 2>/dev/null |
				grep -E '/(feature-[^/]*|multi-queue-[^/]*|ring-page-order|max-ring-page-order|mtu|request-rx-copy|sector-size|mode|state) = ' |
				while IFS= read -r line; do
					k=${line%% = *}
					v=${line#* = }
					v=${v//\"/}
					k=${k#"$path"/}
					figure "xs.$dev.$end.${k//\//.}" "$v"
				done
		done
	done
}

# Load a dom0 backend module by name: stock modules from the kernel's tree,
# xfab ones (file names ending in .ko) from this run's build.
load_backend() {
	if [ -f "$XFAB/modules/$1.ko" ]; then
		must insmod "$XFAB/modules/$1.ko"
	else
		must modprobe "$1"
	fi
}

# hotplug_scripts quick|debian: which vif-bridge and block scripts libxl
# runs in dom0. The runner picks "quick" (guest/hotplug/, the same keys
# written with a few programs instead of dozens: about 3 s less per vif
# and per disk plugged and unplugged under TCG) before each scenario;
# the stock baseline and the xfab-xfab interop scenarios ask for Debian's
# own, so xfab's backends are tested with what a user's dom0 runs.
# Call with no device plugged. Returns 1 (with the reason on stderr) if
# it could not switch: the runner calls it outside any scenario.
hotplug_scripts() {
	local s d=/etc/xen/scripts
	for s in vif-bridge block; do
		if mountpoint -q "$d/$s"; then
			umount "$d/$s" || return 1
		fi
		[ "$1" = debian ] && continue
		mount --bind "$XFAB/guest/hotplug/$s" "$d/$s" || return 1
	done
}

# backend_total MODULE KEY: one line of an xfab backend's debugfs
# summary (its module-wide totals), e.g. xfab_netback pool_pages.
backend_total() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	awk -v k="$2" '$1 == k { print $2 }' "/sys/kernel/debug/$1/summary" 2>/dev/null
}

# use_backend STOCK XFAB WANT: make WANT (STOCK, e.g. xen-netback, or
# XFAB, e.g. xfab_netback) the only backend of its device type in dom0.
# Call with no such device in use; the other module is unloaded.
use_backend() {
	local stock=$1 xfab=$2 conf=/etc/modprobe.d/xfab-test-${1}.conf
	if [ "$3" = "$xfab" ]; then
		# udev would load the stock module for the next device (its alias)
		echo "blacklist ${stock//-/_}" >"$conf"
		modprobe -r "$stock" 2>/dev/null
		lsmod | grep -q "^${stock//-/_} " && error "$stock would not unload"
		lsmod | grep -q "^$xfab " || load_backend "$xfab"
	else
		rm -f "$conf"
		lsmod | grep -q "^$xfab " && must rmmod "$xfab"
		load_backend "$stock"
	fi
}

# Sum of the event-channel interrupts of dom0 IRQs whose name matches.
irq_count() {
	awk -v pat="$1" '$NF ~ pat { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts
}

# status_check DOMID DEV FE BE WORD...: `xfabctl status DOMID --json`
# reports DEV with FE and BE at its ends and each WORD (a mode word,
# !word, counter>0, group=NAME: tests/vm/guest/status_check.py).
status_check() {
	local id=$1 dev=$2 out res
	shift
	out=$(xfabctl status "$id" --json 2>&1) || fail "xfabctl status $id: $out"
	res=$(python3 "$XFAB/guest/status_check.py" "$@" <<<"$out" 2>&1) ||
		fail "xfabctl status $id $dev: $res"
	log "xfabctl status $id $dev: $res"
}

# What status names a driver: "stock" for a stock frontend (it writes no
# xfab-driver key), the module for ours; stock backends by their module.
status_fe() { case $1 in xfab_*) echo "$1" ;; *) echo stock ;; esac; }

# wait_for SECS CMD...: poll CMD every 0.5 s; false if it never succeeds.
wait_for() {
	local n=$(($1 * 2))
	shift
	while [ $n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
		n=$((n - 1))
	done
	return 1
}

# ---- appliance groups (xen-patches/; scenarios 060, 401, 402) ----

# Does this boot run the hypervisor built from xen-patches/? xen-build.sh
# marks it: xl info's xen_extra ends in -xfab.
xen_patched() { xl info | grep -q '^xen_extra.*-xfab'; }

# Is domain $1 (an id or a name) no longer listed (destroyed whole, not
# held as a zombie)? Names and ids are both matched: a name once went
# to the id column here, so such a check could never fail.
dom_gone() { ! xl list | awk 'NR > 1 { print $1; print $2 }' | grep -qx "$1"; }

# domu_plant NAME TOKEN: NAME plants 4 MiB of locked pages (xfab-peek
# plant, common/xfab_plant.h) and keeps them while it lives.
domu_plant() {
	domu_must "$1" 60 "xfab-peek plant $2 4096 >/tmp/plant.log 2>&1 </dev/null & sleep 3; cat /tmp/plant.log" |
		grep -q "planted 1024 pages" || fail "$1 could not plant its pages"
}

# counters_of TEXT: "name: value" lines (ethtool -S) into the caller's
# associative array ctr, in bash: a process per counter costs 0.1-0.2 s
# under TCG. Read several counters from one ethtool -S this way.
counters_of() {
	local k v
	ctr=()
	while read -r k v; do
		[ -n "$v" ] && ctr[${k%:}]=$v
	done <<< "$1"
}

