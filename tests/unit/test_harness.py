"""Unit tests of the testbed host harness (tests/vm/run.py): how it reads
the results channel and the serial log and turns them into verdicts. No VM:
the channel and the console are files written here."""
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "xfab_run", os.path.join(HERE, "..", "vm", "run.py"))
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)
spec = importlib.util.spec_from_file_location(
    "xfab_report", os.path.join(HERE, "..", "bench", "report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
spec = importlib.util.spec_from_file_location(
    "xfab_status_check", os.path.join(HERE, "..", "vm", "guest",
                                      "status_check.py"))
status_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(status_check)
spec = importlib.util.spec_from_file_location(
    "xfab_kernel_patch", os.path.join(HERE, "..", "..", "packaging",
                                      "kernel-patch.py"))
kpatch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kpatch)

CHANNEL_OK = """@@meta kernel 6.12.107+deb13-amd64
@@meta xen 4.20.4-pre
@@begin 001-stock-baseline
@@fig 001-stock-baseline tcp_domu_to_dom0_mbit 33.0
@@fig 001-stock-baseline xs.vif.back.0.feature-sg 1
@@end 001-stock-baseline PASS 200 all good
@@begin 002-module-pipeline
@@end 002-module-pipeline FAIL 30 report wrong
@@done
"""

# A console line of the testbed-sick kind (TESTBED_SICK).
TRAP = "[d1] traps: sh[77] general protection fault ip:7f in libc.so.6\n"


class HarnessTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.res = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def feed(self, channel, serial=""):
        with open(os.path.join(self.res, "channel.log"), "w") as f:
            f.write(channel)
        with open(os.path.join(self.res, "serial.log"), "w") as f:
            f.write(serial)
        chan = run.Channel(self.res, verbose=False)
        with redirect_stdout(io.StringIO()):
            chan.poll()
        return chan

    def finish(self, chan, scenarios="001 002", verdict=None):
        with redirect_stdout(io.StringIO()):
            rc = run.write_results(chan, self.res, verdict, scenarios, {"qemu": "q"})
        out = {}
        for name in os.listdir(os.path.join(self.res, "scenarios")):
            with open(os.path.join(self.res, "scenarios", name)) as f:
                out[name[:-5]] = json.load(f)
        return rc, out

    def test_parses_figures_xenstore_and_status(self):
        chan = self.feed(CHANNEL_OK)
        self.assertTrue(chan.done)
        self.assertEqual(chan.meta["xen"], "4.20.4-pre")
        rc, out = self.finish(chan)
        s1 = out["001-stock-baseline"]
        self.assertEqual(s1["status"], "PASS")
        self.assertEqual(s1["figures"]["tcp_domu_to_dom0_mbit"], 33.0)
        self.assertEqual(s1["xenstore"]["vif.back.0.feature-sg"], "1")
        self.assertEqual(out["002-module-pipeline"]["status"], "FAIL")
        self.assertEqual(rc, 1)

    def test_trap_in_any_console_turns_pass_into_error(self):
        serial = TRAP
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"), serial)
        rc, out = self.finish(chan)
        self.assertEqual(rc, 2)
        for s in out.values():
            self.assertEqual(s["status"], "ERROR")
            self.assertIn("sick testbed", s["reason"])

    def test_segfault_line_is_sick(self):
        chan = self.feed(CHANNEL_OK, "systemd[1]: segfault at 0 ip 00007f sp 0 error 4\n")
        self.assertEqual(len(chan.sick), 1)

    def test_boot_warning_fails_every_passing_scenario(self):
        serial = "[    3.1] WARNING: CPU: 0 PID: 1 at drivers/xen/events.c:99\n"
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"), serial)
        self.assertEqual(chan.sick, [])
        rc, out = self.finish(chan)
        self.assertEqual(rc, 1)
        for s in out.values():
            self.assertEqual(s["status"], "FAIL")
            self.assertIn("kernel splat outside the scenarios", s["reason"])

    def test_splat_the_runner_attributed_fails_only_its_scenario(self):
        channel = CHANNEL_OK.replace(
            "FAIL 30 report wrong",
            "FAIL 30 kernel log: dom0: BUG: unable to handle page fault")
        serial = "[   93.1] BUG: unable to handle page fault for address 0\n"
        rc, out = self.finish(self.feed(channel, serial))
        self.assertEqual(rc, 1)
        self.assertEqual(out["001-stock-baseline"]["status"], "PASS")
        self.assertEqual(out["002-module-pipeline"]["status"], "FAIL")

    def test_stock_splat_the_scenario_recorded_fails_nothing(self):
        warn = "[  188.6] WARNING: CPU: 1 PID: 36 at drivers/block/xen-blkback/xenbus.c:337 xen_blkif_disconnect [xen_blkback]"
        trace = "[  188.7] Call Trace:"
        passing = CHANNEL_OK.replace("FAIL 30", "PASS 30")
        recorded = passing.replace(
            "@@end 001", "@@stock 001-stock-baseline %s\n@@stock 001-stock-baseline %s\n@@end 001" % (warn, trace))
        rc, out = self.finish(self.feed(recorded, warn + "\n" + trace + "\n"))
        self.assertEqual(rc, 0)
        self.assertEqual(out["001-stock-baseline"]["status"], "PASS")
        # a splat line the scenario did not record still fails
        rc, out = self.finish(self.feed(recorded, warn + "\n" + trace + "\n[  189.0] BUG: oops\n"))
        self.assertEqual(rc, 1)
        self.assertEqual(out["002-module-pipeline"]["status"], "FAIL")

    def test_watchdog_lines_are_splats(self):
        for line in ("watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [xfab-blk1.5-0:311]",
                     "INFO: task xenwatch:41 blocked for more than 120 seconds.",
                     "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                     "rcu: INFO: rcu_sched self-detected stall on CPU"):
            self.assertTrue(run.SPLAT.search(line), line)
        self.assertFalse(run.SPLAT.search("rcu: Hierarchical RCU implementation."))

    def test_splat_with_traps_is_error(self):
        serial = "[    9.0] Oops: 0000 [#1] SMP\n" + TRAP
        rc, out = self.finish(self.feed(CHANNEL_OK, serial))
        self.assertEqual(rc, 2)
        self.assertEqual(out["001-stock-baseline"]["status"], "ERROR")

    def test_trap_during_a_scenario_is_its_error_only(self):
        serial = "xfab-run: === 001-stock-baseline\n" + \
                 TRAP + \
                 "xfab-run: === 001-stock-baseline: PASS all good\n" \
                 "xfab-run: === 002-module-pipeline\n"
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"), serial)
        rc, out = self.finish(chan)
        self.assertEqual(rc, 2)
        self.assertEqual(out["001-stock-baseline"]["status"], "ERROR")
        self.assertIn("sick testbed", out["001-stock-baseline"]["reason"])
        self.assertEqual(out["002-module-pipeline"]["status"], "PASS")

    def test_errors_run_again_and_the_second_verdict_counts(self):
        serial = "xfab-run: === 002-module-pipeline\n" + TRAP
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"), serial)
        run.settle(chan, None, "001 002")
        self.assertEqual(run.rerun_list(chan, None, 3), ["002-module-pipeline"])
        self.assertEqual(run.rerun_list(chan, None, 0), [])
        self.assertEqual(run.rerun_list(chan, "boot stalled", 3), [])
        second = self.feed("@@begin 002-module-pipeline\n"
                           "@@end 002-module-pipeline PASS 31 fine\n@@done\n")
        run.settle(second, None, "002")
        run.merge_rerun(chan, second, ["002-module-pipeline"])
        rc, out = self.finish(chan)
        self.assertEqual(rc, 0)
        s2 = out["002-module-pipeline"]
        self.assertEqual(s2["status"], "PASS")
        self.assertIn("second boot; the first: ERROR sick testbed", s2["reason"])
        self.assertEqual(s2["first_boot"]["status"], "ERROR")

    def test_hostile_table_from_verdict_figures(self):
        channel = CHANNEL_OK.replace(
            "@@end 001-stock-baseline PASS 200 all good",
            "@@fig 001-stock-baseline hostile.xen-blkback.refuse_flood.verdict bad 9000 answered\n"
            "@@fig 001-stock-baseline hostile.xfab_blkback.refuse_flood.verdict ok rate=100/s\n"
            "@@fig 001-stock-baseline hostile.xfab_blkback.ro_writes.verdict ok a|b\n"
            "@@fig 001-stock-baseline hostile.xfab_blkback.ms 5000\n"
            "@@end 001-stock-baseline PASS 200 all good")
        self.finish(self.feed(channel))
        with open(os.path.join(self.res, "hostile.json")) as f:
            got = json.load(f)
        self.assertEqual(got["backends"], ["xen-blkback", "xfab_blkback"])
        self.assertEqual(got["cases"]["001 refuse_flood"],
                         {"xen-blkback": "bad 9000 answered",
                          "xfab_blkback": "ok rate=100/s"})
        with open(os.path.join(self.res, "hostile.md")) as f:
            md = f.read()
        self.assertIn("| 001 ro_writes | - | ok a/b |", md)
        self.assertEqual(len(got["cases"]), 2)

    def test_no_hostile_table_without_hostile_figures(self):
        self.finish(self.feed(CHANNEL_OK))
        self.assertFalse(os.path.exists(os.path.join(self.res, "hostile.md")))

    def test_summary_counts_reruns(self):
        serial = "xfab-run: === 002-module-pipeline\n" + TRAP
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"), serial)
        run.settle(chan, None, "001 002")
        second = self.feed("@@begin 002-module-pipeline\n"
                           "@@end 002-module-pipeline PASS 31 fine\n@@done\n")
        run.settle(second, None, "002")
        run.merge_rerun(chan, second, run.rerun_list(chan, None, 3))
        self.finish(chan)
        with open(os.path.join(self.res, "summary.txt")) as f:
            self.assertIn("reruns: 1 (002)", f.read())

    def test_trap_in_a_domain_running_xfab_code_fails_and_stays(self):
        # the dom0 runner saw the trap in d1, which had xfab modules
        channel = CHANNEL_OK.replace(
            "FAIL 30 report wrong",
            "FAIL 30 xfab domain trap: d1: traps: sh[77] general protection fault")
        # with the oops around it: the runner attributed that splat too
        serial = ("xfab-run: === 002-module-pipeline\n" + TRAP +
                  "[d1] [    9.1] BUG: kernel NULL pointer dereference, address: 0\n"
                  "[d1] [    9.1] Call Trace:\n")
        chan = self.feed(channel, serial)
        run.settle(chan, None, "001 002")
        self.assertEqual(run.rerun_list(chan, None, 3), [])
        rc, out = self.finish(chan)
        self.assertEqual(rc, 1)
        s2 = out["002-module-pipeline"]
        self.assertEqual(s2["status"], "FAIL")
        self.assertIn("xfab domain trap", s2["reason"])
        self.assertIn(TRAP.strip(), s2["lines"])
        self.assertEqual(out["001-stock-baseline"]["status"], "PASS")
        with open(os.path.join(self.res, "summary.txt")) as f:
            self.assertIn("reruns: 0", f.read())

    def test_dom0_death_with_xfab_modules_fails_its_scenario(self):
        # dom0 oopses in 002 with xfab_netback loaded and the run ends
        oops = ("[  812.1] kernel BUG at net/core/skbuff.c:4855!\n"
                "[  812.1] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI\n"
                "[  812.2] Call Trace:\n"
                "[  812.2] Modules linked in: %s\n"
                "[  812.3] Kernel panic - not syncing: Fatal exception\n")
        begin = "@@begin 001-stock-baseline\n@@end 001-stock-baseline PASS 1\n" \
                "@@begin 002-module-pipeline\n"
        serial = "xfab-run: === 002-module-pipeline\n" + oops % "xfab_netback(O) bridge"
        chan = self.feed(begin, serial)
        run.settle(chan, "QEMU exited (0) before the verdict", "001 002")
        self.assertEqual(run.rerun_list(chan, None, 3), [])
        s2 = chan.scen["002-module-pipeline"]
        self.assertEqual(s2["status"], "FAIL")
        self.assertIn("kernel BUG at net/core/skbuff.c", s2["reason"])
        self.assertEqual(chan.scen["001-stock-baseline"]["status"], "PASS")
        # no module of ours in the oops, or the oops in a domU: still ERROR
        for serial in ("xfab-run: === 002-module-pipeline\n" + oops % "bridge",
                       "xfab-run: === 002-module-pipeline\n" +
                       "".join("[d1] " + ln + "\n" for ln in
                               (oops % "xfab_netfront(O)").splitlines())):
            chan = self.feed(begin, serial)
            run.settle(chan, "QEMU exited (0) before the verdict", "001 002")
            self.assertEqual(chan.scen["002-module-pipeline"]["status"], "ERROR")

    def test_boot_dead_before_any_scenario_is_booted_again(self):
        oops = "[    3.658178] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
        chan = self.feed("", "Xen\n" + oops)
        self.assertTrue(run.died_before_scenarios(chan))
        self.assertIn("Oops: int3", run.early_death(chan, "QEMU exited (0)"))
        self.assertEqual(run.early_death(self.feed(""), "stalled"), "stalled")
        # one scenario began: its verdict is the scenario's, no second boot
        self.assertFalse(run.died_before_scenarios(
            self.feed("@@begin 001-stock-baseline\n", oops)))
        run.keep_first_boot(self.res)
        self.assertEqual(sorted(os.listdir(self.res)), ["first-boot"])
        self.assertIn("serial.log", os.listdir(os.path.join(self.res, "first-boot")))

    def test_an_error_again_stays_an_error(self):
        serial = "xfab-run: === 002-module-pipeline\n" + TRAP
        chan = self.feed(CHANNEL_OK, serial)
        run.settle(chan, None, "001 002")
        second = self.feed("@@meta kernel x\n")
        run.settle(second, "boot stalled: dom0 runner silent", "002")
        run.merge_rerun(chan, second, run.rerun_list(chan, None, 3))
        rc, out = self.finish(chan)
        self.assertEqual(rc, 2)
        self.assertEqual(out["002-module-pipeline"]["status"], "ERROR")

    def test_more_errors_than_the_limit_are_not_run_again(self):
        chan = self.feed("@@meta kernel x\n@@done\n")
        run.settle(chan, None, "001 002 010 011")
        self.assertEqual(len(run.rerun_list(chan, None, 3)), 0)
        self.assertEqual(len(run.rerun_list(chan, None, 4)), 4)

    def test_oops_before_any_module_is_sick(self):
        oops = "[d1] [   13.49] BUG: kernel NULL pointer dereference, address: 10\n" \
               "[d1] [   13.52] Modules linked in:%s\n"
        chan = self.feed(CHANNEL_OK, oops % "\r")
        self.assertEqual(len(chan.sick), 1)
        self.assertEqual(len(chan.splats), 1)
        chan = self.feed(CHANNEL_OK, oops % " xfab_netback(O) xen_netfront")
        self.assertEqual(chan.sick, [])
        self.assertEqual(len(chan.splats), 1)

    def test_ordinary_console_is_not_sick(self):
        serial = "[d1] xen_netfront: Initialising Xen virtual ethernet driver\n" \
                 "[001] figure fio_verify_err = 0\n"
        chan = self.feed(CHANNEL_OK, serial)
        self.assertEqual(chan.sick, [])

    def test_scenario_that_never_started_is_error(self):
        chan = self.feed("@@meta kernel x\n")
        rc, out = self.finish(chan, "001", verdict="boot stalled: dom0 runner silent")
        self.assertEqual(rc, 2)
        self.assertEqual(out["001"]["status"], "ERROR")
        self.assertIn("boot stalled", out["001"]["reason"])

    def test_unfinished_scenario_is_error(self):
        chan = self.feed("@@begin 001-stock-baseline\n")
        rc, out = self.finish(chan, "001", verdict="run stalled")
        self.assertEqual(out["001-stock-baseline"]["status"], "ERROR")
        self.assertEqual(rc, 2)

    def test_all_pass_exits_zero(self):
        chan = self.feed(CHANNEL_OK.replace("FAIL 30", "PASS 30"))
        rc, _ = self.finish(chan)
        self.assertEqual(rc, 0)

    def test_events_without_begin_do_not_crash(self):
        chan = self.feed("@@fig 003-x k 1\n@@line 003-x BUG: oops\n@@end 003-x FAIL 2 bad\n"
                         "@@end\n@@fig\n")
        self.assertEqual(chan.scen["003-x"]["status"], "FAIL")
        self.assertEqual(chan.scen["003-x"]["figures"]["k"], 1)
        self.assertEqual(chan.scen["003-x"]["lines"], ["BUG: oops"])

    def test_progress_lines(self):
        self.assertTrue(run.Channel._progress("[001-stock-baseline] 05:32:51 TCP 256M d1 -> dom0"))
        self.assertTrue(run.Channel._progress("xfab-run: === 001-stock-baseline"))
        self.assertFalse(run.Channel._progress("[001-stock-baseline] 05:32:51 figure xs.vif.back.0.state = 4"))
        self.assertFalse(run.Channel._progress("[d1] [   10.0] xen_netfront: Initialising"))

    def test_partial_lines_wait_for_newline(self):
        chan = self.feed("@@begin 001-a\n@@end 001-a PA")
        self.assertNotIn("seconds", chan.scen["001-a"])
        with open(os.path.join(self.res, "channel.log"), "a") as f:
            f.write("SS 5 ok\n")
        with redirect_stdout(io.StringIO()):
            chan.poll()
        self.assertEqual(chan.scen["001-a"]["status"], "PASS")


class DomuExecTest(unittest.TestCase):
    """lib.sh's domu_exec against stand-in xenstore tools and agent: it
    waits on the watch, returns the command's output and exit status,
    and sees a "done" written before its watch was set."""

    STUBS = {
        "xenstore-read": 'for p; do case $p in -*) ;; *) cat "$S$p" && echo ;; esac; done',
        "xenstore-write": 'while [ $# -gt 0 ]; do case $1 in -*) shift ;; '
                          '*) mkdir -p "$(dirname "$S$1")"; printf %s "$2" >"$S$1"; shift 2 ;; '
                          'esac; done',
        "xenstore-watch": 'echo "$1"; last=$(cat "$S$1" 2>/dev/null); while sleep 0.05; do '
                          'now=$(cat "$S$1" 2>/dev/null); [ "$now" = "$last" ] || echo "$1"; '
                          'last=$now; done',
    }

    def run_exec(self, agent_delay):
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(f"{d}/bin")
            for name, body in self.STUBS.items():
                with open(f"{d}/bin/{name}", "w") as f:
                    f.write("#!/bin/bash\n" + body + "\n")
                os.chmod(f"{d}/bin/{name}", 0o755)
            base = f"{d}/s/local/domain/7/data/xfab"
            os.makedirs(base)
            for k, v in (("req", "4"), ("done", "4"), ("rc", "0"), ("out", "")):
                with open(f"{base}/{k}", "w") as f:
                    f.write(v)
            # the agent: answers request 5 after AGENT_DELAY seconds
            agent = (f'until [ "$(cat {base}/req)" = 5 ]; do sleep 0.02; done; '
                     f'sleep {agent_delay}; printf hello >{base}/out; printf 3 >{base}/rc; '
                     f'printf 5 >{base}/done')
            lib = os.path.join(HERE, "..", "vm", "guest", "lib.sh")
            return subprocess.run(
                ["bash", "-c", f'({agent}) & . "{lib}"; domu_exec 7 10 "true"; echo "rc=$?"'],
                capture_output=True, text=True, timeout=30,
                env={**os.environ, "PATH": f"{d}/bin:" + os.environ["PATH"],
                     "S": f"{d}/s", "W": d, "XFAB": d})

    def test_waits_for_the_agent(self):
        r = self.run_exec(0.5)
        self.assertEqual(r.stdout.split(), ["hello", "rc=3"], r.stderr)

    def test_done_before_the_watch(self):
        r = self.run_exec(0)
        self.assertEqual(r.stdout.split(), ["hello", "rc=3"], r.stderr)


def run_guest_sh(d, stub, call, helpers="net.sh"):
    """lib.sh and the guest helpers file sourced in bash with W and XFAB
    in d (d/out made here), the shell text stub first, then call;
    returns the process and the figures it recorded ("" for none)."""
    import subprocess
    os.makedirs(f"{d}/out", exist_ok=True)
    guest = os.path.join(HERE, "..", "vm", "guest")
    r = subprocess.run(
        ["bash", "-c", f'. "{guest}/lib.sh"; . "{guest}/{helpers}"; {stub}; {call}'],
        capture_output=True, text=True, timeout=30,
        env={**os.environ, "W": d, "XFAB": d, "XFAB_SCEN": "t"})
    figs = ""
    if os.path.exists(f"{d}/out/t.figs"):
        with open(f"{d}/out/t.figs") as f:
            figs = f.read().strip()
    return r, figs


class QueueUseTest(unittest.TestCase):
    """net.sh's net_queues_used against a stand-in tc: each TX queue's
    packets come from its mq child's "Sent" line, whatever the child
    qdisc; a queue under 50 packets, or missing, fails the scenario."""

    MQ = """qdisc mq 0: root
 Sent 9000 bytes 130 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
qdisc fq_codel 0: parent :2 limit 10240p flows 1024 quantum 1514
 Sent 4000 bytes {b} pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
qdisc pfifo_fast 0: parent :1 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
 Sent 5000 bytes {a} pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
"""

    def judge(self, a, b):
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/tc.out", "w") as f:
                f.write(self.MQ.format(a=a, b=b))
            r, figs = run_guest_sh(d, f'tc() {{ cat "{d}/tc.out"; }}',
                                 'net_queues_used vif3.0 to_domu; echo judged')
            return r.returncode, r.stdout, figs

    def test_both_queues_used(self):
        rc, out, figs = self.judge(70, 60)
        self.assertEqual(rc, 0, out)
        self.assertIn("judged", out)
        self.assertEqual(figs, "pkts_to_domu_by_queue q0 70 q1 60")

    def test_an_idle_queue_fails(self):
        rc, out, _ = self.judge(130, 0)
        self.assertEqual(rc, 1)
        self.assertIn("both queues should carry traffic", out)
        rc, _, _ = self.judge(12, 118)
        self.assertEqual(rc, 1)


class StockVerdictTest(unittest.TestCase):
    """hostile.sh's hostile_record holds a stock driver's verdict to
    HS_STOCK: a first word other than the one expected is reported by
    hostile_stock_off, and so is a case with no expected outcome; the
    xfab drivers' verdicts go their own way."""

    def record(self, *calls):
        body = "; ".join(f"hostile_record {c}" for c in calls)
        with tempfile.TemporaryDirectory() as d:
            r, _ = run_guest_sh(d, "stock_splats() { :; }",
                                f'{body}; echo "off=[$(hostile_stock_off)] bad=[$bad]"',
                                helpers="hostile.sh")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout.strip().splitlines()[-1]

    def test_as_measured_is_quiet(self):
        self.assertEqual(self.record("xen-blkback refuse_flood 'bad 9000 answered'",
                                     "xen-netback valid 'ok okay=256'",
                                     "xen-netback pool_hog 'n/a: no pools'",
                                     "xen-blkback close_inflight 'bad detach took 5100 ms'",
                                     "xen-blkback close_inflight 'ok detach_ms=1600'"),
                         "off=[] bad=[]")

    def test_a_stock_driver_doing_otherwise_is_reported(self):
        out = self.record("xen-blkback refuse_flood 'ok rate=100/s'",
                          "xen-netfront tx_peek 'ok 3000 frames read whole'")
        self.assertIn("xen-blkback refuse_flood: ok, expected bad (ok rate=100/s);", out)
        self.assertIn("xen-netfront tx_peek: ok, expected bad", out)
        self.assertIn("bad=[]", out)

    def test_a_case_without_expectation_is_reported(self):
        out = self.record("xen-netback new_case 'ok fine'")
        self.assertIn("xen-netback new_case: no expected outcome in HS_STOCK", out)

    def test_xfab_verdicts_are_not_held_to_the_table(self):
        out = self.record("xfab_blkback refuse_flood 'bad 9000 answered'")
        self.assertEqual(out, "off=[] bad=[ refuse_flood: 9000 answered]")

    def test_every_stock_case_has_an_expected_outcome(self):
        # the cases check-full runs against the stock drivers (050's full
        # lists, 051's stock pair) all have a row
        scen = os.path.join(HERE, "..", "vm", "scenarios")
        with open(os.path.join(HERE, "..", "vm", "guest", "hostile.sh")) as f:
            rows = set(re.findall(r"^\t\[([a-z_-]+\.[a-z_]+)\]=", f.read(), re.M))
        with open(os.path.join(scen, "050-hostile-frontend.sh")) as f:
            s = f.read()
        vbd = re.search(r'VBD_CASES=\$\(hostile_cases "([^"]+)"', s).group(1).split()
        vif = re.search(r'VIF_CASES=\$\(hostile_cases "([^"]+)"', s).group(1).split()
        want = {f"xen-blkback.{c}" for c in vbd} | {f"xen-netback.{c}" for c in vif}
        want |= {"xen-blkfront.stale_read", "xen-blkfront.ring_keep",
                 "xen-netfront.tx_peek", "xen-netfront.tx_null", "xen-netfront.rx_ref"}
        self.assertEqual(sorted(want - rows), [])


class Tcp8Test(unittest.TestCase):
    """net.sh's net_tcp8 against a stand-in iperf3: all 8 streams must
    have delivered data at the receiver; the rate is a figure."""

    OUT = """[ ID] Interval           Transfer     Bitrate         Retr
{streams}[SUM]   0.00-2.00   sec   200 MBytes   839 Mbits/sec  12             sender
[SUM]   0.00-2.01   sec   198 MBytes   826 Mbits/sec                  receiver
"""

    def judge(self, sizes):
        streams = "".join(
            f"[{5 + 2 * i:3d}]   0.00-2.00   sec  {s} MBytes   {s} Mbits/sec    0             sender\n"
            f"[{5 + 2 * i:3d}]   0.00-2.01   sec  {s} MBytes   {s} Mbits/sec                  receiver\n"
            for i, s in enumerate(sizes))
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/iperf.out", "w") as f:
                f.write(self.OUT.format(streams=streams))
            r, figs = run_guest_sh(
                d, f'iperf3() {{ cat "{d}/iperf.out"; }}; timeout() {{ shift; "$@"; }}',
                'net_tcp8 dom0_to_domu; echo judged')
            return r.returncode, r.stdout, figs

    def test_all_streams_deliver(self):
        rc, out, figs = self.judge(["24.7"] * 8)
        self.assertEqual(rc, 0, out)
        self.assertIn("judged", out)
        self.assertEqual(figs, "tcp8_dom0_to_domu 826 Mbits/sec")

    def test_a_stream_with_nothing_fails(self):
        rc, out, figs = self.judge(["28.1"] * 7 + ["0.00"])
        self.assertEqual(rc, 1)
        self.assertIn("7 of 8 streams delivered data", out)
        self.assertEqual(figs, "")
        rc, out, _ = self.judge(["28.1"] * 6)
        self.assertIn("6 of 8 streams", out)


class RunConfTest(unittest.TestCase):
    """run.conf is sourced by the dom0 runner: it must set what it says."""

    def test_bash_reads_every_setting(self):
        import subprocess
        conf = run.run_conf("001 021", 900, [("BENCH_SECS", "4"), ("BENCH_SIZES", "1K 16K")])
        out = subprocess.run(
            ["bash", "-c", conf + 'echo "$SCENARIOS|$SCEN_TIMEOUT|$BENCH_SECS|$BENCH_SIZES";'
             'bash -c \'echo "$BENCH_SIZES"\'; echo "segfault at 0" | grep -cE "$TESTBED_RE";'
             'echo "WARNING: CPU: 0" | grep -cE "$SPLAT_RE";'
             'printf "[1.0] Modules linked in:\\r\\n[1.0] Modules linked in: brd\\n" |'
             ' grep -cE "$TESTBED_RE"'],
            check=True, capture_output=True, text=True).stdout.split("\n")
        self.assertEqual(out[:5], ["001 021|900|4|1K 16K", "1K 16K", "1", "1", "1"])

    def test_trap_is_ours_only_after_an_xfab_module_loaded(self):
        """dom0-run.sh: a domU trap is a FAIL only in a boot that had
        loaded an xfab module (domu-init says so first); one that died
        early in boot ran none of our code (ERROR, run again)."""
        import subprocess
        script = os.path.join(HERE, "..", "vm", "guest", "dom0-run.sh")
        with open(script) as f:
            body = f.read()
        funcs = body[body.index("xfab_console() {"):body.index("run_scenario() {")]
        conf = run.run_conf("001", 900, [])
        with tempfile.TemporaryDirectory() as w:
            cons = {
                # died in early boot, its --mods named an xfab module
                "d1": "[0.0] Linux version 6.12\n[4.0] Modules linked in:\n",
                # trapped with xfab_blkfront loaded
                "d2": "[0.0] Linux version 6.12\ndomu-init: xfab module xfab_blkfront\n"
                      "[9.0] traps: sh[77] general protection fault\n",
                # loaded, then a new boot (same name) trapped early
                "d3": "domu-init: xfab module xfab_netfront\n[0.0] Linux version 6.12\n"
                      "[1.0] traps: sh[1] trap int3\n",
            }
            for d, text in cons.items():
                with open(os.path.join(w, "con." + d), "w") as f:
                    f.write(text)

            def verdict(domains, died):
                with open(os.path.join(w, "xfab-domains"), "w") as f:
                    f.write("\n".join(domains) + "\n")
                return subprocess.run(
                    ["bash", "-c", conf + funcs + 'echo "$(xfab_domain_trap)|$(xfab_domain_died "$1")"',
                     "x", died], env=dict(os.environ, W=w),
                    check=True, capture_output=True, text=True).stdout.strip()
            self.assertEqual(verdict(["d1", "d3"], "d1 d3"), "|")
            self.assertEqual(verdict(["d1", "d2"], "d1 d2"),
                             "d2: [9.0] traps: sh[77] general protection fault|d2")

    def test_soaks_only_in_full_runs(self):
        with tempfile.TemporaryDirectory() as d:
            for f in ("001-a.sh", "020-b.sh", "501-soak.sh", "notes.txt", "02-x.sh"):
                open(os.path.join(d, f), "w").close()
            self.assertEqual(run.numbered(d, soaks=False), "001 020")
            self.assertEqual(run.numbered(d), "001 020 501")
        self.assertNotIn("501", run.default_scenarios(run.SCENARIO_DIR, False).split())
        self.assertIn("501", run.default_scenarios(run.SCENARIO_DIR, True).split())

    def test_install_leaves_test_modules_out(self):
        # xfab_hostile breaks the protocol on purpose: a user's make
        # install (and DKMS) must never put it in updates/
        def var(name):
            return subprocess.run(
                ["make", "-s", "-C", run.TOP, "--eval", "print-%: ; @echo $($*)",
                 f"print-{name}"], check=True, capture_output=True, text=True).stdout.split()
        drivers, tests = var("MODDIRS"), var("TEST_MODDIRS")
        self.assertIn("netback", drivers)
        self.assertFalse([d for d in drivers if d.startswith("tests/")])
        self.assertEqual(sorted(tests), ["tests/hostile", "tests/peer", "tests/wnprobe"])
        with open(os.path.join(run.TOP, "Makefile")) as f:
            rules = f.read().split("\n\n")
        install = [r for r in rules if re.search(r"^install:", r, re.M)]
        self.assertEqual(len(install), 1)
        self.assertNotIn("TEST_MODDIRS", install[0])

    def test_warnings_are_errors_in_our_builds_only(self):
        # a user's DKMS build on a newer compiler must not fail over a
        # new warning; ours (kbuild.sh, which make check uses) must
        for d in ("netfront", "netback", "blkfront", "blkback", "window",
                  "tests/peer", "tests/hostile", "tests/wnprobe"):
            with open(os.path.join(run.TOP, d, "Kbuild")) as f:
                lines = f.read().splitlines()
            plain = [ln for ln in lines if "-Werror" in ln
                     and not ln.startswith("ccflags-$(XFAB_WERROR)")]
            self.assertEqual(plain, [], d)
            self.assertIn("ccflags-$(XFAB_WERROR) += -Werror", lines, d)
        with open(os.path.join(run.TOP, "tests", "vm", "kbuild.sh")) as f:
            makes = [ln for ln in f if re.search(r"\bmake -s ", ln)]
        self.assertTrue(makes)
        self.assertFalse([ln for ln in makes if "XFAB_WERROR=y" not in ln])

    def test_check_full_tier_only_in_full_runs(self):
        with tempfile.TemporaryDirectory() as d:
            heads = {"001-a.sh": "#!/bin/bash\n# 001 a\n",
                     "021-b.sh": "#!/bin/bash\n# 021 b\n# Tier: check-full\n. lib.sh\n",
                     # the line must be exact: a mention is no tier
                     "022-c.sh": "#!/bin/bash\n# see # Tier: check-full in 021\n",
                     "402-d.sh": "#!/bin/bash\n# Tier: check-full\n"}
            for f, text in heads.items():
                with open(os.path.join(d, f), "w") as fh:
                    fh.write(text)
            self.assertEqual(run.numbered(d, soaks=False), "001 022")
            self.assertEqual(run.numbered(d), "001 021 022")
            self.assertEqual(run.numbered(d, soaks=False, patched=True), "")
            self.assertEqual(run.numbered(d, patched=True), "402")
        for n in ("001", "021", "022", "040"):
            self.assertNotIn(n, run.default_scenarios(run.SCENARIO_DIR, False).split())
            self.assertIn(n, run.default_scenarios(run.SCENARIO_DIR, True).split())

    def test_patched_xen_scenarios_run_only_in_their_boot(self):
        with tempfile.TemporaryDirectory() as d:
            for f in ("001-a.sh", "401-group.sh", "499-x.sh", "501-soak.sh"):
                open(os.path.join(d, f), "w").close()
            self.assertEqual(run.numbered(d, soaks=False), "001")
            self.assertEqual(run.numbered(d), "001 501")
            self.assertEqual(run.numbered(d, patched=True), "401 499")
        stock = run.default_scenarios(run.SCENARIO_DIR, True).split()
        patched = run.default_scenarios(run.SCENARIO_DIR, False, True).split()
        self.assertIn("401", patched)
        self.assertNotIn("401", stock)
        self.assertFalse([n for n in patched if not 400 <= int(n) < 500])

    def test_dkms_scenarios_run_only_in_their_boot(self):
        with tempfile.TemporaryDirectory() as d:
            for f in ("001-a.sh", "301-dkms.sh", "401-group.sh", "501-soak.sh"):
                open(os.path.join(d, f), "w").close()
            self.assertEqual(run.numbered(d), "001 501")
            self.assertEqual(run.numbered(d, dkms=True), "301")
            self.assertEqual(run.numbered(d, patched=True), "401")
        dkms = run.default_scenarios(run.SCENARIO_DIR, True, dkms=True).split()
        self.assertIn("301", dkms)
        self.assertFalse([n for n in dkms if not 300 <= int(n) < 400])

    def test_bench_directory_runs_whole(self):
        bench = os.path.join(run.TOP, "tests", "bench", "scenarios")
        self.assertIn("901", run.default_scenarios(bench, False).split())
        self.assertIn("902", run.default_scenarios(bench, False).split())

    def test_env_pairs_are_checked(self):
        self.assertEqual(run.env_pair("BENCH_SECS=4"), ("BENCH_SECS", "4"))
        for bad in ("bench=4", "X", "A=it's"):
            with self.assertRaises(Exception):
                run.env_pair(bad)


class QemuTest(unittest.TestCase):
    """tests/vm/qemu.sh: the testbed runs only on QEMU 8.0 or later
    (docs/testbed.md, "CPU model"); one picked by hand is checked."""

    def qemu_sh(self, version):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "qemu-system-x86_64")
            with open(fake, "w") as f:
                f.write(f"#!/bin/sh\necho 'QEMU emulator version {version} (test)'\n")
            os.chmod(fake, 0o755)
            env = dict(os.environ, XFAB_QEMU=fake, XFAB_CACHE=d)
            out = subprocess.run([os.path.join(HERE, "..", "vm", "qemu.sh")],
                                 capture_output=True, text=True, env=env)
            return out.returncode, out.stdout.replace(fake, "FAKE"), out.stderr

    def test_new_enough_is_taken(self):
        rc, out, _ = self.qemu_sh("10.0.2")
        self.assertEqual((rc, out), (0, "FAKE -\n"))
        self.assertEqual(self.qemu_sh("8.0.0")[:2], (0, "FAKE -\n"))

    def test_qemu_7_is_refused_with_the_reason(self):
        rc, out, err = self.qemu_sh("7.2.22")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("8.0 or later", err)


class SourcingTest(unittest.TestCase):
    """Each scenario sources the helper files whose functions it calls:
    one that calls a net.sh or blk.sh function without sourcing the file
    would die at that call, in the testbed, minutes into a run."""

    GUEST = os.path.join(run.TOP, "tests", "vm", "guest")
    SOURCE = re.compile(r'^\s*(?:\.|source)\s+"?([^"\s]+)"?', re.M)
    DEF = re.compile(r"^([a-z_][a-z0-9_]*)\(\)", re.M)

    @staticmethod
    def code(path):
        """The file's text without comments (a '#' at a line's start or
        after a blank), so that prose naming a helper is no call."""
        with open(path) as f:
            return re.sub(r"(^|\s)#.*", r"\1", f.read(), flags=re.M)

    def helpers(self):
        """{function: helper file} over tests/vm/guest/*.sh."""
        defs = {}
        for name in sorted(os.listdir(self.GUEST)):
            # dom0-run.sh runs the scenarios: none calls into it
            if name.endswith(".sh") and name != "dom0-run.sh":
                for fn in self.DEF.findall(self.code(os.path.join(self.GUEST, name))):
                    defs[fn] = name
        return defs

    def closure(self, path):
        """The guest files @path sources, directly or through them."""
        seen, todo = set(), [path]
        while todo:
            for ref in self.SOURCE.findall(self.code(todo.pop())):
                name = os.path.basename(ref)
                if os.path.isfile(os.path.join(self.GUEST, name)) and name not in seen:
                    seen.add(name)
                    todo.append(os.path.join(self.GUEST, name))
        return seen

    def scripts(self):
        dirs = [os.path.join(run.TOP, "tests", "vm", "scenarios"),
                os.path.join(run.TOP, "tests", "bench", "scenarios"), self.GUEST]
        return [os.path.join(d, n) for d in dirs for n in sorted(os.listdir(d))
                if n.endswith(".sh")]

    def missing(self, path, defs):
        mine = os.path.basename(path) if path.startswith(self.GUEST) else None
        have = self.closure(path) | {mine}
        if mine:
            have.add("lib.sh")	# a helper file is sourced after lib.sh
        words = set(re.findall(r"[a-z_][a-z0-9_]*", self.code(path)))
        return sorted(f"{fn} ({defs[fn]})" for fn in words & set(defs)
                      if defs[fn] not in have)

    def test_every_called_helper_is_sourced(self):
        defs = self.helpers()
        self.assertIn("net_interop", defs)
        self.assertEqual(defs["net_interop"], "net.sh")
        self.assertEqual(defs["blk_interop"], "blk.sh")
        for path in self.scripts():
            self.assertEqual(self.missing(path, defs), [],
                             os.path.relpath(path, run.TOP))

    def test_the_check_sees_a_missing_source(self):
        defs = self.helpers()
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "999-x.sh")
            with open(bad, "w") as f:
                f.write(". /xfab/guest/lib.sh\n# net_interop in prose\n"
                        "blk_interop xfab_blkfront\nnet_interop a b\n")
            self.assertEqual(self.missing(bad, defs),
                             ["blk_interop (blk.sh)", "net_interop (net.sh)"])
            with open(bad, "a") as f:
                f.write(". /xfab/guest/blk.sh\n. \"$XFAB/guest/net.sh\"\n")
            self.assertEqual(self.missing(bad, defs), [])


