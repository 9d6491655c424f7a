#!/usr/bin/env python3
"""make kernel-patch: a patch that puts xfab's five drivers in a Linux tree.

Usage: packaging/kernel-patch.py KSRC [OUTDIR]

Writes OUTDIR/xfab-linux-VERSION.patch (OUTDIR: build/kernel-patch), to
apply with `patch -p1` in KSRC. It adds drivers/xen/xfab/ (the drivers,
the common/ core they use, Kconfig entries, Makefiles) and hooks it into
drivers/xen/Kconfig and drivers/xen/Makefile. The drivers are written
for 6.12; the compat header that gives older kernels 6.12's names goes in
as it is, force-included as out of tree (on 6.12 it adds one helper).

Built in, the five share one copy of the common/ core (drivers/xen/xfab/
common/, linked into vmlinux); as modules each carries its own, as the
out-of-tree build does. docs/kernel-patch.md says how to build with it.
"""
import difflib
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIVERS = ("netfront", "netback", "blkfront", "blkback", "window")
KCONFIG_HEAD = """\
# SPDX-License-Identifier: GPL-2.0 OR MIT
# xfab: Xen paravirtual network and block drivers for appliances. Each
# speaks the stock netif/blkif protocols (it works with a stock peer) and
# switches to its fast path when both ends are xfab. A stock driver built
# in (=y) binds every device at boot, before xfab could: each xfab driver
# needs its stock counterpart =m or off. With both modules, the one loaded
# first takes the devices (xfab-enable, or a blacklist, picks it).

menuconfig XFAB
	bool "xfab: fast paravirtual drivers for Xen appliances"
	depends on XEN
	help
	  xfab's network and block frontends and backends: wire-compatible
	  replacements of xen-netfront, xen-netback, xen-blkfront and
	  xen-blkback, faster between two xfab ends (grants mapped once,
	  in-ring polling, LRO in the backend), and xfab_window for
	  appliance groups (a hypervisor with xfab's patches).

	  If unsure, say N.

if XFAB
"""

KCONFIG_ENTRIES = {
    "netfront": ("XFAB_NETFRONT", "network frontend (domU)", """\
	depends on NET
	depends on XEN_NETDEV_FRONTEND != y
	select XEN_XENBUS_FRONTEND""", """\
	  The guest side of a Xen virtual network interface (vif), in
	  place of xen-netfront: the netif protocol, so it works with
	  xen-netback too. With xfab_netback at the other end it sends
	  from pages the backend maps once, instead of per-packet grants.
	  Module: xfab_netfront."""),
    "netback": ("XFAB_NETBACK", "network backend (dom0, driver domain)", """\
	depends on XEN_BACKEND && NET
	depends on XEN_NETDEV_BACKEND != y""", """\
	  The host side of a Xen virtual network interface: a vifD.N
	  device per guest interface, in place of xen-netback. It serves
	  xen-netfront as well as xfab_netfront, merges a guest's TCP
	  segments (LRO) before the host's stack, and counts what it
	  drops in ethtool -S. Module: xfab_netback."""),
    "blkfront": ("XFAB_BLKFRONT", "block frontend (domU)", """\
	depends on BLOCK
	depends on XEN_BLKDEV_FRONTEND != y
	select XEN_XENBUS_FRONTEND""", """\
	  The guest side of a Xen virtual block device (xvd*), in place
	  of xen-blkfront: the blkif protocol, so it works with
	  xen-blkback too. A root disk on it needs it built in or in the
	  initramfs. Module: xfab_blkfront."""),
    "blkback": ("XFAB_BLKBACK", "block backend (dom0, driver domain)", """\
	depends on XEN_BACKEND && BLOCK
	depends on XEN_BLKDEV_BACKEND != y""", """\
	  The host side of a Xen virtual block device, in place of
	  xen-blkback: it serves xen-blkfront as well as xfab_blkfront,
	  and for an xfab guest the toolstack trusts it maps read-only
	  grants once and keeps them. Counters are in sysfs.
	  Module: xfab_blkback."""),
    "window": ("XFAB_WINDOW", "read-only windows into group members (PV)", """\
	depends on XEN_PV""", """\
	  Maps the memory of the other members of this domain's
	  appliance group read-only into it, for the drivers'
	  pointer-passing mode. Needs a hypervisor with xfab's patches
	  (its xen-patches/ directory); on any other it maps nothing.
	  Module: xfab_window."""),
}


