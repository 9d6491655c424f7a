#!/usr/bin/env python3
"""Run numbered scenarios on the nested Xen testbed (host side).

Builds (or finds) the cached image, builds this tree's modules and helpers
in the image chroot, packs them with the guest scripts onto a per-run disk,
boots Xen + dom0 under QEMU TCG (-cpu Nehalem: see docs/testbed.md), reads
the verdict from its own channel (a virtio serial port, never the console),
and writes a results directory:

  serial.log             Xen, dom0 and (prefixed) domU consoles
  channel.log            the raw results channel
  meta.json              machine record: Xen, kernel, QEMU, CPU, vCPUs, memory,
                         and the settings passed with --env
  scenarios/NNN-x.json   status, seconds, reason, figures, offending lines
  summary.txt            one screen; also printed
  rerun/                 the second boot of --rerun-errors, same layout

Exit status: 0 all PASS/SKIP, 1 a FAIL, 2 an ERROR (sick testbed, stall).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SCENARIO_DIR = os.path.join(HERE, "scenarios")


# In tests/vm/scenarios, those numbered from here on are soaks and long
# cycles: they run in `make check-full` (--full), not in `make check`.
# Other directories (the benchmark's, 9xx) run whole.
FULL_FROM = 500
# Those numbered PATCHED_FROM up to FULL_FROM need the hypervisor with
# xen-patches/ applied (appliance groups): they run in a boot of their
# own (--patched-xen), and only there; everything else runs on Debian's
# stock Xen, which is what xfab must work on.
PATCHED_FROM = 400
# Those numbered DKMS_FROM up to PATCHED_FROM test the Debian packages
# installed in dom0's root (tests/vm/dkms-root.sh): they run in a boot of
# that root with no modules on the run disk (--dkms), and only there.
DKMS_FROM = 300


# A scenario below FULL_FROM whose header has this line runs in `make
# check-full` only: a variant cell whose family make check covers with
# another cell (a stock peer's lifecycle beside the xfab pair's), moved
# there to keep make check's time (docs/testbed.md, "make check's share").
FULL_TIER = re.compile(r"^# Tier: check-full$", re.M)


def full_tier(path):
    """Does the scenario at PATH say it runs in check-full only? Its
    header is its comment block, well within the first 4 KiB."""
    with open(path, errors="replace") as f:
        return bool(FULL_TIER.search(f.read(4096)))


def numbered(d, soaks=True, patched=False, dkms=False):
    """Every numbered scenario in directory d, in order; without soaks,
    only those below FULL_FROM that are not of the check-full tier; with
    patched (dkms), only the patched-Xen (installed-package) ones."""
    def wanted(f):
        n = int(f[:3])
        if not soaks and full_tier(os.path.join(d, f)):
            return False
        if patched:
            return PATCHED_FROM <= n < FULL_FROM
        if dkms:
            return DKMS_FROM <= n < PATCHED_FROM
        return n < DKMS_FROM or (soaks and n >= FULL_FROM)
    return " ".join(sorted(f[:3] for f in os.listdir(d)
                           if re.match(r"\d{3}-.*\.sh$", f) and wanted(f)))


def default_scenarios(d, full, patched=False, dkms=False):
    """What runs when no --scenarios is given."""
    is_tests = os.path.realpath(d) == os.path.realpath(SCENARIO_DIR)
    if not is_tests:
        return numbered(d)
    return numbered(d, soaks=full, patched=patched, dkms=dkms)


DEFAULT_SCENARIOS = numbered(SCENARIO_DIR, soaks=False)
# Lines in any console (Xen, dom0, domUs) that make the scenario running
# at the time ERROR (the whole run, if logged before any): processes
# dying in libc and traps, the symptoms of a sick nested guest
# (docs/testbed.md), which make its results suspect. "Oops: int3": a
# breakpoint left by live kernel-text patching executed after the patch
# completed (seen once under TCG in stock TCP code); kernel text is
# read-only, so no driver can plant one. "exc_debug_kernel": a
# single-step trap in kernel mode with no debugger attached (seen under
# TCG in kmalloc, with TF, DF and NT all set in the interrupted kernel
# context, by QEMU 7.2's cmpxchg16b; qemu.sh now gives 8.0 or later):
# corrupted CPU state, which no driver can cause for another task's
# kernel context. An
# oops whose "Modules linked in:" list is empty: a kernel that had loaded
# no module yet, so none of ours and no frontend (modules here; a domU's
# built-in xenbus core watches a backend only once a frontend driver
# binds) can have run in it or fed it anything (seen once: a domU's
# scheduler dereferenced NULL during its initcalls, CI of ffd81da).
TESTBED_SICK = re.compile(r"segfault at|traps:|Oops: int3|"
                          r"WARNING: .* exc_debug_kernel|"
                          r"Modules linked in:\s*$")
# Kernel splats: a driver bug until shown otherwise, so a FAIL of the
# scenario during which the dom0 runner found it (ERROR if the testbed
# was sick too). Found by this host-side scan only (boot, the gaps
# between scenarios), they fail every scenario that passed. The kernel's
# watchdogs count: a soft lockup ("BUG: soft lockup"), a task blocked in
# D state past hung_task_timeout_secs (xenwatch stuck in a backend's
# disconnect stops all PV device handling in dom0) and an RCU stall.
SPLAT = re.compile(r"general protection fault|Kernel panic|"
                   r"Oops|BUG:|kernel BUG|WARNING:|KASAN|UBSAN|unable to handle|"
                   r"Call Trace:|blocked for more than \d+ seconds|"
                   r"rcu.*detected.*stall")
# The dom0 runner's reason for a trap in, or the death of, a domU that had
# an xfab module loaded: our code ran there, so it is a FAIL that the
# console's trap lines must not turn into ERROR (and never run again).
XFAB_DOMAIN = "xfab domain "
# The dom0 runner's console line as a scenario starts (its end line has
# ": STATUS" after the name): console lines up to the next one were logged
# while it ran or was torn down.
SCEN_START = re.compile(r"xfab-run: === (\d{3}-[^\s:]+)\s*$")
# dom0's own kernel lines on the console (a domU's carry "[dN] " first,
# Xen's "(XEN)"), and the line of an oops that lists the loaded modules:
# a dom0 that dies with one of ours loaded ran our code, so the scenario
# it died in is a FAIL, not a sick testbed's ERROR (as when dom0 died of
# a BUG that a guest's packets reached through xfab_netback's LRO).
DOM0_KERNEL = re.compile(r"^\[\s*\d+\.\d+\] ")
XFAB_MODULES = re.compile(r"Modules linked in:.*\bxfab_")
# QEMU's CPU model. Nehalem: with "max" nested guests corrupt memory
# (docs/testbed.md). With CMPXCHG16B: without it Linux emulates SLUB's
# per-CPU cmpxchg16b with pushf/cli/popf, and in a Xen PV kernel cli
# masks nothing (Xen emulates it as a no-op), so dom0's and the domUs'
# slab allocators raced their own interrupts: dom0's oops of 2026-11-28
# to 29 (docs/bench.md). QEMU 7.2 gets that instruction's flags wrong,
# so qemu.sh gives a QEMU of 8.0 or later.
CPU_MODEL = "Nehalem"
# xpti=false: QEMU's Nehalem model does not claim immunity to Meltdown,
# so Xen would isolate the page tables of every PV guest and switch them
# at each guest kernel entry and exit; each switch flushes QEMU's software
# TLB. Off, a domU boot and a scenario run about a quarter faster (001:
# 106 -> 74 s, 012: 76 -> 60 s), and the testbed is closer to a host on
# a current CPU, where Xen does not use XPTI either.
XEN_CMDLINE = ("console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M "
               "dom0_max_vcpus=2 loglvl=all guest_loglvl=all xpti=false")
# Extra hypervisor arguments for experiments; empty in check and bench.
XEN_EXTRA = os.environ.get("XFAB_XEN_ARGS", "").strip()
# Boot-time work no test needs, costly under TCG (measured in a domU:
# about 10 of 24 s of kernel boot): crypto self-tests, the KDF and
# encrypted-keys self-tests, the jitter entropy source. guest/lib.sh gives
# domUs the same list (DOMU_FAST_BOOT).
FAST_BOOT = ("cryptomgr.notests "
             "initcall_blacklist=crypto_kdf108_init,init_encrypted,jent_mod_init")
DOM0_CMDLINE = ("root=/dev/vda rw console=hvc0 earlyprintk=xen xfab.run=1 "
                + FAST_BOOT)
# Extra dom0 kernel arguments for experiments (e.g. xen.fifo_events=0 to
# run dom0 on the 2-level event ABI); empty in check and bench.
DOM0_EXTRA = os.environ.get("XFAB_DOM0_ARGS", "").strip()


def log(msg):
    print(f"[vm {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build_image():
    out = subprocess.run([os.path.join(HERE, "image.sh")], check=True,
                         stdout=subprocess.PIPE, text=True)
    return out.stdout.strip().splitlines()[-1]


def build_dkms_root():
    """The directory of dom0's root with the packages installed
    (tests/vm/dkms-root.sh)."""
    out = subprocess.run([os.path.join(HERE, "dkms-root.sh")], check=True,
                         stdout=subprocess.PIPE, text=True)
    return out.stdout.strip().splitlines()[-1]


def build_xen():
    """The patched hypervisor's directory (tests/vm/xen-build.sh)."""
    out = subprocess.run([os.path.join(HERE, "xen-build.sh")], check=True,
                         stdout=subprocess.PIPE, text=True)
    return out.stdout.strip().splitlines()[-1]