class StatusCheckTest(unittest.TestCase):
    """The scenarios' reading of `xfabctl status --json`."""
    ROW = {"dev": "vif/0", "frontend_driver": "xfab_netfront",
           "backend_driver": "xfab_netback", "group": "app",
           "mode": ["xfab", "pool", "strict", "group"],
           "counters": {"rx_packets": 5, "tx_packets": 0}}

    def test_match(self):
        self.assertEqual(status_check.check(
            [self.ROW], "vif/0", "xfab_netfront", "xfab_netback",
            ["pool", "!ro-grants", "rx_packets>0", "group=app"]), [])

    def test_each_mismatch_named(self):
        bad = status_check.check(
            [self.ROW], "vif/0", "stock", "xen-netback",
            ["ro-grants", "!pool", "tx_packets>0", "kicks>0", "group=db"])
        self.assertEqual(len(bad), 7, bad)

    def test_device_absent_or_twice(self):
        self.assertEqual(len(status_check.check(
            [self.ROW], "vbd/51728", "stock", "stock", [])), 1)
        self.assertEqual(len(status_check.check(
            [self.ROW, self.ROW], "vif/0", "xfab_netfront", "xfab_netback",
            [])), 1)


class KernelPatchTest(unittest.TestCase):
    """packaging/kernel-patch.py and the compat header: drivers written
    for 6.12 with the header force-included, in and out of tree."""

    SOURCES = ("netfront", "netback", "blkfront", "blkback", "window",
               "common", "tests/peer", "tests/hostile", "tests/wnprobe")

    def test_drivers_use_upstream_names(self):
        # nothing includes the header (Kbuild does), and its one
        # exception is the only name of its own a driver uses
        with open(os.path.join(HERE, "..", "..", "common", "xfab_compat.h")) as f:
            compat = f.read()
        own = set(re.findall(r"^#define\s+((?:xfab|XFAB)_\w+)", compat, re.M))
        own |= set(re.findall(r"\b(xfab_\w+)\(", compat))
        self.assertIn("XFAB_ZCOPY_DEFINE", own)
        used = set()
        for d in self.SOURCES:
            top = os.path.join(HERE, "..", "..", d)
            for f in os.listdir(top):
                if not f.endswith((".c", ".h")) or f == "xfab_compat.h":
                    continue
                with open(os.path.join(top, f)) as fh:
                    text = fh.read()
                self.assertIsNone(re.search(r'#\s*include\s*"xfab_compat\.h"', text),
                                  f"{d}/{f} includes xfab_compat.h")
                used |= {n for n in own if re.search(rf"\b{n}\b", text)}
        self.assertEqual(used, {"XFAB_ZCOPY_DEFINE"})

    def test_every_kbuild_force_includes_it(self):
        for d in self.SOURCES:
            kb = os.path.join(HERE, "..", "..", d, "Kbuild")
            if os.path.exists(kb):
                with open(kb) as f:
                    self.assertRegex(f.read(), r"-include \$\(src\)/[./]*common/xfab_compat\.h", d)

    def test_tree_carries_it_verbatim(self):
        files = kpatch.tree_files()
        with open(os.path.join(HERE, "..", "..", "common", "xfab_compat.h")) as f:
            self.assertEqual(files["drivers/xen/xfab/common/xfab_compat.h"], f.read())
        for d in kpatch.DRIVERS:
            self.assertIn("-include $(srctree)/drivers/xen/xfab/common/xfab_compat.h",
                          files[f"drivers/xen/xfab/{d}/Makefile"], d)

    def fake_tree(self, version):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        os.makedirs(os.path.join(tmp.name, "drivers", "xen"))
        with open(os.path.join(tmp.name, "Makefile"), "w") as f:
            f.write("VERSION = %d\nPATCHLEVEL = %d\nSUBLEVEL = %d\n" % version)
        with open(os.path.join(tmp.name, "drivers/xen/Kconfig"), "w") as f:
            f.write("menu \"Xen driver support\"\nendmenu\n")
        with open(os.path.join(tmp.name, "drivers/xen/Makefile"), "w") as f:
            f.write("obj-y += grant-table.o\n")
        return tmp.name

    def make_patch(self, version):
        ksrc = self.fake_tree(version)
        out = os.path.join(ksrc, "out")
        with mock.patch.object(sys, "argv", ["kernel-patch.py", ksrc, out]), \
                redirect_stdout(io.StringIO()):
            kpatch.main()
        with open(os.path.join(out, "xfab-linux-%d.%d.%d.patch" % version)) as f:
            return f.read()

    def test_patch_for_debian12_and_13(self):
        for v in ((6, 1, 0), (6, 12, 117)):
            text = self.make_patch(v)
            self.assertIn("+++ b/drivers/xen/xfab/common/xfab_compat.h", text)
            self.assertIn("+obj-$(CONFIG_XFAB)", text)

    def test_unsupported_kernel_names_why(self):
        with self.assertRaises(SystemExit) as e:
            self.make_patch((6, 7, 0))
        self.assertIn("6.5 to 6.10", str(e.exception))

    def test_driver_makefile(self):
        mk = kpatch.driver_makefile("netfront", "XFAB_NETFRONT")
        self.assertIn("obj-$(CONFIG_XFAB_NETFRONT) += xfab_netfront.o", mk)
        self.assertIn("ifeq ($(CONFIG_XFAB_NETFRONT),m)\nxfab_netfront-y += core.o", mk)
        self.assertNotIn("-Werror", mk)
        self.assertNotIn("obj-m", mk)


