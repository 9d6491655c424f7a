#!/bin/bash
# `make check`: the README's test command and what CI runs.
#   1. host packages (installed when missing)
#   2. userspace unit tests of common/ (ASan + UBSan), seconds, and a short
#      libFuzzer run over its validators (check-full: minutes)
#   3. every module compiled against Debian 13's 6.12 headers (in the
#      testbed image chroot) and Debian 12's 6.1 headers (a build chroot)
#   4. checkpatch (make style) and sparse (make sparse), no findings
#   5. one testbed boot running the scenario suite on Debian's Xen, and
#      one on Xen with xen-patches/ (built and cached) for the scenarios
#      that need it (numbered 400-499: appliance groups)
#   check-full also builds and installs the Debian packages (tests/pkg.sh),
#   boots dom0 with them installed (scenarios 300-399) and builds the
#   kernel patch in Debian's 6.12 and 6.1 trees (tests/kpatch.sh)
# Ends with "N passed, N failed, N skipped" over all of them.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
passed=0 failed=0 skipped=0
t0=$SECONDS
stage() { printf '\n=== %s (%ds)\n' "$*" $((SECONDS - t0)); }
count() {
	passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + ${3:-0}))
}
finish() {
	printf '\ncheck took %dm%02ds\n' $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60))
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}

stage "host packages"
tests/vm/deps.sh || { count 0 1; finish; }

stage "unit tests (common/, ASan+UBSan)"
out=$(make -s -k unit 2>&1)
echo "$out"
for suite in unit harness; do
	line=$(echo "$out" | grep -E "^$suite: [0-9]+ passed, [0-9]+ failed" | tail -n 1)
	if [ -n "$line" ]; then
		set -- $(echo "$line" | grep -oE '[0-9]+')
		count "$1" "$2"
	else
		echo "$suite tests did not run to completion"
		count 0 1
	fi
done

stage "testbed image (cached; cold build takes a few minutes)"
image=$(tests/vm/image.sh) || { count 0 1; finish; }

# The stages below come in pairs run at once: each keeps one of this
# machine's two cores busy (libFuzzer is one process, kbuild and
# checkpatch run without -j), so a pair takes as long as its longer half
# (133 s -> about 80 s for the four stages). Each half writes its own
# log, printed whole once the pair is done, and says PASS or FAIL per
# check it made.
jobs_dir=$(mktemp -d)
trap 'rm -rf "$jobs_dir"' EXIT
# the 6.12 build, helpers included, is the one the testbed boots
prebuilt=$jobs_dir/prebuilt

fuzz_secs=10
[ -n "${XFAB_FULL:-}" ] && fuzz_secs=300
job_fuzz() {
	echo "--- fuzzing common/'s validators (${fuzz_secs}s per target)"
	if make -s fuzz FUZZ_SECONDS=$fuzz_secs; then
		echo "PASS fuzz"
	else
		echo "FAIL fuzz (crash input and log in build/fuzz/)"
	fi
}

job_compile() {
	local bw scratch
	echo "--- compile against Debian 13 (6.12) headers, testbed helpers too"
	if tests/vm/kbuild.sh "$image/chroot" "$prebuilt"; then
		echo "PASS compile linux 6.12 (Debian 13)"
	else
		echo "FAIL compile linux 6.12 (Debian 13)"
	fi
	echo "--- compile against Debian 12 (6.1) headers"
	scratch=$jobs_dir/bookworm
	if bw=$(tests/vm/build-chroot.sh bookworm) &&
	   tests/vm/kbuild.sh "$bw" "$scratch" --no-helpers; then
		echo "PASS compile linux 6.1 (Debian 12)"
	else
		echo "FAIL compile linux 6.1 (Debian 12)"
	fi
}

job_style() {
	echo "--- checkpatch over the kernel code (make style)"
	if tests/style.sh; then echo "PASS style"; else echo "FAIL style"; fi
}

job_sparse() {
	echo "--- sparse over the modules, 6.12 headers (make sparse)"
	if tests/sparse.sh; then echo "PASS sparse"; else echo "FAIL sparse"; fi
}

# pair JOB1 JOB2: both at once; then their logs, in order, and the count
# of their PASS and FAIL lines (a half that printed neither failed).
pair() {
	local j pid1 pid2 p f
	"$1" >"$jobs_dir/$1.log" 2>&1 &
	pid1=$!
	"$2" >"$jobs_dir/$2.log" 2>&1 &
	pid2=$!
	wait $pid1 $pid2
	for j in "$1" "$2"; do
		cat "$jobs_dir/$j.log"
		p=$(grep -c '^PASS ' "$jobs_dir/$j.log")
		f=$(grep -c '^FAIL ' "$jobs_dir/$j.log")
		[ $((p + f)) = 0 ] && { echo "FAIL $j: ended without a verdict"; f=1; }
		count "$p" "$f"
	done
}