def run_conf(scenarios, scen_timeout, env):
    """The dom0 runner's settings (sourced by bash)."""
    return (f'SCENARIOS="{scenarios}"\nSCEN_TIMEOUT={scen_timeout}\n' +
            "".join(f"export {k}='{v}'\n" for k, v in env) +
            # the same patterns for both scans (plain alternation: ERE)
            f"TESTBED_RE='{TESTBED_SICK.pattern}'\nSPLAT_RE='{SPLAT.pattern}'\n")


def make_run_disk(image, workdir, args, scenarios):
    """The per-run disk: guest scripts, scenarios, xl configs, modules."""
    rundir = os.path.join(workdir, "rundisk")
    for sub in ("guest", "xl"):
        shutil.copytree(os.path.join(HERE, sub), os.path.join(rundir, sub))
    shutil.copytree(args.scenario_dir, os.path.join(rundir, "scenarios"))
    if args.prebuilt:
        log(f"modules and helpers from {args.prebuilt}")
        for sub in ("modules", "helpers"):
            shutil.copytree(os.path.join(args.prebuilt, sub),
                            os.path.join(rundir, sub))
    else:
        log("building modules and helpers in the image chroot")
        sh([os.path.join(HERE, "kbuild.sh"), os.path.join(image, "chroot"),
            rundir])
    if args.dkms:
        # dom0 loads the modules DKMS installed in its root, by name
        log("no modules on the run disk: those in dom0's root (DKMS) serve")
        shutil.rmtree(os.path.join(rundir, "modules"))
        os.makedirs(os.path.join(rundir, "modules"))
    with open(os.path.join(rundir, "run.conf"), "w") as f:
        f.write(run_conf(scenarios, args.scen_timeout, args.env))
    img = os.path.join(workdir, "run.img")
    sh(["mkfs.ext4", "-q", "-F", "-L", "xfabrun", "-d", rundir, img, "128M"],
       stdout=subprocess.DEVNULL)
    return img


