#!/usr/bin/env python3
"""Turn a benchmark run's raw figures into the report (host side).

Reads RESULTS/scenarios/*.json (figures named b.<set>.<rep>.<workload>.
<metric>, written by tests/bench/scenarios) and RESULTS/meta.json, and
writes into RESULTS:

  bench.json   every raw value, one record per (set, round, workload, metric)
  report.md    the machine record; the headline: per workload, each
               trust-matched pair (PAIRS) as the median of the per-round
               ratios with a distribution-free 95 % interval and a
               verdict; the harness's own load (the null run); then per
               workload and metric the median and min-max spread of each
               set and the set/stock ratio of the medians; then the cost
               per packet, per GB, per request and per MiB
  *.png        throughput vs message size, and the headline ratios with
               their intervals (if matplotlib is installed; the report
               says when it is not)

The Markdown table is also printed.
"""
import glob
import json
import math
import os
import re
import statistics
import sys

FIG = re.compile(r"b\.([a-z]+)\.(\d+)\.([A-Za-z0-9_]+)\.([a-z_0-9]+)$")
# The profiled round's top symbols (BENCH_PROFILE): p.<set>.<workload>.
# <domain>.<rank> = "percent task dso symbol"; domain: dom0, domu (the one
# that ran the workload) or the name of another domU the run crossed.
PROF = re.compile(r"p\.([a-z]+)\.([A-Za-z0-9_]+)\.([a-z][a-z0-9]*)\.(\d+)$")
# Metrics that are the workload's result; the rest are cost counters.
RESULTS = {"mbit": "Mbit/s", "trans_s": "transactions/s",
           "rx_pps": "packets/s received", "mib_s": "MiB/s", "iops": "IOPS"}
# Cost per packet: counter -> (label, scale).
COSTS = [("irq_dom0", "dom0 interrupts / 1000 pkts", 1000),
         ("irq_domu", "domU interrupts / 1000 pkts", 1000),
         ("cpu", "CPU us / pkt (dom0 + domU)", 1e6),
         ("gnt_copy_ops", "grant-copy ops / pkt", 1),
         ("gnt_copy_calls", "grant-copy hypercalls / 1000 pkts", 1000),
         ("be_kicks", "backend notifications / 1000 pkts", 1000),
         ("fe_kicks", "frontend notifications / 1000 pkts", 1000),
         ("ctxt_dom0", "dom0 context switches / pkt", 1),
         ("ctxt_domu", "domU context switches / pkt", 1)]
# Where each domain's vCPU time went (its /proc/stat ticks): parts of the
# share table, in order.
TICKS = ["usr", "sys", "irq", "idle", "steal"]
# Cost per GB a throughput run moved (Mbit/s times netperf's own seconds):
# what a byte costs, whatever the packet sizes of each pair; with the
# bytes xfab_netback copied with memcpy (pool mode, or out of a window),
# passed up by pointer (docs/pointer-mode.md) and passed on by reference
# to a receiving member (which copies them once, out of its own window)
# per byte moved, on every vif of the path (the receiving guest's too,
# between guests).
NET_GB_COSTS = [("cpu", "CPU s / GB (dom0 + domU)", 1),
                ("cpu_dom0", "CPU s / GB (dom0)", 1),
                ("cpu_domu", "CPU s / GB (domU)", 1),
                ("copy_bytes", "bytes memcpy'd by the backend / byte", 1e-9),
                ("ptr_bytes", "bytes by pointer / byte", 1e-9),
                ("ref_bytes", "bytes passed on by reference / byte", 1e-9)]