def die(msg):
    sys.exit(f"kernel-patch: {msg}")


def read(path):
    with open(path) as f:
        return f.read()


def kernel_version(ksrc):
    mk = read(os.path.join(ksrc, "Makefile"))
    parts = []
    for name in ("VERSION", "PATCHLEVEL", "SUBLEVEL"):
        m = re.search(rf"^{name}\s*=\s*(\d+)\s*$", mk, re.M)
        if not m:
            die(f"{ksrc}/Makefile: no {name} line (not a Linux source tree?)")
        parts.append(int(m.group(1)))
    return tuple(parts)


def core_sources(driver):
    """The common/ sources a driver's core.c brings in."""
    srcs = []
    for ln in read(os.path.join(TOP, driver, "core.c")).splitlines():
        m = re.fullmatch(r'#include "\.\./common/(xfab_\w+\.c)"', ln.strip())
        if m:
            srcs.append(m.group(1))
        elif ln.startswith("#"):
            die(f"{driver}/core.c: '{ln}': core.c may only include common/*.c")
    return srcs


def common_headers(paths):
    """common/ headers the given files include, and those they include."""
    todo, seen = list(paths), set()
    while todo:
        for name in re.findall(r'#include "(?:\.\./common/)?(xfab_\w+\.h)"',
                               read(todo.pop())):
            if name not in seen and os.path.isfile(os.path.join(TOP, "common", name)):
                seen.add(name)
                todo.append(os.path.join(TOP, "common", name))
    return seen


def driver_makefile(driver, config):
    """The driver's Kbuild, in the tree's form: its CONFIG_ symbol, no
    -Werror (the kernel's CONFIG_WERROR decides), and the common/ core
    in the module only when it is one."""
    kbuild = read(os.path.join(TOP, driver, "Kbuild"))
    name = f"xfab_{driver}"
    out = ["# SPDX-License-Identifier: GPL-2.0 OR MIT"]
    for ln in kbuild.splitlines():
        if ln.startswith("#") or not ln.strip():
            out.append(ln)
        elif re.fullmatch(rf"obj-m\s*:=\s*{name}\.o", ln):
            out.append(f"obj-$(CONFIG_{config}) += {name}.o")
        elif re.match(rf"{name}-y\s*:=", ln):
            objs = ln.split(":=", 1)[1].split()
            if "core.o" not in objs:
                die(f"{driver}/Kbuild: no core.o in '{ln}'")
            objs.remove("core.o")
            out.append(f"{name}-y := {' '.join(objs)}")
            out.append("# a module carries its copy of the core; built in, the one")
            out.append("# in drivers/xen/xfab/common/ serves every xfab driver")
            out.append(f"ifeq ($(CONFIG_{config}),m)")
            out.append(f"{name}-y += core.o")
            out.append("endif")
        elif re.match(r"ccflags-y\s*:=", ln):
            out.append("ccflags-y := -I$(srctree)/drivers/xen/xfab/common \\\n"
                       "\t-include $(srctree)/drivers/xen/xfab/common/xfab_compat.h")
        elif re.fullmatch(r"ccflags-\$\(XFAB_WERROR\)\s*\+=\s*-Werror", ln):
            continue
        else:
            die(f"{driver}/Kbuild: '{ln}': teach packaging/kernel-patch.py this line")
    return "\n".join(out) + "\n"