def find_qemu():
    """The QEMU binary and its data directory (None: its own), from
    qemu.sh: 8.0 or later, fetched once on a host whose QEMU is older
    (docs/testbed.md, "CPU model")."""
    out = subprocess.run([os.path.join(HERE, "qemu.sh")], stdout=subprocess.PIPE,
                         text=True)
    if out.returncode != 0 or len(out.stdout.split()) != 2:
        sys.exit("run.py: no QEMU the testbed can run on (tests/vm/qemu.sh said why)")
    binary, data = out.stdout.split()
    return binary, (None if data == "-" else data)


QEMU = None     # (binary, data directory or None), found once by main()


def qemu_version():
    out = subprocess.run([QEMU[0], "--version"],
                         stdout=subprocess.PIPE, text=True).stdout
    return out.splitlines()[0] if out else "unknown"


def host_speed():
    """MB/s of SHA-256 on one host core, taken as a boot starts: scenario
    001 took 123 s one morning on this machine and 190-196 s that
    evening, and a run's times mean little without its host's pace.
    The best of three 32 MiB passes (well under a second)."""
    buf = b"\x5a" * (32 << 20)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        hashlib.sha256(buf).digest()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return round(32 / best)


def qemu_cmd(image, workdir, results, vcpus, mem_mb, xen=None, rootfs=None):
    overlay = os.path.join(workdir, "root.qcow2")
    scratch = os.path.join(workdir, "scratch.qcow2")
    sh(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
        rootfs or os.path.join(image, "rootfs.img"), overlay])
    sh(["qemu-img", "create", "-q", "-f", "qcow2", scratch, "4G"])
    # A comma inside the multiboot module command line must be doubled.
    dom0 = f"{image}/vmlinuz {DOM0_CMDLINE} {DOM0_EXTRA}".strip().replace(",", ",,")
    datadir = ["-L", QEMU[1]] if QEMU[1] else []
    return [
        QEMU[0], *datadir, "-machine", "pc",
        "-accel", "tcg,thread=multi,tb-size=1024", "-cpu", CPU_MODEL,
        "-smp", str(vcpus), "-m", str(mem_mb),
        "-display", "none", "-vga", "none", "-monitor", "none", "-parallel", "none", "-no-reboot", "-nic", "none",
        "-serial", f"file:{results}/serial.log",
        "-device", "virtio-serial-pci",
        "-chardev", f"file,id=res,path={results}/channel.log",
        "-device", "virtserialport,chardev=res,name=org.xfab.results",
        "-drive", f"file={overlay},if=virtio,format=qcow2,cache=unsafe",
        "-drive", f"file={workdir}/run.img,if=virtio,format=raw,cache=unsafe",
        "-drive", f"file={scratch},if=virtio,format=qcow2,cache=unsafe",
        "-kernel", xen or f"{image}/xen",
        "-append", f"{XEN_CMDLINE} {XEN_EXTRA}".strip(),
        "-initrd", f"{dom0},{image}/initrd.img",
    ]