# Cost per block request (requests counted in the domU's diskstats).
BLK_COSTS = [("map_calls", "grant map hypercalls / request (backend)", 1),
             ("unmap_calls", "grant unmap hypercalls / request (backend)", 1),
             ("be_kicks", "backend notifications / request", 1),
             ("fe_kicks", "frontend notifications / request", 1),
             ("irq_domu", "domU interrupts / request", 1),
             ("irq_dom0", "dom0 interrupts / request", 1),
             ("copied", "bytes copied by the frontend / request", 1),
             ("polls", "in-ring polls / request (backend)", 1),
             ("cpu", "CPU us / request (dom0 + domU)", 1e6)]
# Cost per MiB moved (sectors from the domU's diskstats): the drivers
# size requests differently, so only this compares their CPU cost.
BLK_MIB_COSTS = [("cpu", "CPU ms / MiB (dom0 + domU)", 1e3),
                 ("cpu_dom0", "CPU ms / MiB (dom0)", 1e3),
                 ("cpu_domu", "CPU ms / MiB (domU)", 1e3),
                 ("irq_domu", "domU interrupts / MiB", 1),
                 ("irq_dom0", "dom0 interrupts / MiB", 1)]
# Column order and labels of the driver sets; a set not named here comes
# after them under its own name, "ref" (the monolithic reference) last.
# The headline: per benchmark (the scenario's name after its number),
# each set against the stock set that does the same work with a guest's
# data (tests/vm/guest/bench.sh says why these pairs).
NET_PAIRS = [("xfab", "stocksafe"), ("xfabro", "stock"), ("xfabptr", "stock"),
             ("xfablend", "stock")]
PAIRS = {"net": NET_PAIRS, "chain": NET_PAIRS, "nfs": NET_PAIRS,
         "blk": [("xfab", "stockbig"), ("xfabro", "stockbig")]}
# The interval's confidence: the report gives the narrowest sign-test
# interval that reaches it, and says so when the rounds are too few.
CONFIDENCE = 0.95
# /proc/stat counts in USER_HZ ticks, 100 a second on x86 Linux.
USER_HZ = 100
SET_LABELS = {"stock": "stock", "stocksafe": "stock trusted=0",
              "stockbig": "stock 256 segs", "xfab": "xfab", "xfabro": "xfab-ro",
              "xfabptr": "xfab-ptr",
              "xfabsp": "xfab split_kb=256", "xfabnp": "xfab poll_us=0",
              "xfabpoll": "xfab rx-usecs 50", "xfabnl": "xfab rx-gro-hw off",
              "xfabdefer": "xfab napi_defer_hard_irqs",
              "xfablend": "xfab-ro rx_lend=256",
              "xfabkick": "xfab tx-usecs 1000"}
# Workloads along a size axis: netperf message sizes (bytes, or KiB with
# K) and IOZone record sizes (KiB), on a vbd (902) or over NFS (904: nfs_,
# and nfs_local_ for the storage guest's own filesystem), each phase.
SIZE = re.compile(r"^(tcp_stream|tcp_maerts|(?:nfs_local_|nfs_)?iozone_[a-z]+)_(\d+)(K?)$")


def size_kib(wl):
    """The size in a SIZE workload's name, in KiB."""
    m = SIZE.match(wl)
    return int(m.group(2)) * (1 if m.group(3) else 1 / 1024)


def scenarios(results):
    """(name, record) for every scenario of the run, in name order."""
    for path in sorted(glob.glob(os.path.join(results, "scenarios", "*.json"))):
        with open(path) as f:
            yield os.path.basename(path)[:-5], json.load(f)


def figures(results, pattern):
    """(bench, match, value) for every figure of the run whose name
    PATTERN matches; bench is the scenario's name after its number
    (901-net -> net: which PAIRS apply)."""
    for scen_name, scen in scenarios(results):
        bench = scen_name.split("-", 1)[-1]
        for name, value in scen.get("figures", {}).items():
            m = pattern.match(name)
            if m:
                yield bench, m, value


def load(results):
    """The raw records of a run: (set, rep, workload, metric, value)."""
    return [{"bench": bench, "set": m.group(1), "rep": int(m.group(2)),
             "workload": m.group(3), "metric": m.group(4), "value": float(value)}
            for bench, m, value in figures(results, FIG)]


