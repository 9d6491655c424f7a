#!/bin/bash
# 002 module pipeline
# Objective: a module built by this run's pipeline (in the image chroot,
#   against its headers) loads in dom0 and in a PV domU and works there:
#   xfab_testpeer runs the common/ ring checks in the kernel, grants and
#   revokes a page, registers a xenbus driver, and unloads cleanly. And
#   the testbed is sound where every kernel's slab allocator needs it:
#   the per-CPU cmpxchg128 is atomic against interrupts in dom0 and in
#   a PV domU (cx=ok; ERROR otherwise, a sick testbed: docs/testbed.md,
#   "CPU model").
# Topology: dom0; domU d2 with no devices (xfab_testpeer loaded by its init).
. /xfab/guest/lib.sh

check_report() {
	local who=$1 rep=$2 dom0=$3
	log "$who report: $rep"
	case $rep in
	*"dom0=$dom0 ring=ok grant=0 xenbus=0 "*) ;;
	*) fail "$who: xfab_testpeer report '$rep' (want dom0=$dom0 ring=ok grant=0 xenbus=0)" ;;
	esac
	case $rep in
	*" cx=ok") ;;
	*) error "$who: the per-CPU cmpxchg128 is not atomic against interrupts ('${rep##* }'): this testbed's kernels corrupt their slab caches (docs/testbed.md, \"CPU model\")" ;;
	esac
}

must insmod "$XFAB/modules/xfab_testpeer.ko"
check_report dom0 "$(cat /sys/module/xfab_testpeer/parameters/report)" 1
must rmmod xfab_testpeer

domu_start d2 --novif --mods xfab_testpeer
rep=$(domu_must d2 20 "cat /sys/module/xfab_testpeer/parameters/report") || exit $?
check_report domU "$rep" 0
domu_must d2 20 "rmmod xfab_testpeer && ! test -d /sys/module/xfab_testpeer"
pass "xfab_testpeer built, loaded and unloaded in dom0 and domU"