class Channel:
    """Incremental reader of the results channel and of the serial log."""

    def __init__(self, results, verbose):
        self.results = results
        self.verbose = verbose
        self.pos = {"channel.log": 0, "serial.log": 0}
        self.partial = {"channel.log": "", "serial.log": ""}
        self.meta = {}
        self.scen = {}
        self.order = []
        self.done = False
        self.last_event = time.time()
        # (scenario running when it was logged or None, line)
        self.sick = []
        self.splats = []
        self.stock_splats = set()
        # scenario -> its first dom0 splat line; dom0_xfab: the scenarios
        # in which dom0 oopsed with an xfab module loaded, that line
        self.dom0_splat = {}
        self.dom0_xfab = {}
        self.current = None
        self.settled = False

    def _read(self, name):
        path = os.path.join(self.results, name)
        try:
            with open(path, "rb") as f:
                f.seek(self.pos[name])
                data = f.read()
        except FileNotFoundError:
            return []
        self.pos[name] += len(data)
        text = self.partial[name] + data.decode("utf-8", "replace")
        lines = text.split("\n")
        self.partial[name] = lines.pop()
        return [ln.rstrip("\r") for ln in lines]

    def poll(self):
        for ln in self._read("serial.log"):
            m = SCEN_START.search(ln)
            if m:
                self.current = m.group(1)
            if TESTBED_SICK.search(ln):
                self.sick.append((self.current, ln.strip()))
            elif SPLAT.search(ln):
                self.splats.append(ln.strip())
            if DOM0_KERNEL.match(ln):
                self._dom0_line(ln.strip())
            if self.verbose or self._progress(ln):
                print("  | " + ln, flush=True)
        for ln in self._read("channel.log"):
            self.last_event = time.time()
            self._event(ln)

    def _dom0_line(self, ln):
        """Remember a dom0 oops that names an xfab module, by scenario."""
        if SPLAT.search(ln):
            self.dom0_splat.setdefault(self.current, ln)
        if XFAB_MODULES.search(ln) and self.current:
            self.dom0_xfab.setdefault(self.current,
                                      self.dom0_splat.get(self.current, ln))

    @staticmethod
    def _progress(ln):
        """Console lines worth showing without -v: the runner's, and the
        scenarios' own log lines except the xenstore feature dump."""
        if "xfab-run:" in ln:
            return True
        return bool(re.match(r"\[\d{3}-[^]]*\] \d\d:\d\d:\d\d ", ln)) and \
            "figure xs." not in ln

    def _scenario(self, name):
        """The record of a scenario; created by its first event, which
        should be @@begin, but a lost line must not crash the reader."""
        if name not in self.scen:
            self.order.append(name)
            self.scen[name] = {"name": name, "status": "ERROR",
                               "reason": "scenario did not finish",
                               "figures": {}, "xenstore": {}, "lines": []}
        return self.scen[name]

    def _event(self, ln):
        parts = ln.split(" ", 3)
        kind = parts[0]
        if kind == "@@meta" and len(parts) >= 2:
            self.meta[parts[1]] = ln.split(" ", 2)[2] if len(parts) > 2 else ""
        elif kind == "@@begin" and len(parts) >= 2:
            self._scenario(parts[1])
            log(f"scenario {parts[1]} started")
        elif kind == "@@fig" and len(parts) >= 3:
            s = self._scenario(parts[1])
            key, val = parts[2], parts[3] if len(parts) > 3 else ""
            if key.startswith("xs."):
                s["xenstore"][key[3:]] = val
            else:
                s["figures"][key] = num(val)
        elif kind == "@@stock" and len(parts) >= 3:
            # a stock driver's splat the scenario recorded as its finding
            self.stock_splats.add(ln.split(" ", 2)[2].strip())
        elif kind == "@@line" and len(parts) >= 3:
            self._scenario(parts[1])["lines"].append(ln.split(" ", 2)[2])
        elif kind == "@@end" and len(parts) >= 4:
            f = ln.split(" ", 4)
            s = self._scenario(f[1])
            s["status"], s["seconds"] = f[2], num(f[3])
            s["reason"] = f[4] if len(f) > 4 else ""
            log(f"scenario {f[1]}: {s['status']} ({f[3]}s) {s['reason']}")
        elif kind == "@@done":
            self.done = True