def load_profiles(results):
    """{(bench, workload, set, domain): [(rank, "percent task dso symbol")]}"""
    prof = {}
    for bench, m, value in figures(results, PROF):
        prof.setdefault((bench, m.group(2), m.group(1), m.group(3)), []).append(
            (int(m.group(4)), str(value)))
    return prof


def profiles(prof, top=5):
    """Where the time went, per benchmark, workload, set and domain: the
    profiled round's busiest symbols ('' without a profiled round)."""
    if not prof:
        return ""
    lines = ["", "## Where the time goes (perf, the profiled round)", "",
             "perf record -e cpu-clock -a in dom0, in the domU that ran "
             "the workload (domu) and in the other domUs its traffic "
             "crossed (by name), during round 0 (its results are not in the "
             f"tables above); the {top} busiest symbols of each, with the "
             "task that ran them, percent of all that domain's samples "
             "(idle's left out):", ""]
    rows, kind_rows = [], []
    for bench, wl, s, dom in sorted(prof, key=lambda k: (k[0], workload_order(k[1]),
                                                         set_key(k[2]), k[3])):
        lines_of = [v for _, v in sorted(prof[(bench, wl, s, dom)])]
        kinds = [v for v in lines_of if v.startswith("= ")]
        syms = [v for v in lines_of if not v.startswith("= ")][:top]
        rows.append([bench, wl, label(s), dom,
                     "; ".join(" ".join(v.split()) for v in syms)])
        shares = profile_kinds(kinds[0]) if kinds else {}
        if shares:
            kind_rows.append([bench, wl, label(s), dom] +
                             [shares.get(k, "") for k in PROF_KINDS])
    out = lines + md_rows(["bench", "workload", "set", "domain",
                           "top symbols (percent task dso symbol)"], rows)
    if kind_rows:
        out += ["", "The same profiles as a whole, each a percent of all samples: "
                "busy (not idle); entering Xen (hypercalls), copying, "
                "allocating or freeing memory (by symbol); in xfab's modules, "
                "in userspace (by where the code lives, so a libc memcpy "
                "counts as a copy and as userspace):", ""]
        out += md_rows(["bench", "workload", "set", "domain"] + list(PROF_KINDS),
                       kind_rows)
    return "\n".join(out) + "\n"


# the "= busy B xen X ..." line bench.sh puts after a profile's symbols
PROF_KINDS = ("busy", "xen", "copy", "alloc", "xfab", "user")


def profile_kinds(line):
    """{kind: "12.3"} from a profile's "= busy 12.3 xen 4.5 ..." line."""
    words = line[2:].split()
    return {k: v for k, v in zip(words[::2], words[1::2]) if k in PROF_KINDS}


def derive_costs(runs):
    """Per-packet costs of each (set, rep, workload) that moved packets."""
    by = {}
    for r in runs:
        by.setdefault((r.get("bench", ""), r["set"], r["rep"], r["workload"]),
                      {})[r["metric"]] = r["value"]
    out = []
    for (bench, s, rep, wl), m in sorted(by.items()):
        first = len(out)
        # CPU seconds: the busy ticks (user, system, irq) of the domain's
        # own /proc/stat, when no other count was recorded
        for dom in ("dom0", "domu"):
            busy = [m.get(f"tick_{t}_{dom}") for t in ("usr", "sys", "irq")]
            if f"cpu_{dom}" not in m and None not in busy:
                m[f"cpu_{dom}"] = sum(busy) / USER_HZ
                out.append({"set": s, "rep": rep, "workload": wl,
                            "metric": f"cpu_{dom}", "value": m[f"cpu_{dom}"]})
        if "cpu_dom0" in m and "cpu_domu" in m:
            m["cpu"] = m["cpu_dom0"] + m["cpu_domu"]
        if "sectors" in m:
            m["mib"] = m["sectors"] / 2048
        if "mbit" in m and "secs" in m:
            m["gb"] = m["mbit"] * m["secs"] / 8000
        out += time_shares(s, rep, wl, m)
        for unit, table, prefix in (("pkts", COSTS, "per_pkt."),
                                    ("gb", NET_GB_COSTS, "per_gb."),
                                    ("reqs", BLK_COSTS, "per_req."),
                                    ("mib", BLK_MIB_COSTS, "per_mib.")):
            n = m.get(unit, 0)
            if n <= 0:
                continue
            for key, _, scale in table:
                if key in m:
                    out.append({"set": s, "rep": rep, "workload": wl,
                                "metric": prefix + key,
                                "value": m[key] * scale / n})
        for r in out[first:]:
            r["bench"] = bench
    return out


