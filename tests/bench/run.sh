#!/bin/bash
# `make bench` (and `make bench-quick`): the appliance benchmark. Boots the
# nested testbed once, runs tests/bench/scenarios (each runs every driver
# set once per round, in an order rotated each round, BENCH_REPEATS
# rounds), then writes the report (tests/bench/report.py) into
# results/bench-<time>/ and prints it.
#
#   tests/bench/run.sh [--quick] [run.py options]
#
# Environment (each checked here, before the testbed boots, and passed to
# the scenarios; docs/bench.md says what each does):
#   BENCH_SECS      seconds per measured run (2)
#   BENCH_REPEATS   rounds (7; --quick 1)
#   BENCH_SIZES     netperf message sizes, bytes or KiB ("16K")
#   BLK_RECORDS     IOZone record sizes in KiB ("1024")
#   NFS_RECORDS     IOZone record sizes over NFS, KiB ("1024")
#   NFS_FILE_MB     IOZone's file over NFS, MiB (32; --quick 16)
#   BENCH_D2        1: also the second domU and the domU-to-domU run (1)
#   BENCH_MORE      1: also the workloads outside the headline (bench.sh
#                   says which; about twice the time)
#   BENCH_PROFILE   1: a profiled round first (perf in dom0 and the domU
#                   around every run; its top symbols in the report, its
#                   results in no table)
#   BENCH_SETS      network sets (tests/vm/guest/bench.sh, BENCH_NET_SETS;
#                   --quick "stock xfabptr")
#   BLK_SETS        block sets (BENCH_BLK_SETS there; --quick "stockbig xfab")
#   BENCH_KICK_US, BENCH_DEFER, BENCH_FLUSH_NS, BLK_POLL_US: the settings
#                   of the xfabkick, xfabdefer and xfab block sets
#   BLK_FE_KARGS    block frontend parameters for every block set, as
#                   kernel arguments (module.param=value)
#   NET_BE_KARGS    xfab_netback parameters for every xfab network set,
#                   as kernel arguments (xfab_netback.lro=0)
#   BENCH_SWEEP     1: at each network driver swap, make dom0's skb
#                   caches hand out their free objects (the oops hunt,
#                   docs/bench.md; adds about 10 s per swap)
# The full bench (seven rounds of the default sets) is what the report's
# intervals need, in about 70 minutes on a fast day (docs/bench.md, "How
# long": parts measured, the whole estimated); --quick is a first look at
# one pair per benchmark, one round.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${BENCH_SECS:-2} reps=${BENCH_REPEATS:-7} sizes=${BENCH_SIZES:-16K} d2=${BENCH_D2:-1}
nfs_mb=${NFS_FILE_MB:-32} more=${BENCH_MORE:-0}
net_sets=${BENCH_SETS:-} blk_sets=${BLK_SETS:-}
if [ "${1:-}" = --quick ]; then
	shift
	reps=${BENCH_REPEATS:-1} nfs_mb=${NFS_FILE_MB:-16}
	net_sets=${BENCH_SETS:-"stock xfabptr"} blk_sets=${BLK_SETS:-"stockbig xfab"}
fi
bad() { echo "bench: $*" >&2; exit 2; }
# the set names and bench_check_sets (after the settings above are read:
# it gives unset ones its own defaults)
. tests/vm/guest/bench.sh
net_sets=${net_sets:-$BENCH_NET_DEFAULT} blk_sets=${blk_sets:-$BENCH_BLK_DEFAULT}
for v in "$secs" "$reps"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || bad "BENCH_SECS and BENCH_REPEATS must be positive integers (got '$v')"
done
[[ "$d2" =~ ^[01]$ ]] || bad "BENCH_D2 must be 0 or 1 (got '$d2')"
[[ "$more" =~ ^[01]$ ]] || bad "BENCH_MORE must be 0 or 1 (got '$more')"
[[ "${BENCH_PROFILE:-0}" =~ ^[01]$ ]] || bad "BENCH_PROFILE must be 0 or 1 (got '$BENCH_PROFILE')"
[[ "$sizes" =~ ^[1-9][0-9]*K?( [1-9][0-9]*K?)*$ ]] ||
	bad "BENCH_SIZES must be message sizes in bytes or KiB, like '512 1K 16K 64K' (got '$sizes')"