def num(v):
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def run_vm(cmd, chan, args):
    log(f"booting Xen + dom0 under QEMU TCG (-cpu {CPU_MODEL})")
    with open(os.path.join(chan.results, "qemu.log"), "w") as qlog:
        proc = subprocess.Popen(cmd, stdout=qlog, stderr=subprocess.STDOUT)
    t0 = time.time()
    verdict = None
    try:
        while True:
            time.sleep(0.5)
            chan.poll()
            if chan.done:
                break
            if proc.poll() is not None:
                verdict = f"QEMU exited ({proc.returncode}) before the verdict"
                break
            if not chan.meta and time.time() - t0 > args.boot_timeout:
                verdict = f"boot stalled: dom0 runner silent for {args.boot_timeout}s"
                break
            if time.time() - chan.last_event > args.scen_timeout + 120:
                verdict = "run stalled: no results for %ds" % (args.scen_timeout + 120)
                break
    finally:
        # The verdict is out (or never will be): do not wait for a clean
        # poweroff, a sick guest can hang in shutdown.
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        chan.poll()
    log(f"VM stopped after {time.time() - t0:.0f}s")
    return verdict


def settle(chan, verdict, scenarios):
    """Final verdicts from the channel's and the console's: a scenario
    that never reported is ERROR; a trap logged while a scenario ran makes
    it ERROR, one logged outside any (boot) the whole run; a kernel splat
    the dom0 runner did not attribute fails every scenario that passed."""
    if chan.settled:
        return
    chan.settled = True
    for name in scenarios.split():
        if not any(o.startswith(name) for o in chan.order):
            chan.order.append(name)
            chan.scen[name] = {"name": name, "status": "ERROR",
                               "reason": verdict or "never started",
                               "figures": {}, "xenstore": {}, "lines": []}
    # dom0 died in a scenario with our modules loaded: that one FAILs
    for name, ln in chan.dom0_xfab.items():
        s = chan.scen.get(name)
        if s and s["status"] == "ERROR":
            s["status"] = "FAIL"
            s["reason"] = (f"{XFAB_DOMAIN}dom0 oopsed with xfab modules "
                           f"loaded and never finished: {ln[:160]}")
            s["lines"] = s["lines"] + [ln]
    # Splats the dom0 runner attributed already failed their scenario:
    # as kernel log lines, or as the oops of a domain running xfab code.
    splats = [ln for ln in chan.splats if ln not in chan.stock_splats]
    unattributed = splats and not any(
        s["status"] in ("FAIL", "ERROR") and
        s["reason"].startswith(("kernel log:", XFAB_DOMAIN))
        for s in chan.scen.values())
    run_wide = [ln for sc, ln in chan.sick if sc is None]
    for name in chan.order:
        s = chan.scen[name]
        sick = run_wide or [ln for sc, ln in chan.sick if sc == name]
        ours = s["status"] == "FAIL" and s["reason"].startswith(XFAB_DOMAIN)
        if ours:
            s["lines"] = s["lines"] + sick[:10]
        elif sick and s["status"] != "SKIP":
            s["status"] = "ERROR"
            s["reason"] = "sick testbed: " + sick[0][:160]
            s["lines"] = s["lines"] + sick[:10]
        elif unattributed and s["status"] == "PASS":
            s["status"] = "FAIL"
            s["reason"] = ("kernel splat outside the scenarios: " +
                           splats[0][:160])
            s["lines"] = s["lines"] + splats[:10]