def time_shares(s, rep, wl, m):
    """Percent of each domain's vCPU ticks per TICKS part, for one run."""
    out = []
    for dom in ("dom0", "domu"):
        parts = [m.get(f"tick_{t}_{dom}") for t in TICKS]
        if None in parts or sum(parts) <= 0:
            continue
        out += [{"set": s, "rep": rep, "workload": wl,
                 "metric": f"share.{dom}.{t}", "value": 100 * v / sum(parts)}
                for t, v in zip(TICKS, parts)]
    return out


def share_table(summary):
    """Where the vCPU time went, per workload and domain ('' if unknown)."""
    rows = []
    wls = sorted({wl for wl, metric in summary if metric.startswith("share.")},
                 key=workload_order)
    sets = ["stock"] + driver_sets(summary)
    for wl in wls:
        for dom, name in (("dom0", "dom0"), ("domu", "domU")):
            cells = []
            for s in sets:
                st = [summary.get((wl, f"share.{dom}.{t}"), {}).get(s)
                      for t in TICKS]
                cells.append("-" if None in st else
                             " / ".join(f"{x[0]:.0f}" for x in st))
            if any(c != "-" for c in cells):
                rows.append([wl, name] + cells)
    if not rows:
        return ""
    lines = ["", "Where each domain's vCPU time went, percent of its ticks "
             "(its /proc/stat over the run, medians): " + " / ".join(TICKS) +
             ". Idle: nothing to run; steal: runnable while Xen ran another "
             "vCPU (this testbed has fewer host CPUs than vCPUs).", ""]
    lines += md_rows(["workload", "domain"] + [label(s) for s in sets], rows)
    return "\n".join(lines) + "\n"


def summarize(runs):
    """{(workload, metric): {set: (median, min, max, n)}}"""
    acc = {}
    for r in runs:
        acc.setdefault((r["workload"], r["metric"]), {}).setdefault(
            r["set"], []).append(r["value"])
    return {k: {s: (statistics.median(v), min(v), max(v), len(v))
                for s, v in sets.items()} for k, sets in acc.items()}


def fmt(x):
    if x == int(x) and abs(x) < 1e9:
        return str(int(x))
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def cell(stats, s):
    if s not in stats:
        return "-"
    med, lo, hi, n = stats[s]
    return f"{fmt(med)} [{fmt(lo)}-{fmt(hi)}] n={n}"


def ratio(stats, a="xfab", b="stock"):
    if a in stats and b in stats and stats[b][0]:
        return f"{stats[a][0] / stats[b][0]:.2f}"
    return "-"


def workload_order(wl):
    m = SIZE.match(wl)
    if m:
        return (0, m.group(1), size_kib(wl))
    return (1, wl, 0)


def set_key(s):
    """Sort key: the sets of SET_LABELS in its order, then the others."""
    names = list(SET_LABELS)
    return (names.index(s) if s in names else len(names), s)


def label(s):
    return SET_LABELS.get(s, s)


