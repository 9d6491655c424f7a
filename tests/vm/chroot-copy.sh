#!/bin/bash
# A throwaway copy of a cached build chroot (tests/vm/build-chroot.sh,
# built first if missing), with /proc mounted: for what must install
# packages or write into a chroot without touching the cached one
# (tests/pkg.sh, tests/kpatch.sh, tests/vm/dkms-root.sh). The caller
# unmounts DIR/proc and removes DIR.
#
# Usage: tests/vm/chroot-copy.sh SUITE DIR
set -euo pipefail
suite=${1:?usage: chroot-copy.sh SUITE DIR}
dir=${2:?usage: chroot-copy.sh SUITE DIR}
src=$("$(dirname "$0")"/build-chroot.sh "$suite")
cp -a "$src" "$dir"
mount -t proc proc "$dir/proc"