class BenchReportTest(unittest.TestCase):
    """tests/bench/report.py: medians, spreads, ratios, per-packet costs."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.res = self.dir.name
        os.makedirs(os.path.join(self.res, "scenarios"))

    def tearDown(self):
        self.dir.cleanup()

    def write(self, figures, meta=None, scen="901-net", **fields):
        """A scenario's results: PASS with FIGURES unless FIELDS say
        otherwise (status, reason, first_boot)."""
        with open(os.path.join(self.res, "scenarios", scen + ".json"), "w") as f:
            json.dump(dict({"name": scen, "status": "PASS", "figures": figures},
                           **fields), f)
        if meta:
            with open(os.path.join(self.res, "meta.json"), "w") as f:
                json.dump(meta, f)

    def run_report(self):
        with redirect_stdout(io.StringIO()) as out:
            rc = report.main(["report.py", self.res])
        return rc, out.getvalue()

    def test_rerun_and_partial_runs_said(self):
        figs = {"b.stock.1.tcp_stream_16K.mbit": 100,
                "b.xfab.1.tcp_stream_16K.mbit": 150}
        self.write(figs)
        rc, out = self.run_report()
        self.assertNotIn("did not simply pass", out)
        self.write(figs, reason="ok [second boot]",
                   first_boot={"status": "ERROR", "reason": "domU died"})
        self.write({}, scen="902-blk", status="FAIL", reason="fio died")
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        self.assertIn("- 901-net: ran again in a fresh boot after an ERROR "
                      "in the first (domU died)", out)
        self.assertIn("- 902-blk: FAIL (fio died): its figures are partial", out)
        self.assertNotIn("901-net: PASS", out)

    def test_settings_said(self):
        figs = {"b.stock.1.tcp_stream_16K.mbit": 100,
                "b.xfab.1.tcp_stream_16K.mbit": 150}
        self.write(figs, {"xen": "4.20"})
        rc, out = self.run_report()
        self.assertNotIn("Settings:", out)
        self.write(figs, {"xen": "4.20", "env": {"NET_BE_KARGS": "xfab_netback.lro=0",
                                                 "BENCH_REPEATS": "40"}})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        self.assertIn("Settings: BENCH_REPEATS=40, NET_BE_KARGS=xfab_netback.lro=0", out)

    def test_medians_spread_and_ratio(self):
        figs = {}
        for rep, (st, xf) in enumerate([(100, 150), (110, 120), (90, 300)], 1):
            figs[f"b.stock.{rep}.tcp_stream_16K.mbit"] = st
            figs[f"b.xfab.{rep}.tcp_stream_16K.mbit"] = xf
        figs["b.ref.1.loopback_16K.mbit"] = 900
        figs["xs.vif.back.0.feature-sg"] = "1"      # not a bench figure
        self.write(figs, {"xen": "4.20", "kernel": "6.12", "accel": "tcg"})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        row = [ln for ln in out.splitlines() if ln.startswith("| tcp_stream_16K |")][0]
        self.assertIn("100 [90-110] n=3", row)
        self.assertIn("150 [120-300] n=3", row)
        self.assertIn("| 1.50 |", row)
        self.assertIn("Xen 4.20, kernel 6.12", out)
        ref = [ln for ln in out.splitlines() if ln.startswith("| loopback_16K |")][0]
        self.assertIn("900 [900-900] n=1", ref)
        with open(os.path.join(self.res, "bench.json")) as f:
            raw = json.load(f)
        self.assertEqual(len([r for r in raw if r["metric"] == "mbit"]), 7)

    def test_cost_per_packet(self):
        self.write({"b.stock.1.tcp_rr.trans_s": 500, "b.stock.1.tcp_rr.pkts": 2000,
                    "b.stock.1.tcp_rr.irq_dom0": 1000, "b.stock.1.tcp_rr.cpu_dom0": 1.5,
                    "b.stock.1.tcp_rr.cpu_domu": 0.5,
                    "b.xfab.1.tcp_rr.trans_s": 600, "b.xfab.1.tcp_rr.pkts": 4000,
                    "b.xfab.1.tcp_rr.irq_dom0": 1000,
                    "b.xfab.1.tcp_rr.gnt_copy_ops": 8000})
        rc, out = self.run_report()
        irq = [ln for ln in out.splitlines() if "dom0 interrupts / 1000 pkts" in ln][0]
        self.assertIn("| 500 [500-500] n=1 | 250 [250-250] n=1 |", irq)
        cpu = [ln for ln in out.splitlines() if "CPU us / pkt" in ln][0]
        self.assertIn("1000 [1000-1000]", cpu)
        ops = [ln for ln in out.splitlines() if "grant-copy ops / pkt" in ln][0]
        self.assertTrue(ops.endswith("| - | 2 [2-2] n=1 |"), ops)

    def test_cost_per_gb(self):
        # 800 Mbit/s for 10 s is 1 GB; 400 Mbit/s for 5 s is 0.25 GB
        self.write({"b.stock.1.tcp_stream_16K.mbit": 800,
                    "b.stock.1.tcp_stream_16K.secs": 10,
                    "b.stock.1.tcp_stream_16K.cpu_dom0": 6,
                    "b.stock.1.tcp_stream_16K.cpu_domu": 2,
                    "b.xfab.1.tcp_stream_16K.mbit": 400,
                    "b.xfab.1.tcp_stream_16K.secs": 5,
                    "b.xfab.1.tcp_stream_16K.cpu_dom0": 0.5,
                    "b.xfab.1.tcp_stream_16K.cpu_domu": 0.5})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        row = [ln for ln in out.splitlines()
               if "| tcp_stream_16K | CPU s / GB (dom0 + domU)" in ln][0]
        self.assertTrue(row.endswith("| 8 [8-8] n=1 | 4 [4-4] n=1 |"), row)
        dom0 = [ln for ln in out.splitlines() if "CPU s / GB (dom0)" in ln][0]
        self.assertIn("| 6 [6-6] n=1 | 2 [2-2] n=1 |", dom0)

    def test_time_shares_and_context_switches(self):
        figs = {"b.stock.1.udp_64.rx_pps": 100, "b.stock.1.udp_64.pkts": 1000,
                "b.stock.1.udp_64.ctxt_dom0": 3000,
                "b.xfab.1.udp_64.rx_pps": 200, "b.xfab.1.udp_64.pkts": 1000}
        # stock dom0: 10 usr, 30 sys, 20 irq, 30 idle, 10 steal ticks;
        # xfab's domU misses steal, so it gets no row part
        for t, v in zip(["usr", "sys", "irq", "idle", "steal"], [10, 30, 20, 30, 10]):
            figs[f"b.stock.1.udp_64.tick_{t}_dom0"] = v
            figs[f"b.xfab.1.udp_64.tick_{t}_dom0"] = 2 * v
            if t != "steal":
                figs[f"b.xfab.1.udp_64.tick_{t}_domu"] = v
        self.write(figs)
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        dom0 = [ln for ln in out.splitlines() if ln.startswith("| udp_64 | dom0 |")]
        self.assertEqual(dom0, ["| udp_64 | dom0 | 10 / 30 / 20 / 30 / 10 | 10 / 30 / 20 / 30 / 10 |"])
        self.assertFalse([ln for ln in out.splitlines() if ln.startswith("| udp_64 | domU |")])
        ctxt = [ln for ln in out.splitlines() if "dom0 context switches / pkt" in ln][0]
        self.assertTrue(ctxt.endswith("| 3 [3-3] n=1 | - |"), ctxt)

    def test_block_sets_and_cost_per_request(self):
        self.write({"b.stock.1.seq_write_1m.mib_s": 100,
                    "b.xfab.1.seq_write_1m.mib_s": 120,
                    "b.xfabro.1.seq_write_1m.mib_s": 250,
                    "b.ref.1.seq_write_1m.mib_s": 400,
                    "b.xfabro.1.seq_write_1m.reqs": 1000,
                    "b.xfabro.1.seq_write_1m.map_calls": 5,
                    "b.xfabro.1.seq_write_1m.copied": 0,
                    "b.xfab.1.seq_write_1m.reqs": 1000,
                    "b.xfab.1.seq_write_1m.copied": 1048576000})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        row = [ln for ln in out.splitlines() if ln.startswith("| seq_write_1m | MiB/s")][0]
        self.assertIn("| 1.20 | 250 [250-250] n=1 | 2.50 | 400 [400-400] n=1 |", row)
        maps = [ln for ln in out.splitlines() if "grant map hypercalls / request" in ln][0]
        self.assertIn("| - | - | 0.005 [0.005-0.005] n=1 |", maps)
        cp = [ln for ln in out.splitlines() if "bytes copied by the frontend / request" in ln][0]
        self.assertIn("| - | 1048576 [1048576-1048576] n=1 | 0 [0-0] n=1 |", cp)

    def test_experiment_sets_get_columns(self):
        def figs(s, **metrics):
            return {f"b.{s}.1.seq_read_1m_qd1.{k}": v for k, v in metrics.items()}
        # 200 MiB in 100 requests, 0.3 CPU seconds
        self.write({**figs("stock", mib_s=100), **figs("xfab", mib_s=200),
                    **figs("other", mib_s=50),
                    **figs("xfabsp", mib_s=150, reqs=100, cpu_dom0=0.2,
                           cpu_domu=0.1, polls=50, sectors=409600)})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        head = [ln for ln in out.splitlines() if ln.startswith("| workload | metric |")][0]
        self.assertIn("| stock | xfab | xfab/stock | xfab split_kb=256 | "
                      "xfab split_kb=256/stock | other | other/stock | reference |", head)
        self.assertNotIn("xfab-ro", head)
        row = [ln for ln in out.splitlines() if ln.startswith("| seq_read_1m_qd1 | MiB/s")][0]
        self.assertIn("| 2.00 | 150 [150-150] n=1 | 1.50 | 50 [50-50] n=1 | 0.50 | - |", row)
        bhead = [ln for ln in out.splitlines() if ln.startswith("| workload | cost |")][-1]
        self.assertEqual(bhead, "| workload | cost | stock | xfab split_kb=256 |")
        for label, want in (("CPU us / request (dom0 + domU)", "3000 [3000-3000]"),
                            ("CPU ms / MiB (dom0)", "| 1 [1-1]"),
                            ("in-ring polls / request (backend)", "0.5 [0.5-0.5]"),
                            ("CPU ms / MiB (dom0 + domU)", "1.50 [1.50-1.50]"),
                            ("CPU ms / MiB (domU)", "0.5 [0.5-0.5]")):
            ln = [x for x in out.splitlines() if f"| {label} |" in x][0]
            self.assertIn(want, ln)

    def test_no_figures_is_an_error(self):
        self.write({"tcp_domu_to_dom0_mbit": 40})
        with self.assertRaises(SystemExit) as e:
            self.run_report()
        self.assertIn("no benchmark figures", str(e.exception.code))

    def test_profiles_listed_per_workload_set_and_domain(self):
        self.write({"b.stock.1.tcp_rr.trans_s": 500,
                    "p.xfab.tcp_rr.dom0.2": "10.00 vif1.0-q0 [xfab_netback] nb_poll",
                    "p.xfab.tcp_rr.dom0.1": "40.00 [kernel.kallsyms] xen_hypercall_sched_op",
                    "p.xfab.tcp_rr.domu.1": "30.00 [kernel.kallsyms]  memcpy",
                    "p.xfab.tcp_rr.d2.1": "20.00 [xfab_netfront] nf_rx_src"})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        self.assertIn("| net | tcp_rr | xfab | dom0 | 40.00 [kernel.kallsyms] "
                      "xen_hypercall_sched_op; 10.00 vif1.0-q0 [xfab_netback] nb_poll |", out)
        self.assertIn("| net | tcp_rr | xfab | domu | 30.00 [kernel.kallsyms] memcpy |", out)
        # the receiving domU, by name
        self.assertIn("| net | tcp_rr | xfab | d2 | 20.00 [xfab_netfront] nf_rx_src |", out)
        self.assertNotIn("as a whole", out)

    def test_profile_kinds_in_their_own_table(self):
        self.write({"b.stock.1.tcp_rr.trans_s": 500,
                    "p.xfab.tcp_rr.dom0.1": "= busy 41.5 xen 12.0 copy 3.1 alloc 2.0 "
                                            "xfab 9.9 user 4.0",
                    "p.xfab.tcp_rr.dom0.2": "10.00 vif1.0-q0 [xfab_netback] nb_poll"})
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        self.assertIn("| net | tcp_rr | xfab | dom0 | 10.00 vif1.0-q0 [xfab_netback] nb_poll |",
                      out)
        self.assertIn("| bench | workload | set | domain | busy | xen | copy | alloc | "
                      "xfab | user |", out)
        self.assertIn("| net | tcp_rr | xfab | dom0 | 41.5 | 12.0 | 3.1 | 2.0 | 9.9 | 4.0 |",
                      out)

    def test_nfs_fraction_of_the_local_filesystem_per_round(self):
        figs = {}
        # round 1: NFS at half the local rate, round 2 at a quarter, 3 at
        # half again: median 0.5; xfab only in round 1
        for rep, (nfs, loc) in enumerate([(50, 100), (30, 120), (40, 80)], 1):
            figs[f"b.stock.{rep}.nfs_iozone_write_1024K.mib_s"] = nfs
            figs[f"b.stock.{rep}.nfs_local_iozone_write_1024K.mib_s"] = loc
        figs["b.xfab.1.nfs_iozone_write_1024K.mib_s"] = 90
        figs["b.xfab.1.nfs_local_iozone_write_1024K.mib_s"] = 100
        figs["b.xfab.2.nfs_iozone_write_1024K.mib_s"] = 90     # no local: left out
        self.write(figs, scen="904-nfs")
        rc, out = self.run_report()
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        i = lines.index("## NFS appliance: fraction of the storage guest's own filesystem")
        self.assertEqual(lines[i + 4], "| workload | stock | xfab |")
        self.assertEqual(lines[i + 6], "| nfs_iozone_write_1024K | 0.50 (n=3) | 0.90 (n=1) |")
        self.assertEqual(report.size_kib("nfs_local_iozone_randread_64K"), 64)
        self.assertEqual(report.PAIRS["nfs"], report.NET_PAIRS)


class BenchPairingTest(unittest.TestCase):
    """report.py's paired ratios, interval and verdict; bench.sh's round
    order and set checks; run.sh's refusal of what it does not know."""

    BENCH_SH = os.path.join(HERE, "..", "vm", "guest", "bench.sh")
    RUN_SH = os.path.join(HERE, "..", "bench", "run.sh")

    def bash(self, script):
        import subprocess
        return subprocess.run(["bash", "-c", f'. "{self.BENCH_SH}"; ' + script],
                              capture_output=True, text=True)

    def test_null_run_once_a_round_unless_more(self):
        # bench_measure's arguments: SET REP WORKLOAD DOMU CMD (on stderr:
        # bench_null drops the workload's output)
        stub = 'bench_measure() { echo "$1:$2:$3:$4:$5" >&2; }; '
        r = self.bash(stub + 'BENCH_SECS=3 BENCH_SETS="stocksafe xfab"; '
                      'bench_null xfab 1 d1; bench_null stocksafe 1 d1; BENCH_MORE=1; '
                      'bench_null xfab 2 a')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(),
                         ["stocksafe:1:null:d1:sleep 3", "xfab:2:null:a:sleep 3"])

    def test_first_and_last_values_of_the_agent_keys(self):
        out = "@irqs 10\n@stat 1 2 3 4 5 6\nnetperf says 42\n@irqs 15\n@stat 2 3 4 5 6 7"
        r = self.bash(f'domu_first_last "{out}" "@irqs @fekicks @stat"')
        self.assertEqual(r.stdout.splitlines(),
                         ["10 - 1 2 3 4 5 6", "15 - 2 3 4 5 6 7"])

    def test_domain_ids_cached_in_the_scenarios_shell(self):
        # xl is asked once, by bench_ids; subshells read the cache
        r = self.bash('domu_id() { echo 7; }; bench_ids d1; '
                      'domu_id() { echo xl-asked; }; echo "$(bench_id d1) $(bench_id d2)"')
        self.assertEqual(r.stdout.strip(), "7 xl-asked")

    def test_backend_parameters_only_for_the_xfab_sets(self):
        with tempfile.TemporaryDirectory() as d:
            for name in ("lro", "ptr_rx_kb"):
                with open(os.path.join(d, name), "w") as f:
                    f.write("Y\n")
            pre = (f'fail() {{ echo "FAIL $*"; exit 1; }}; BENCH_NB_PARAMS={d}; '
                   'NET_BE_KARGS="xfab_netback.lro=0 xfab_netback.ptr_rx_kb=0 xen_netfront.trusted=0"; ')
            r = self.bash(pre + 'bench_nb_params stocksafe && cat $BENCH_NB_PARAMS/lro')
            self.assertEqual(r.stdout.split(), ["Y"], r.stderr)
            r = self.bash(pre + 'bench_nb_params xfabptr && cat $BENCH_NB_PARAMS/lro $BENCH_NB_PARAMS/ptr_rx_kb')
            self.assertEqual(r.stdout.split(), ["0", "0"], r.stderr)
            r = self.bash(pre + 'NET_BE_KARGS=xfab_netback.nosuch=1; bench_nb_params xfab')
            self.assertEqual(r.returncode, 1)
            self.assertIn("FAIL NET_BE_KARGS: xfab_netback has no parameter nosuch", r.stdout)

    def test_reference_in_every_third_round(self):
        r = self.bash('for r in 0 1 2 3 4 5 6 7 8; do bench_ref_round $r && echo $r; done')
        self.assertEqual(r.stdout.split(), ["1", "4", "7"])

    def test_sign_interval_known_inputs(self):
        # 7 values: only min..max reaches 95 % (1 - 2/128 = 98.4 %)
        self.assertEqual(report.sign_interval([5, 1, 7, 3, 2, 6, 4]),
                         (1, 7, 1 - 2 / 128))
        # 10 values: the 2nd to the 9th (1 - 2 * 11/1024 = 97.9 %)
        self.assertEqual(report.sign_interval(list(range(10, 0, -1))),
                         (2, 9, 1 - 22 / 1024))
        # 5 values: min..max holds only 93.75 %: no 95 % interval
        self.assertIsNone(report.sign_interval([1, 2, 3, 4, 5]))

    def test_ratios_pair_within_rounds(self):
        runs = [{"bench": "net", "set": s, "rep": rep, "workload": "tcp_rr",
                 "metric": "trans_s", "value": v}
                for s, rep, v in [("xfab", 1, 200), ("stocksafe", 1, 100),
                                  ("xfab", 2, 90), ("stocksafe", 2, 100),
                                  ("xfab", 3, 500)]]
        runs.append({"bench": "blk", "set": "stocksafe", "rep": 3,
                     "workload": "tcp_rr", "metric": "trans_s", "value": 1})
        self.assertEqual(report.paired_ratios(runs, "net", "tcp_rr", "trans_s",
                                              "xfab", "stocksafe"), [2.0, 0.9])

    def test_verdicts(self):
        self.assertEqual(report.verdict((0.9, 1.2, 0.98)), "no difference")
        self.assertEqual(report.verdict((1.01, 1.2, 0.98)), "higher")
        self.assertEqual(report.verdict((0.5, 0.99, 0.98)), "lower")
        self.assertEqual(report.verdict(None), "too few rounds for an interval")

    def write_rounds(self, res, pairs):
        os.makedirs(os.path.join(res, "scenarios"))
        figs = {}
        for rep, (safe, xf, st, ro) in enumerate(pairs, 1):
            figs[f"b.stocksafe.{rep}.tcp_stream_16K.mbit"] = safe
            figs[f"b.xfab.{rep}.tcp_stream_16K.mbit"] = xf
            figs[f"b.stock.{rep}.tcp_stream_16K.mbit"] = st
            figs[f"b.xfabro.{rep}.tcp_stream_16K.mbit"] = ro
            for t, v in zip(["usr", "sys", "irq", "idle", "steal"], [5, 10, 5, 80, 0]):
                figs[f"b.xfab.{rep}.null.tick_{t}_dom0"] = v
                figs[f"b.xfab.{rep}.null.tick_{t}_domu"] = v // 5 if t != "idle" else 96
        with open(os.path.join(res, "scenarios", "901-net.json"), "w") as f:
            json.dump({"name": "901-net", "status": "PASS", "figures": figs}, f)

    def test_headline_pairs_intervals_and_harness_load(self):
        with tempfile.TemporaryDirectory() as res:
            # xfab beats stocksafe in every round; xfabro and stock swap
            self.write_rounds(res, [(100, 130, 200, 210), (90, 120, 220, 200),
                                    (110, 150, 210, 230), (100, 125, 190, 180),
                                    (95, 130, 200, 205), (105, 140, 215, 200),
                                    (100, 120, 205, 210)])
            with redirect_stdout(io.StringIO()) as out:
                self.assertEqual(report.main(["report.py", res]), 0)
            out = out.getvalue()
            with open(os.path.join(res, "bench.json")) as f:
                raw = json.load(f)
        rows = [ln for ln in out.splitlines() if ln.startswith("| net | tcp_stream_16K |")]
        self.assertEqual(len(rows), 2)
        self.assertIn("| xfab / stock trusted=0 | 7 | 1.33 | 1.20-1.37 (98.4 %) | higher |",
                      rows[0])
        self.assertIn("| xfab-ro / stock | 7 | 1.02 | 0.91-1.10 (98.4 %) | no difference |",
                      rows[1])
        load = [ln for ln in out.splitlines() if ln.startswith("| xfab | ")][-1]
        self.assertEqual(load, "| xfab | 20.0 | 4.0 |")
        # CPU seconds from the ticks: 20 busy ticks of dom0 = 0.2 s
        cpu = [r for r in raw if r["metric"] == "cpu_dom0" and r["workload"] == "null"]
        self.assertEqual({r["value"] for r in cpu}, {0.2})

    def test_costs_show_every_set_beside_its_partner(self):
        with tempfile.TemporaryDirectory() as res:
            os.makedirs(os.path.join(res, "scenarios"))
            figs = {}
            for s, irq in (("stocksafe", 300), ("xfab", 100)):
                figs.update({f"b.{s}.1.tcp_rr.trans_s": 500, f"b.{s}.1.tcp_rr.pkts": 1000,
                             f"b.{s}.1.tcp_rr.irq_dom0": irq})
            with open(os.path.join(res, "scenarios", "901-net.json"), "w") as f:
                json.dump({"figures": figs}, f)
            with redirect_stdout(io.StringIO()) as out:
                report.main(["report.py", res])
        lines = out.getvalue().splitlines()
        i = [n for n, ln in enumerate(lines) if ln.startswith("Cost per packet")][0]
        self.assertEqual(lines[i + 2], "| workload | cost | stock | stock trusted=0 | xfab |")
        irq = [ln for ln in lines if "dom0 interrupts / 1000 pkts" in ln][0]
        self.assertTrue(irq.endswith("| - | 300 [300-300] n=1 | 100 [100-100] n=1 |"), irq)

    def test_perf_top_keeps_percent_dso_symbol(self):
        # a stand-in perf prints what perf report -q prints
        fake = ("perf() { printf '%s\\n' '    61.20%  swapper  [kernel.kallsyms]  [k] xen_hypercall_pv' "
                "'    21.20%  ksoftirqd/0  [kernel.kallsyms]  [k] xen_hypercall_pv' "
                "'    12.03%  vif1.0-q0  [xfab_netback]      [k] nb_tx_copy' "
                "'     3.10%  netperf  libc.so.6  [.] memcpy' '# comment'; }; ")
        with tempfile.TemporaryDirectory() as d:
            r = self.bash(fake + f'PROF_TOP=2; . "{self.BENCH_SH}"; pf={d}/p; '
                          'eval "$PERF_TOP_SH"')
        # the top symbols, then the profile as a whole (idle left out;
        # memcpy in libc is both a copy and userspace)
        self.assertEqual(r.stdout.split("\n")[:3],
                         ["21.20 ksoftirqd/0 [kernel.kallsyms]  xen_hypercall_pv",
                          "12.03 vif1.0-q0 [xfab_netback]  nb_tx_copy",
                          "= busy 36.3 xen 21.2 copy 3.1 alloc 0.0 xfab 12.0 user 3.1"])
        self.assertEqual(r.stdout.count("\n"), 3)
        # nothing but idle: one line that says so, with perf's last words
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "p.rec"), "w") as f:
                f.write("failed to mmap\n")
            r = self.bash("perf() { echo '  99.00%  swapper  [kernel.kallsyms]  [k] x'; }; "
                          f'. "{self.BENCH_SH}"; pf={d}/p; eval "$PERF_TOP_SH"')
        self.assertEqual(r.stdout, "0 no profile: failed to mmap \n")

    def test_profiled_command_fits_a_xenstore_node(self):
        # the longest measured command of the profiled round: perf around
        # the run, the snapshots of an xfab set, and a netperf run
        r = self.bash('printf %s "$DOMU_PERF_START; $DOMU_IRQS; $DOMU_KICKS; '
                      '$DOMU_STAT; (netperf -H 10.0.0.1 -t TCP_STREAM -l 2 -P 0 -f m -- -m 16K); '
                      'rc=\\$?; $DOMU_PERF_HALT; $DOMU_IRQS; $DOMU_KICKS; $DOMU_STAT; exit \\$rc" | wc -c')
        self.assertEqual(r.returncode, 0, r.stderr)
        # xenstored keeps at most 2048 bytes a node; room for longer runs
        self.assertLess(int(r.stdout), 1800)

    def test_profiled_round_records_no_results(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.bash(f'log() {{ :; }}; OUT={d}/s; BENCH_REPEATS=2 BENCH_PROFILE=1; '
                          'figure() { echo "$1 $2" >>"$OUT.figs"; }; '
                          'one() { echo "run $1 $2"; rec "$1" "$2" tcp_rr trans_s 5; '
                          'cost_rec "$1" "$2" tcp_rr "pkts" "1" "3"; }; '
                          f'bench_rounds "a b" one; cat {d}/s.figs')
        self.assertEqual(r.stdout.split("\n")[:6],
                         ["run b 0", "run a 0", "run a 1", "run b 1", "run b 2", "run a 2"])
        figs = r.stdout.split("\n")[6:]
        self.assertIn("b.a.1.tcp_rr.trans_s 5", figs)
        self.assertFalse([f for f in figs if ".0." in f], figs)

    def test_sizes_in_bytes_or_kib_sort_by_size(self):
        wls = ["tcp_stream_64K", "tcp_stream_1K", "tcp_stream_512", "iozone_write_4K",
               "iozone_write_1024K", "tcp_rr"]
        self.assertEqual(sorted(wls, key=report.workload_order),
                         ["iozone_write_4K", "iozone_write_1024K", "tcp_stream_512",
                          "tcp_stream_1K", "tcp_stream_64K", "tcp_rr"])
        self.assertEqual(report.size_kib("tcp_stream_512"), 0.5)

    def test_rounds_rotate_as_a_latin_square(self):
        out = self.bash('for r in 1 2 3 4; do echo $(bench_order "a b c" $r); done').stdout
        self.assertEqual(out.split("\n")[:4], ["a b c", "b c a", "c a b", "a b c"])
        out = self.bash('for r in 1 2; do echo $(bench_order "stock xfab" $r); done').stdout
        self.assertEqual(out.split("\n")[:2], ["stock xfab", "xfab stock"])

    def test_cost_differences_recorded_at_once(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.bash(f'log() {{ :; }}; OUT={d}/s; cost_rec xfab 2 tcp_rr '
                          '"irq pkts gnt ops ticks" "10 100 - 5 7" "15 300 - 9.5"; '
                          f'cat {d}/s.figs')
        self.assertEqual(r.stdout.splitlines(), ["b.xfab.2.tcp_rr.irq 5",
                                                 "b.xfab.2.tcp_rr.pkts 200",
                                                 "b.xfab.2.tcp_rr.ops 4.5"])

    def test_set_lists_checked(self):
        ok = self.bash('bench_check_sets net "stocksafe xfab xfabpoll"')
        self.assertEqual((ok.returncode, ok.stdout), (0, ""))
        for kind, sets, why in (("net", "stock xfabsp", "unknown net set 'xfabsp'"),
                                ("blk", "stockbig xfab stockbig", "'stockbig' named twice"),
                                ("blk", " ", "no blk set named")):
            r = self.bash(f'bench_check_sets {kind} "{sets}"')
            self.assertEqual(r.returncode, 1)
            self.assertIn(why, r.stdout)

    def test_run_sh_refuses_unknown_settings_before_booting(self):
        import subprocess
        for env, why in ((("BENCH_SETS", "stock xfabfast"), "unknown net set 'xfabfast'"),
                         (("BLK_SETS", "stock,xfab"), "unknown blk set 'stock,xfab'"),
                         (("BLK_POLL_US", "fast"), "BLK_POLL_US must be a number"),
                         (("BENCH_REPEATS", "0"), "positive integers"),
                         (("BENCH_SIZES", "0.5K 16K"), "bytes or KiB"),
                         (("BLK_RECORDS", "4K 1M"), "record sizes in KiB"),
                         (("NFS_RECORDS", "64 1M"), "NFS_RECORDS must be IOZone record sizes"),
                         (("NFS_FILE_MB", "500"), "from 1 to 192"),
                         (("BENCH_PROFILE", "yes"), "BENCH_PROFILE must be 0 or 1"),
                         (("BENCH_MORE", "all"), "BENCH_MORE must be 0 or 1"),
                         (("NET_BE_KARGS", "lro=0"), "NET_BE_KARGS must be xfab_netback's"),
                         (("NET_BE_KARGS", "xfab_netback.lro=0 xen_netback.x=1"),
                          "(got 'xen_netback.x=1')"),
                         (("NFS_RECORDS", "65536"), "does not fit a file of NFS_FILE_MB=32")):
            r = subprocess.run(["bash", self.RUN_SH], capture_output=True, text=True,
                               env={**os.environ, env[0]: env[1]}, timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertNotIn("[bench]", r.stdout)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    bad = len(result.failures) + len(result.errors)
    print(f"harness: {result.testsRun - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)
