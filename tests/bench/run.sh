#!/bin/bash
# `make bench` (and `make bench-quick`): the appliance benchmark. Boots the
# nested testbed once, runs tests/bench/scenarios (each alternates the
# stock and the xfab driver pairs, BENCH_REPEATS rounds), then writes the
# report (tests/bench/report.py) into results/bench-<time>/ and prints it.
#
#   tests/bench/run.sh [--quick] [run.py options]
#
# Environment: BENCH_SECS (seconds per run, 10), BENCH_REPEATS (rounds, 3),
# BENCH_SIZES (netperf message sizes, "1K 16K 64K"), BENCH_D2 (1: also
# the second domU and the domU-to-domU run). --quick is a first look in a
# few minutes: one round, 4 s runs, 16K messages only, one domU.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${BENCH_SECS:-10} reps=${BENCH_REPEATS:-3} sizes=${BENCH_SIZES:-"1K 16K 64K"} d2=${BENCH_D2:-1}
if [ "${1:-}" = --quick ]; then
	shift
	secs=${BENCH_SECS:-4} reps=${BENCH_REPEATS:-1} sizes=${BENCH_SIZES:-16K} d2=${BENCH_D2:-0}
fi
for v in "$secs" "$reps"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_SECS and BENCH_REPEATS must be positive integers (got '$v')" >&2; exit 2; }
done
[[ "$d2" =~ ^[01]$ ]] || { echo "bench: BENCH_D2 must be 0 or 1 (got '$d2')" >&2; exit 2; }
[[ "$sizes" =~ ^[0-9]+K( [0-9]+K)*$ ]] || { echo "bench: BENCH_SIZES must be sizes like '1K 16K 64K' (got '$sizes')" >&2; exit 2; }

tests/vm/deps.sh python3-matplotlib
echo "[bench] $reps round(s) of stock and xfab, ${secs}s per run, message sizes: $sizes"
rc=0
tests/vm/run.py --scenario-dir tests/bench/scenarios --tag bench \
	--scen-timeout 3600 --env "BENCH_SECS=$secs" --env "BENCH_REPEATS=$reps" \
	--env "BENCH_SIZES=$sizes" --env "BENCH_D2=$d2" "$@" || rc=$?
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