stage "fuzzing, and compiling against 6.12 and 6.1 (at once)"
pair job_fuzz job_compile
stage "checkpatch and sparse (at once)"
pair job_style job_sparse

# the summary of the newest results/TAG-<time> run: its verdicts counted
count_boot() {
	local summary p f s
	summary=$(ls -td results/"$1"-2*/ 2>/dev/null | head -n 1)
	if [ -n "$summary" ] && [ -f "$summary/summary.txt" ]; then
		p=$(grep -cE '^  PASS ' "$summary/summary.txt")
		f=$(grep -cE '^  (FAIL|ERROR) ' "$summary/summary.txt")
		s=$(grep -cE '^  SKIP ' "$summary/summary.txt")
		count "$p" "$f" "$s"
		grep -q '^  run: ERROR' "$summary/summary.txt" && count 0 1
	else
		echo "no testbed summary written for $1"
		count 0 1
	fi
}

# a script printing a PASS or FAIL line per check, counted here
counted() {
	local out
	out=$("$@" 2>&1)
	echo "$out"
	count "$(grep -c '^PASS ' <<<"$out")" "$(grep -c '^FAIL ' <<<"$out")"
}
# check-full: the packages, built and installed as docs/packages.md says,
# and the kernel patch built in Debian's tree (docs/kernel-patch.md)
if [ -n "${XFAB_FULL:-}" ]; then
	stage "packages: make deb, apt install, DKMS for 6.12 and 6.1"
	counted tests/pkg.sh
	stage "kernel patch: Debian's linux-source-6.12 and 6.1, the five =m and =y"
	counted tests/kpatch.sh trixie
	counted tests/kpatch.sh bookworm
fi

# a scenario that ended in ERROR (sick testbed) runs once more in a fresh
# boot; its verdict there counts (tests/vm/run.py --rerun-errors)
scen_args=(--rerun-errors 3)
# the modules and helpers built above (none: run.py builds them)
[ -f "$prebuilt/modules/xfab_netback.ko" ] && scen_args+=(--prebuilt "$prebuilt")
# the long form of the interop transfers (net_interop in lib.sh)
[ -n "${XFAB_FULL:-}" ] && scen_args+=(--env XFER_SIZE=256M)
# every hostile-peer case against both backends (050, 051); check runs a
# subset that covers each defect fixed (tests/vm/guest/hostile.sh)
[ -n "${XFAB_FULL:-}" ] && scen_args+=(--env HOSTILE_FULL=1)
# the long forms inside scenarios: the whole fio matrix, a driver
# domain's planned restart (blk_fio_verify, 070)
[ -n "${XFAB_FULL:-}" ] && scen_args+=(--env XFAB_FULL=1)
# SCENARIOS picks a subset: each boot runs its share of it
stock_scen=() patched_scen=() dkms_scen=()
if [ -n "${SCENARIOS:-}" ]; then
	for n in $SCENARIOS; do
		if [ "$n" -ge 400 ] 2>/dev/null && [ "$n" -lt 500 ]; then
			patched_scen+=("$n")
		elif [ "$n" -ge 300 ] 2>/dev/null && [ "$n" -lt 400 ]; then
			dkms_scen+=("$n")
		else
			stock_scen+=("$n")
		fi
	done
fi

if [ -z "${SCENARIOS:-}" ] || [ ${#stock_scen[@]} -gt 0 ]; then
	stage "testbed scenarios on Debian's Xen (one boot)"
	tests/vm/run.py "${scen_args[@]}" ${SCENARIOS:+--scenarios "${stock_scen[*]}"}
	count_boot vm
fi
if [ -z "${SCENARIOS:-}" ] || [ ${#patched_scen[@]} -gt 0 ]; then
	stage "Xen with xen-patches/ (cached; a cold build takes about a minute)"
	tests/vm/xen-build.sh >/dev/null
	case $? in
	0)
		stage "testbed scenarios on the patched Xen (one boot)"
		tests/vm/run.py "${scen_args[@]}" --patched-xen --tag vm-patched \
			${SCENARIOS:+--scenarios "${patched_scen[*]}"}
		count_boot vm-patched
		;;
	2)
		# no Xen source on this machine: Debian's mirror has none
		echo "SKIP the patched-Xen scenarios: no Xen 4.20.4 source (see above)"
		count 0 0 1
		;;
	*)
		echo "FAIL the patched hypervisor did not build"
		count 0 1
		;;
	esac
fi
# check-full (or SCENARIOS naming one): dom0 booted from a root with the
# .debs installed, the modules DKMS built there (numbered 300-399)
if { [ -z "${SCENARIOS:-}" ] && [ -n "${XFAB_FULL:-}" ]; } || [ ${#dkms_scen[@]} -gt 0 ]; then
	stage "testbed scenarios with the packages installed in dom0 (one boot)"
	tests/vm/run.py "${scen_args[@]}" --dkms --tag vm-dkms \
		${SCENARIOS:+--scenarios "${dkms_scen[*]}"}
	count_boot vm-dkms
fi
finish