def hostile_table(chan):
    """The hostile-peer conformance table from the scenarios' figures
    hostile.<backend>.<case>.verdict ("ok ..." or "bad ..."): {case:
    {backend: verdict}} in the order met, and the backends in order."""
    table, backends = {}, []
    for name in chan.order:
        for key, val in chan.scen[name]["figures"].items():
            m = re.fullmatch(r"hostile\.([^.]+)\.([^.]+)\.verdict", key)
            if not m:
                continue
            be, case = m.group(1), m.group(2)
            if be not in backends:
                backends.append(be)
            table.setdefault(f"{name[:3]} {case}", {})[be] = str(val)
    return table, backends


def write_hostile(chan, results):
    """hostile.json and hostile.md in the results, if any scenario ran a
    hostile peer."""
    table, backends = hostile_table(chan)
    if not table:
        return
    with open(os.path.join(results, "hostile.json"), "w") as f:
        json.dump({"backends": backends, "cases": table}, f, indent=2)
    md = ["| case | " + " | ".join(backends) + " |",
          "|---|" + "---|" * len(backends)]
    for case, row in table.items():
        md.append(f"| {case} | " +
                  " | ".join(row.get(b, "-").replace("|", "/") for b in backends) + " |")
    with open(os.path.join(results, "hostile.md"), "w") as f:
        f.write("\n".join(md) + "\n")