def sign_interval(values, confidence=CONFIDENCE):
    """A distribution-free interval for the median of VALUES: from the
    k-th smallest to the k-th largest, for the largest k whose coverage
    (from the binomial count of values below the median) still reaches
    CONFIDENCE. (low, high, coverage), or None when even min to max falls
    short: at 95 %, with fewer than 6 values."""
    n = len(values)
    xs = sorted(values)
    best = None
    for k in range(1, n // 2 + 1):
        coverage = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n
        if coverage < confidence:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def paired_ratios(runs, bench, wl, metric, a, b):
    """Set a's value over set b's, round by round, for the rounds that
    ran both: a pair shares the round's drift, which a ratio of medians
    taken over different rounds would not cancel."""
    by_rep = {}
    for r in runs:
        if (r.get("bench") == bench and r["workload"] == wl
                and r["metric"] == metric and r["set"] in (a, b)):
            by_rep.setdefault(r["rep"], {})[r["set"]] = r["value"]
    return [v[a] / v[b] for _, v in sorted(by_rep.items())
            if a in v and b in v and v[b] > 0]


def verdict(iv):
    """What an interval of ratios (higher is better) says."""
    if iv is None:
        return "too few rounds for an interval"
    if iv[0] <= 1 <= iv[1]:
        return "no difference"
    return "higher" if iv[0] > 1 else "lower"


def headline_rows(runs):
    """[(bench, workload, metric, a, b, ratios, median, interval)] for each
    PAIRS pair that ran a result workload in at least one round."""
    rows = []
    keys = sorted({(r.get("bench"), r["workload"], r["metric"]) for r in runs
                   if r["metric"] in RESULTS},
                  key=lambda k: (k[0] or "", workload_order(k[1]), k[2]))
    for bench, wl, metric in keys:
        for a, b in PAIRS.get(bench, []):
            ratios = paired_ratios(runs, bench, wl, metric, a, b)
            if ratios:
                rows.append((bench, wl, metric, a, b, ratios,
                             statistics.median(ratios), sign_interval(ratios)))
    return rows


def headline(runs):
    """The headline tables ('' when no pair ran)."""
    rows = headline_rows(runs)
    if not rows:
        return ""
    pct = f"{CONFIDENCE * 100:.0f} %"
    lines = ["## Headline: trust-matched pairs", "",
             "Per round, the set's result over its partner's in the same "
             "round; the median of those ratios, the sign-test interval "
             f"that holds the true median with at least {pct} confidence "
             "(its actual coverage after it), and the verdict: higher or "
             "lower when the interval excludes 1, no difference when it "
             "holds 1. xfab against stock trusted=0: both copy what a "
             "guest sends (network); xfab-ro against stock: both grant it "
             "in place; block: both against stock with 1 MiB requests.", ""]
    body = []
    for bench, wl, metric, a, b, ratios, med, iv in rows:
        ivs = "-" if iv is None else \
            f"{iv[0]:.2f}-{iv[1]:.2f} ({iv[2] * 100:.1f} %)"
        body.append([bench, wl, RESULTS[metric], f"{label(a)} / {label(b)}",
                     str(len(ratios)), f"{med:.2f}", ivs, verdict(iv)])
    lines += md_rows(["bench", "workload", "metric", "pair", "rounds",
                      "median ratio", "interval", "verdict"], body)
    return "\n".join(lines) + "\n" + harness_load(runs)


def nfs_fraction(runs):
    """The NFS appliance against the storage guest's own filesystem: per
    set, phase and record size, the median over rounds of the NFS result
    over the local one of the same round ('' without 904's figures)."""
    local = {(r["set"], r["rep"], r["workload"][len("nfs_local_"):]): r["value"]
             for r in runs if r["workload"].startswith("nfs_local_iozone_")
             and r["metric"] == "mib_s"}
    fr = {}
    for r in runs:
        wl = r["workload"]
        if wl.startswith("nfs_iozone_") and r["metric"] == "mib_s":
            ref = local.get((r["set"], r["rep"], wl[len("nfs_"):]))
            if ref:
                fr.setdefault((wl, r["set"]), []).append(r["value"] / ref)
    if not fr:
        return ""
    sets = sorted({s for _, s in fr}, key=set_key)
    wls = sorted({w for w, _ in fr}, key=workload_order)
    rows = [[wl] + [f"{statistics.median(fr[(wl, s)]):.2f} (n={len(fr[(wl, s)])})"
                    if (wl, s) in fr else "-" for s in sets] for wl in wls]
    lines = ["", "## NFS appliance: fraction of the storage guest's own filesystem", "",
             "IOZone in the client over NFS over the same IOZone in the "
             "storage guest on the exported filesystem (same disk, same "
             "block pair, no network), round by round; medians:", ""]
    return "\n".join(lines + md_rows(["workload"] + [label(s) for s in sets], rows)) + "\n"


def harness_load(runs):
    """The null run per set: the share of each domain's vCPU time that was
    busy while the harness alone ran ('' without null runs)."""
    busy = {}
    for r in runs:
        m = re.match(r"share\.(dom0|domu)\.(usr|sys|irq)$", r["metric"])
        if r["workload"] == "null" and m:
            key = (r["set"], r["rep"], m.group(1))
            busy[key] = busy.get(key, 0) + r["value"]
    if not busy:
        return ""
    sets = sorted({k[0] for k in busy}, key=set_key)
    rows = []
    for s in sets:
        cells = []
        for dom in ("dom0", "domu"):
            v = [x for (s2, _, d), x in busy.items() if s2 == s and d == dom]
            cells.append(f"{statistics.median(v):.1f}" if v else "-")
        rows.append([label(s)] + cells)
    lines = ["", "The harness alone (null run: the snapshots and the agent's "
             "round trip around a sleep), percent of each domain's vCPU "
             "time busy (user + system + irq), medians over rounds:", ""]
    lines += md_rows(["set", "dom0 busy %", "domU busy %"], rows)
    return "\n".join(lines) + "\n"


def md_rows(head, rows):
    """A Markdown table: the header line, its rule, then the rows."""
    def line(cells):
        return "| " + " | ".join(cells) + " |"
    return [line(head), "|" + "---|" * len(head)] + [line(r) for r in rows]


def driver_sets(summary):
    """The driver sets of a run other than stock and ref, in column order."""
    seen = {s for sets in summary.values() for s in sets} - {"stock", "ref"}
    known = [s for s in SET_LABELS if s in seen and s != "stock"]
    return known + sorted(seen - set(known))


def table(summary, machine, head_md="", notes=()):
    sets = driver_sets(summary)
    head = ["workload", "metric", "stock"]
    for s in sets:
        head += [label(s), label(s) + "/stock"]
    head.append("reference")
    lines = ["# xfab benchmark", "", "Machine: " + machine, ""] + list(notes)
    if head_md:
        lines += [head_md, "## Every set", ""]
    lines += ["Median [min-max] over rounds, n = rounds; ratio = the set's median / stock median.",
             "Block: xfab = the xfab pair in default trust (writes copied through the "
             "frontend's pool), xfab-ro = relaxed trust (writes read in place); "
             "split_kb=256 and poll_us=0 are experiments on xfab. Network: rx-usecs 50 = the xfab pair "
             "with the backend's in-ring polling on, rx-gro-hw off = with LRO off, rx_lend=256 = the "
             "guests lend RX pool pages to their stack instead of copying packets out, "
             "napi_defer_hard_irqs = the guest defers RX interrupts, nogso = the guest "
             "with TSO and GSO off.", ""]
    keys = sorted((k for k in summary if k[1] in RESULTS),
                  key=lambda k: workload_order(k[0]))
    rows = []
    for wl, metric in keys:
        st = summary[(wl, metric)]
        row = [wl, RESULTS[metric], cell(st, "stock")]
        for s in sets:
            row += [cell(st, s), ratio(st, s)]
        rows.append(row + [cell(st, "ref")])
    lines += md_rows(head, rows)
    labels = {"per_pkt." + k: lab for k, lab, _ in COSTS}
    labels.update({"per_gb." + k: lab for k, lab, _ in NET_GB_COSTS})
    lines += cost_rows(summary, labels,
                       "Cost per packet and per GB moved (packets counted at "
                       "dom0's vif; CPU from each domain's /proc/stat; GB from "
                       "the rate and netperf's own seconds; grant-copy and "
                       "notification counts exist only for the xfab drivers: "
                       "for the stock pair the interrupt counts of the other "
                       "side stand in for notifications):")
    return "\n".join(lines) + "\n" + share_table(summary) + block_costs(summary)


def block_costs(summary):
    """The block workloads' costs per request and per MiB ('' if none)."""
    blabels = {"per_req." + k: lab for k, lab, _ in BLK_COSTS}
    blabels.update({"per_mib." + k: lab for k, lab, _ in BLK_MIB_COSTS})
    lines = cost_rows(summary, blabels,
                      "Cost per block request and per MiB (requests and "
                      "sectors from the domU's diskstats; map/unmap "
                      "hypercalls, notifications, polls and bytes copied "
                      "exist only for the xfab drivers; xen-blkfront sends "
                      "128 KiB requests unless told otherwise (stockbig), "
                      "xfab up to 1 MiB or more, so compare CPU per MiB):")
    return "\n".join(lines) + "\n" if lines else ""


def cost_rows(summary, labels, intro):
    """A cost table, a column for stock and for each set that has one of
    its costs, so that each set reads beside its trust-matched partner;
    [] when no cost of LABELS was recorded."""
    keys = sorted((k for k in summary if k[1] in labels),
                  key=lambda k: (workload_order(k[0]), k[1]))
    if not keys:
        return []
    sets = ["stock"] + [s for s in driver_sets(summary)
                        if any(s in summary[k] for k in keys)]
    return ["", intro, ""] + md_rows(
        ["workload", "cost"] + [label(s) for s in sets],
        [[wl, labels[metric]] + [cell(summary[(wl, metric)], s) for s in sets]
         for wl, metric in keys])


def read_meta(results):
    try:
        with open(os.path.join(results, "meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def machine_record(results):
    m = read_meta(results)
    if m is None:
        return "unknown (no meta.json)"
    return (f"Xen {m.get('xen', '?')}, kernel {m.get('kernel', '?')}, "
            f"{m.get('qemu', '?')}, {m.get('vcpus', '?')} vCPUs, "
            f"{m.get('memory_mb', '?')} MiB, {m.get('accel', '?')} "
            f"(cpu {m.get('cpu_model', '?')})")


def settings_notes(results):
    """The settings run.sh passed to the scenarios, so that a run with
    a feature turned off (NET_BE_KARGS=xfab_netback.lro=0, say) does not
    read as the defaults."""
    env = (read_meta(results) or {}).get("env") or {}
    if not env:
        return []
    return ["Settings: " + ", ".join(f"{k}={v}" for k, v in sorted(env.items())), ""]


def size_plot(plt, summary, path, kinds, unit, xlabel):
    """Median result against size, a line per set and the reference as
    "monolithic"; False (and no file) when no workload has a size axis."""
    pts = {}
    for (wl, metric), st in summary.items():
        m = SIZE.match(wl)
        if metric == unit and m:
            for s, stats in st.items():
                pts.setdefault((m.group(1), s), []).append((size_kib(wl), stats[0]))
    if not pts:
        return False
    styles = ["o--", "s-", "^-.", "v:", "D-", "x--", "*-"]
    fig, axes = plt.subplots(1, len(kinds), figsize=(5 * len(kinds), 4), sharey=True)
    for ax, (kind, title) in zip(axes, kinds):
        sets = sorted({s for k, s in pts if k == kind}, key=set_key)
        for i, s in enumerate(sets):
            xy = sorted(pts[(kind, s)])
            ax.plot([p[0] for p in xy], [p[1] for p in xy], styles[i % len(styles)],
                    label="monolithic (in the domU)" if s == "ref" else label(s))
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        if sets:
            ax.legend(fontsize=7)
    axes[0].set_ylabel(f"{RESULTS[unit]} (median)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def plots(summary, results, hrows):
    """PNG plots; returns the file names, or a reason there are none."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plots: python3-matplotlib is not installed"
    made = []
    for name, kinds, unit, xlabel in (
            ("net_throughput.png", (("tcp_stream", "TCP_STREAM domU -> dom0"),
                                    ("tcp_maerts", "TCP_MAERTS dom0 -> domU")),
             "mbit", "message size (KiB)"),
            ("iozone.png", (("iozone_write", "IOZone write"),
                            ("iozone_read", "IOZone read")),
             "mib_s", "record size (KiB)"),
            ("iozone_nfs.png", (("nfs_iozone_write", "IOZone write over NFS"),
                                ("nfs_iozone_read", "IOZone read over NFS")),
             "mib_s", "record size (KiB)")):
        if size_plot(plt, summary, os.path.join(results, name), kinds, unit, xlabel):
            made.append(name)

    if hrows:
        # one point per headline row: the median ratio, and its interval
        # as an error bar (none where the rounds were too few)
        fig, ax = plt.subplots(figsize=(max(6, len(hrows) * 0.6), 4.5))
        for i, (_, _, _, _, _, _, med, iv) in enumerate(hrows):
            err = [[med - iv[0]], [iv[1] - med]] if iv else None
            ax.errorbar([i], [med], yerr=err, fmt="o", capsize=4,
                        color="black" if iv else "grey")
        ax.axhline(1.0, color="grey", linestyle=":")
        ax.set_xticks(range(len(hrows)))
        ax.set_xticklabels([f"{r[1]} {label(r[3])}/{label(r[4])}" for r in hrows],
                           rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("per-round ratio (median, interval)")
        fig.tight_layout()
        fig.savefig(os.path.join(results, "ratios.png"), dpi=100)
        plt.close(fig)
        made.append("ratios.png")
    return made


def run_notes(results):
    """Lines for the scenarios that did not simply pass: one the testbed
    failed (ERROR) and run.py ran again in a fresh boot (its figures are
    that boot's: its sets still compare within one boot), and any that
    did not end PASS (its figures, if any, are partial)."""
    notes = []
    for name, scen in scenarios(results):
        first = scen.get("first_boot")
        if first:
            notes.append(f"- {name}: ran again in a fresh boot after an ERROR "
                         f"in the first ({first.get('reason', '?')[:120]})")
        if scen.get("status") != "PASS":
            notes.append(f"- {name}: {scen.get('status', '?')} "
                         f"({scen.get('reason', '')[:160]}): its figures are partial")
    return ["Runs that did not simply pass:", ""] + notes + [""] if notes else []


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.exit("usage: report.py RESULTS_DIR (a results/bench-<time> directory)")
    results = argv[1]
    runs = load(results)
    if not runs:
        sys.exit(f"report.py: no benchmark figures in {results}/scenarios")
    runs += derive_costs(runs)
    with open(os.path.join(results, "bench.json"), "w") as f:
        json.dump(runs, f, indent=1)
    summary = summarize(runs)
    md = (table(summary, machine_record(results), headline(runs),
                settings_notes(results) + run_notes(results)) + nfs_fraction(runs)
          + profiles(load_profiles(results)))
    made = plots(summary, results, headline_rows(runs))
    md += "\n" + (made if isinstance(made, str) else
                  "Plots: " + ", ".join(made)) + "\n"
    with open(os.path.join(results, "report.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