def tree_files():
    """{path in the kernel tree: content} of drivers/xen/xfab."""
    files, all_core, sources = {}, [], []
    for d in DRIVERS:
        config = KCONFIG_ENTRIES[d][0]
        for f in sorted(os.listdir(os.path.join(TOP, d))):
            if f.endswith((".c", ".h")):
                files[f"drivers/xen/xfab/{d}/{f}"] = read(os.path.join(TOP, d, f))
                sources.append(os.path.join(TOP, d, f))
        files[f"drivers/xen/xfab/{d}/Makefile"] = driver_makefile(d, config)
        all_core += [c for c in core_sources(d) if c not in all_core]
    core_paths = [os.path.join(TOP, "common", c) for c in all_core]
    for c in sorted(all_core) + sorted(common_headers(sources + core_paths)):
        files[f"drivers/xen/xfab/common/{c}"] = read(os.path.join(TOP, "common", c))
    # every driver's Makefile force-includes it, as its Kbuild does
    files["drivers/xen/xfab/common/xfab_compat.h"] = read(
        os.path.join(TOP, "common", "xfab_compat.h"))
    objs = " ".join(c[:-2] + ".o" for c in all_core)
    files["drivers/xen/xfab/common/Makefile"] = (
        "# SPDX-License-Identifier: GPL-2.0 OR MIT\n"
        "# The OS-neutral core, once for every xfab driver built in\n"
        f"obj-y := {objs}\n")
    symbols = " ".join(f"$(CONFIG_{KCONFIG_ENTRIES[d][0]})" for d in DRIVERS)
    files["drivers/xen/xfab/Makefile"] = (
        "# SPDX-License-Identifier: GPL-2.0 OR MIT\n" +
        "".join(f"obj-$(CONFIG_{KCONFIG_ENTRIES[d][0]}) += {d}/\n" for d in DRIVERS) +
        "# the core they share when built in (modules carry their own copy)\n"
        f"obj-$(if $(filter y,{symbols}),y) += common/\n")
    kconfig = KCONFIG_HEAD
    for d in DRIVERS:
        sym, prompt, deps, help_text = KCONFIG_ENTRIES[d]
        kconfig += (f"\nconfig {sym}\n\ttristate \"xfab {prompt}\"\n{deps}\n"
                    f"\thelp\n{help_text}\n")
    files["drivers/xen/xfab/Kconfig"] = kconfig + "\nendif # XFAB\n"
    return files


def hooks(ksrc):
    """drivers/xen/Kconfig and Makefile, before and after the hook."""
    kc = read(os.path.join(ksrc, "drivers/xen/Kconfig"))
    mk = read(os.path.join(ksrc, "drivers/xen/Makefile"))
    src = 'source "drivers/xen/xfab/Kconfig"\n'
    lines = kc.splitlines(keepends=True)
    ends = [i for i, ln in enumerate(lines) if ln.strip() == "endmenu"]
    if not ends:
        die(f"{ksrc}/drivers/xen/Kconfig: no endmenu to put xfab's menu before")
    lines.insert(ends[-1], "\n" + src + "\n" if lines[ends[-1] - 1].strip() else src + "\n")
    return {
        "drivers/xen/Kconfig": (kc, "".join(lines)),
        "drivers/xen/Makefile": (mk, mk + "obj-$(CONFIG_XFAB)\t\t\t+= xfab/\n"),
    }


def udiff(path, old, new):
    a = "/dev/null" if old is None else f"a/{path}"
    lines = difflib.unified_diff((old or "").splitlines(keepends=True),
                                 new.splitlines(keepends=True), a, f"b/{path}", n=3)
    return "".join(lines)


def describe():
    try:
        return subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    ksrc = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(TOP, "build", "kernel-patch")
    if not os.path.isfile(os.path.join(ksrc, "drivers/xen/Kconfig")):
        die(f"KSRC={ksrc}: not a Linux source tree (no drivers/xen/Kconfig)")
    if os.path.exists(os.path.join(ksrc, "drivers/xen/xfab")):
        die(f"KSRC={ksrc}: drivers/xen/xfab exists already (patched before?)")
    version = kernel_version(ksrc)
    if (6, 5, 0) <= version < (6, 11, 0):
        die("Linux %d.%d.%d: xfab has no backports for 6.5 to 6.10 (block "
            "device open, queue limits): use 6.1 to 6.4, or 6.11 and later"
            % version)
    parts = [udiff(p, old, new) for p, (old, new) in hooks(ksrc).items()]
    parts += [udiff(p, None, t) for p, t in sorted(tree_files().items())]
    vstr = "%d.%d.%d" % version
    # a commit message, then "---": checkpatch and git am read it so
    head = (f"xfab {describe()}: drivers/xen/xfab for Linux {vstr}\n\n"
            "The xfab Xen network and block drivers, with Kconfig entries\n"
            "under Device Drivers > Xen driver support. Written by xfab's\n"
            "make kernel-patch; apply with patch -p1 in the tree.\n---\n")
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, f"xfab-linux-{vstr}.patch")
    with open(out, "w") as f:
        f.write(head + "".join(parts))
    print(f"kernel-patch: {out} ({len(parts)} files) for Linux {vstr}")


if __name__ == "__main__":
    main()
