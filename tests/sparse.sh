#!/bin/bash
# `make sparse`: every module built with sparse checking each source file
# (C=2) against Debian 13's 6.12 headers, in a build chroot of trixie
# (tests/vm/build-chroot.sh, cached) that has sparse. Clean means sparse
# says nothing about our files; what it says about the kernel's own
# headers is not ours to fix and is left out (and counted).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ch=$(tests/vm/build-chroot.sh trixie)
out=$(mktemp -d)
log=$out/build.log
trap 'rm -rf "$out"' EXIT
if ! XFAB_KMAKE_ARGS="C=2" tests/vm/kbuild.sh "$ch" "$out" --no-helpers >"$log" 2>&1; then
	tail -n 30 "$log"
	echo "sparse: the build failed"
	exit 1
fi
# kbuild copies the tree to /tmp/xfab-build in the chroot: our files are
# named relative to it; the kernel's start with /usr/src or ./include.
ours=$(grep -E '^/tmp/xfab-build/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
	sed 's|^/tmp/xfab-build/||' || true)
theirs=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" || true)
theirs=$((theirs - $(printf '%s' "$ours" | grep -c . || true)))
[ -n "$ours" ] && echo "$ours"
echo "sparse: $(printf '%s' "$ours" | grep -c . || true) findings in our files" \
	"($theirs in the kernel's headers, not ours)"
[ -z "$ours" ]