for k in BLK_RECORDS NFS_RECORDS; do
	[[ "${!k:-1024}" =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] ||
		bad "$k must be IOZone record sizes in KiB, like '4 64 1024 4096' (got '${!k}')"
done
# the file and fio's 64 MiB share s's 320 MiB disk
[[ "$nfs_mb" =~ ^[1-9][0-9]*$ ]] && [ "$nfs_mb" -le 192 ] ||
	bad "NFS_FILE_MB must be a size in MiB from 1 to 192 (got '$nfs_mb')"
for r in ${NFS_RECORDS:-1024}; do
	[ "$r" -le $((nfs_mb * 1024)) ] ||
		bad "NFS_RECORDS: a record of $r KiB does not fit a file of NFS_FILE_MB=$nfs_mb MiB"
done
why=$(bench_check_sets net "$net_sets") || bad "BENCH_SETS: $why"
why=$(bench_check_sets blk "$blk_sets") || bad "BLK_SETS: $why"
envs=(--env "BENCH_SECS=$secs" --env "BENCH_REPEATS=$reps" --env "BENCH_SIZES=$sizes"
	--env "BENCH_D2=$d2" --env "BENCH_SETS=$net_sets" --env "BLK_SETS=$blk_sets"
	--env "BLK_RECORDS=${BLK_RECORDS:-1024}" --env "NFS_RECORDS=${NFS_RECORDS:-1024}"
	--env "NFS_FILE_MB=$nfs_mb")
# bench.sh and dom0-run.sh test it for being non-empty
[ "${BENCH_PROFILE:-0}" = 1 ] && envs+=(--env BENCH_PROFILE=1)
[ "$more" = 1 ] && envs+=(--env BENCH_MORE=1)
for k in BENCH_KICK_US BENCH_DEFER BENCH_FLUSH_NS BLK_POLL_US BENCH_SWEEP; do
	[ -n "${!k:-}" ] || continue
	[[ "${!k}" =~ ^[0-9]+$ ]] || bad "$k must be a number (got '${!k}')"
	envs+=(--env "$k=${!k}")
done
if [ -n "${BLK_FE_KARGS:-}" ]; then
	[[ "$BLK_FE_KARGS" =~ ^[A-Za-z0-9_.=,\ -]+$ ]] ||
		bad "BLK_FE_KARGS must be kernel arguments like 'module.param=value' (got '$BLK_FE_KARGS')"
	envs+=(--env "BLK_FE_KARGS=$BLK_FE_KARGS")
fi
if [ -n "${NET_BE_KARGS:-}" ]; then
	for w in $NET_BE_KARGS; do
		[[ "$w" =~ ^xfab_netback\.[a-z_]+=[A-Za-z0-9]+$ ]] ||
			bad "NET_BE_KARGS must be xfab_netback's parameters like 'xfab_netback.lro=0' (got '$w')"
	done
	envs+=(--env "NET_BE_KARGS=$NET_BE_KARGS")
fi

# pointer mode needs the hypervisor with xen-patches/: then every set
# runs in that boot, so that the sets still compare within one boot
case " $net_sets " in
*" xfabptr "*) envs+=(--patched-xen) ;;
esac

tests/vm/deps.sh python3-matplotlib
prof=""
[ "${BENCH_PROFILE:-0}" = 1 ] && prof=" after a profiled one"
[ "$more" = 1 ] && prof+=", every workload (BENCH_MORE)"
echo "[bench] $reps round(s)$prof, ${secs}s per run; network sets: $net_sets" \
	"(message sizes $sizes); block sets: $blk_sets"
rc=0
# a scenario the testbed failed (ERROR: a trap in a kernel that ran none
# of our code, a stall) runs once more in a fresh boot, as in make check;
# the report says which, and uses that boot's figures
tests/vm/run.py --scenario-dir tests/bench/scenarios --tag bench \
	--scen-timeout 3600 --rerun-errors 1 "${envs[@]}" "$@" || rc=$?
last=$(ls -td results/bench-*/ | head -n 1)
echo
# Debian's python3, where deps.sh installed matplotlib (a python3 earlier
# in PATH, e.g. pyenv's, would not see it).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" tests/bench/report.py "$last" && [ "$rc" = 0 ]; then
	rc=1
fi
echo "report: ${last}report.md"
exit "$rc"