def write_results(chan, results, verdict, scenarios, extra_meta):
    settle(chan, verdict, scenarios)
    write_hostile(chan, results)
    os.makedirs(os.path.join(results, "scenarios"), exist_ok=True)
    meta = dict(chan.meta, **extra_meta)
    for name in chan.order:
        s = chan.scen[name]
        with open(os.path.join(results, "scenarios", name + ".json"), "w") as f:
            json.dump(s, f, indent=2)
    with open(os.path.join(results, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    lines = [f"xfab testbed run {os.path.basename(results)}",
             f"  xen {meta.get('xen', '?')}  kernel {meta.get('kernel', '?')}",
             f"  {meta.get('qemu', '?')}  cpu {meta.get('cpu', '?')}  "
             f"{meta.get('vcpus')} vCPU {meta.get('memory_mb')} MiB {meta.get('accel')}"]
    if verdict:
        lines.append(f"  run: ERROR {verdict}")
    counts = {}
    for name in chan.order:
        s = chan.scen[name]
        counts[s["status"]] = counts.get(s["status"], 0) + 1
        lines.append(f"  {s['status']:5} {name} ({s.get('seconds', '-')}s) {s['reason']}")
        for ln in s["lines"][:5]:
            lines.append(f"        {ln[:150]}")
    reruns = [n for n in chan.order if "first_boot" in chan.scen[n]]
    if "first_boot" in meta:
        lines.append(f"  first boot died before any scenario (first-boot/): "
                     f"{meta['first_boot'][:120]}")
    lines.append("scenarios: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    # ERRORs passed on a second boot: flakes stay visible
    lines.append(f"reruns: {len(reruns)}" +
                 (f" ({' '.join(n[:3] for n in reruns)})" if reruns else ""))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(results, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    if counts.get("ERROR"):
        return 2
    return 1 if counts.get("FAIL") else 0


def env_pair(s):
    """NAME=VALUE for --env: a shell variable name, a value without quotes."""
    m = re.fullmatch(r"([A-Z_][A-Z0-9_]*)=([^'\n]*)", s)
    if not m:
        raise argparse.ArgumentTypeError(
            f"'{s}': want NAME=VALUE, NAME in capitals, no quote in VALUE")
    return m.group(1), m.group(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario-dir", default=SCENARIO_DIR,
                    help="where the numbered scripts are (the benchmark has its own)")
    ap.add_argument("--scenarios", default=os.environ.get("SCENARIOS"),
                    help="space-separated scenario numbers (default: all in "
                         f"the directory below {FULL_FROM}, for tests/vm/scenarios: "
                         f"{DEFAULT_SCENARIOS})")
    ap.add_argument("--env", action="append", default=[], type=env_pair,
                    metavar="NAME=VALUE", help="exported to the scenarios")
    ap.add_argument("--full", action="store_true",
                    default=bool(os.environ.get("XFAB_FULL")),
                    help=f"by default, also the soaks (numbered {FULL_FROM} and up)")
    ap.add_argument("--tag", default="vm", help="results/<tag>-<time>/")
    ap.add_argument("--results", default=os.environ.get("XFAB_RESULTS",
                                                        os.path.join(TOP, "results")))
    ap.add_argument("--scen-timeout", type=int, default=900)
    # make check has just built them (tests/vm/kbuild.sh in the image
    # chroot, helpers included): the same build, not a second one
    ap.add_argument("--prebuilt", metavar="DIR",
                    help="modules/ and helpers/ of a kbuild.sh run against "
                    "this image's chroot, instead of building them")
    ap.add_argument("--rerun-errors", type=int, default=0, metavar="N",
                    help="if 1..N scenarios end in ERROR (sick testbed), run them "
                         "again in a fresh boot and report that verdict (make check: 3)")
    ap.add_argument("--xen", metavar="FILE",
                    help="boot this hypervisor (a multiboot ELF) instead of the image's")
    ap.add_argument("--patched-xen", action="store_true",
                    help="boot Xen with xen-patches/ applied (built and cached by "
                         f"tests/vm/xen-build.sh); by default run scenarios "
                         f"{PATCHED_FROM}-{FULL_FROM - 1}, which need it")
    ap.add_argument("--dkms", action="store_true",
                    help="boot dom0 from the image with xfab's .debs installed "
                         "(tests/vm/dkms-root.sh, cached), no modules on the run "
                         f"disk; by default run scenarios {DKMS_FROM}-{PATCHED_FROM - 1}")
    ap.add_argument("--boot-timeout", type=int, default=600)
    ap.add_argument("--vcpus", type=int, default=2)
    ap.add_argument("--memory", type=int, default=4096)
    ap.add_argument("-v", "--verbose", action="store_true",
                    default=bool(os.environ.get("XFAB_VERBOSE")),
                    help="print every console line, not only the runner's")
    args = ap.parse_args()
    if args.patched_xen and args.dkms:
        sys.exit("run.py: --patched-xen and --dkms each need a boot of their own")
    if args.patched_xen:
        args.xen = os.path.join(build_xen(), "xen")
    if args.xen and not os.path.isfile(args.xen):
        sys.exit(f"run.py: --xen {args.xen}: no such file")
    if args.scenarios is None:
        args.scenarios = default_scenarios(args.scenario_dir, args.full,
                                           args.patched_xen, args.dkms)
    if not args.scenarios:
        sys.exit("run.py: no scenarios to run")
    for s in args.scenarios.split():
        if not re.fullmatch(r"\d{3}", s):
            sys.exit(f"run.py: bad scenario '{s}': give three-digit numbers, e.g. 001")

    global QEMU
    QEMU = find_qemu()
    results = os.path.join(args.results, args.tag + "-" + time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(results)
    log(f"results in {results}")
    image = build_image()
    args.rootfs = os.path.join(build_dkms_root(), "rootfs.img") if args.dkms else None
    extra = {"qemu": qemu_version(), "host_sha256_mb_s": host_speed(),
             "accel": "tcg", "cpu_model": CPU_MODEL,
             "vcpus": args.vcpus, "memory_mb": args.memory,
             "image": os.path.basename(image),
             "hypervisor": args.xen or "the image's (Debian's)",
             "dom0_root": "xfab .debs installed (DKMS)" if args.dkms else "the image's",
             "env": dict(args.env)}
    chan, verdict = boot(image, results, args, args.scenarios)
    if args.rerun_errors and died_before_scenarios(chan):
        why = early_death(chan, verdict)
        log(f"the testbed died before any scenario began ({why[:120]}): no xfab "
            "code had run; once more in a fresh boot (the first in first-boot/)")
        keep_first_boot(results)
        extra["first_boot"] = why[:200]
        chan, verdict = boot(image, results, args, args.scenarios)
    settle(chan, verdict, args.scenarios)
    again = rerun_list(chan, verdict, args.rerun_errors)
    if again:
        nums = " ".join(n[:3] for n in again)
        log(f"ERROR in {nums}: a sick testbed says nothing of the drivers; "
            "once more in a fresh boot (results in rerun/)")
        sub = os.path.join(results, "rerun")
        os.makedirs(sub)
        chan2, verdict2 = boot(image, sub, args, nums)
        write_results(chan2, sub, verdict2, nums, extra)
        merge_rerun(chan, chan2, again)
    return write_results(chan, results, verdict, args.scenarios, extra)


def boot(image, results, args, scenarios):
    """One testbed boot running SCENARIOS: (its channel, its verdict)."""
    with tempfile.TemporaryDirectory(prefix="xfab-vm-") as workdir:
        make_run_disk(image, workdir, args, scenarios)
        cmd = qemu_cmd(image, workdir, results, args.vcpus, args.memory, args.xen,
                       args.rootfs)
        with open(os.path.join(results, "qemu.cmd"), "w") as f:
            f.write(" ".join(cmd) + "\n")
        chan = Channel(results, args.verbose)
        return chan, run_vm(cmd, chan, args)


def died_before_scenarios(chan):
    """Did the boot end before its first scenario began? dom0 loads xfab's
    modules in scenarios only (dom0-run.sh), so none of our code had run:
    like a trap before any scenario, it says nothing of the drivers (seen:
    dom0's int3 Oops in sched_clock_cpu at 3.7 s of boot, under TCG)."""
    return not chan.order


def early_death(chan, verdict):
    """What a boot that died before any scenario showed: its first sick
    or splat line, else the run's verdict."""
    lines = [ln for _, ln in chan.sick] + chan.splats
    return lines[0] if lines else (verdict or "no scenario began")


def keep_first_boot(results):
    """Move a dead boot's files to results/first-boot/, for the next."""
    first = os.path.join(results, "first-boot")
    os.makedirs(first)
    for f in os.listdir(results):
        if f != "first-boot":
            shutil.move(os.path.join(results, f), first)


def rerun_list(chan, verdict, limit):
    """The scenarios of a settled run that ended in ERROR, if there are
    1..LIMIT of them and the run itself ended (no stall, QEMU alive):
    more means the testbed is unusable, not a passing flake."""
    errs = [n for n in chan.order if chan.scen[n]["status"] == "ERROR"]
    return errs if not verdict and 0 < len(errs) <= limit else []


def merge_rerun(chan, chan2, names):
    """The second boot's verdicts replace the first's ERRORs; the reason
    keeps what the first boot said."""
    for name in names:
        first = chan.scen[name]
        got = [o for o in chan2.order if o[:3] == name[:3]]
        again = dict(chan2.scen[got[0]]) if got else {
            "name": name, "status": "ERROR", "reason": "not in the second boot",
            "figures": {}, "xenstore": {}, "lines": []}
        again["reason"] = (f"{again['reason']} [second boot; the first: "
                           f"ERROR {first['reason'][:120]}]")
        again["first_boot"] = first
        chan.scen[name] = again


if __name__ == "__main__":
    sys.exit(main())
