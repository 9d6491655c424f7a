#!/usr/bin/env python3
"""Turn a benchmark run's raw figures into the report (host side).

Reads RESULTS/scenarios/*.json (figures named b.<set>.<rep>.<workload>.
<metric>, written by tests/bench/scenarios) and RESULTS/meta.json, and
writes into RESULTS:

  bench.json   every raw value, one record per (set, round, workload, metric)
  report.md    the machine record, then per workload and metric the median
               and min-max spread of each set and the xfab/stock ratio of
               the medians; then the cost per packet and per GB
  *.png        throughput vs message size, and the ratios (if matplotlib
               is installed; the report says when it is not)

The Markdown table is also printed.
"""
import glob
import json
import os
import re
import statistics
import sys

FIG = re.compile(r"b\.([a-z]+)\.(\d+)\.([A-Za-z0-9_]+)\.([a-z_0-9]+)$")
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
# what a byte costs, whatever the packet sizes of each pair.
NET_GB_COSTS = [("cpu", "CPU s / GB (dom0 + domU)", 1),
                ("cpu_dom0", "CPU s / GB (dom0)", 1),
                ("cpu_domu", "CPU s / GB (domU)", 1)]
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
SET_LABELS = {"stock": "stock", "xfab": "xfab", "xfabro": "xfab-ro",
              "xfabsp": "xfab split_kb=256", "xfabnp": "xfab poll_us=0",
              "xfabpoll": "xfab rx-usecs 50", "xfabnl": "xfab rx-gro-hw off",
              "xfabdefer": "xfab napi_defer_hard_irqs",
              "xfablend": "xfab rx_lend=256",
              "xfabkick": "xfab tx-usecs 1000"}
SIZE = re.compile(r"^(tcp_stream|tcp_maerts)_(\d+)K$")


def load(results):
    """The raw records of a run: (set, rep, workload, metric, value)."""
    runs = []
    for path in sorted(glob.glob(os.path.join(results, "scenarios", "*.json"))):
        with open(path) as f:
            scen = json.load(f)
        for name, value in scen.get("figures", {}).items():
            m = FIG.match(name)
            if m:
                runs.append({"set": m.group(1), "rep": int(m.group(2)),
                             "workload": m.group(3), "metric": m.group(4),
                             "value": float(value)})
    return runs


def derive_costs(runs):
    """Per-packet costs of each (set, rep, workload) that moved packets."""
    by = {}
    for r in runs:
        by.setdefault((r["set"], r["rep"], r["workload"]), {})[r["metric"]] = r["value"]
    out = []
    for (s, rep, wl), m in sorted(by.items()):
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
        return (0, m.group(1), int(m.group(2)))
    return (1, wl, 0)


def label(s):
    return SET_LABELS.get(s, s)


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


def table(summary, machine):
    sets = driver_sets(summary)
    head = ["workload", "metric", "stock"]
    for s in sets:
        head += [label(s), label(s) + "/stock"]
    head.append("reference")
    lines = ["# xfab benchmark", "", "Machine: " + machine, "",
             "Median [min-max] over rounds, n = rounds; ratio = the set's median / stock median.",
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
    keys = sorted((k for k in summary if k[1] in labels),
                  key=lambda k: (workload_order(k[0]), k[1]))
    if keys:
        lines += ["", "Cost per packet and per GB moved (packets counted at "
                  "dom0's vif; CPU from xl list; GB from the rate and netperf's "
                  "own seconds; grant-copy and notification counts exist "
                  "only for the xfab drivers: for the stock pair the "
                  "interrupt counts of the other side stand in for "
                  "notifications):", "",
                  "| workload | cost | stock | xfab | xfab/stock |",
                  "|---|---|---|---|---|"]
    for wl, metric in keys:
        st = summary[(wl, metric)]
        if "stock" not in st and "xfab" not in st:
            continue
        lines.append(f"| {wl} | {labels[metric]} | {cell(st, 'stock')} | "
                     f"{cell(st, 'xfab')} | {ratio(st)} |")
    return "\n".join(lines) + "\n" + share_table(summary) + block_costs(summary)


def block_costs(summary):
    """The block workloads' costs per request and per MiB ('' if none)."""
    blabels = {"per_req." + k: lab for k, lab, _ in BLK_COSTS}
    blabels.update({"per_mib." + k: lab for k, lab, _ in BLK_MIB_COSTS})
    keys = sorted((k for k in summary if k[1] in blabels),
                  key=lambda k: (workload_order(k[0]), k[1]))
    if not keys:
        return ""
    sets = ["stock"] + [s for s in driver_sets(summary)
                        if any(s in summary[k] for k in keys)]
    head = ["workload", "cost"] + [label(s) for s in sets]
    lines = ["", "Cost per block request and per MiB (requests and sectors "
             "from the domU's diskstats; map/unmap hypercalls, notifications, "
             "polls and bytes copied exist only for the xfab drivers; "
             "xen-blkfront sends 128 KiB requests, xfab up to 1 MiB or more, "
             "so compare CPU per MiB):", ""]
    lines += md_rows(head, [[wl, blabels[metric]] +
                            [cell(summary[(wl, metric)], s) for s in sets]
                            for wl, metric in keys])
    return "\n".join(lines) + "\n"


def machine_record(results):
    try:
        with open(os.path.join(results, "meta.json")) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return "unknown (no meta.json)"
    return (f"Xen {m.get('xen', '?')}, kernel {m.get('kernel', '?')}, "
            f"{m.get('qemu', '?')}, {m.get('vcpus', '?')} vCPUs, "
            f"{m.get('memory_mb', '?')} MiB, {m.get('accel', '?')} "
            f"(cpu {m.get('cpu_model', '?')})")


def plots(summary, results):
    """PNG plots; returns the file names, or a reason there are none."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plots: python3-matplotlib is not installed"
    made = []
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, kind, title in ((axes[0], "tcp_stream", "TCP_STREAM domU -> dom0"),
                            (axes[1], "tcp_maerts", "TCP_MAERTS dom0 -> domU")):
        for s, style in (("stock", "o--"), ("xfab", "s-")):
            pts = sorted((int(SIZE.match(wl).group(2)), st[s][0])
                         for (wl, metric), st in summary.items()
                         if metric == "mbit" and SIZE.match(wl)
                         and SIZE.match(wl).group(1) == kind and s in st)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=s)
        ref = summary.get(("loopback_16K", "mbit"), {}).get("ref")
        if ref:
            ax.axhline(ref[0], color="grey", linestyle=":", label="loopback (ref)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (KiB)")
        ax.set_title(title)
        ax.legend()
    axes[0].set_ylabel("Mbit/s (median)")
    fig.tight_layout()
    fig.savefig(os.path.join(results, "net_throughput.png"), dpi=100)
    plt.close(fig)
    made.append("net_throughput.png")

    bars = [(wl, ratio(st)) for (wl, metric), st in sorted(
        summary.items(), key=lambda kv: workload_order(kv[0][0]))
        if metric in RESULTS and ratio(st) != "-"]
    if bars:
        fig, ax = plt.subplots(figsize=(max(6, len(bars) * 0.8), 4))
        ax.bar(range(len(bars)), [float(b[1]) for b in bars])
        ax.axhline(1.0, color="grey", linestyle=":")
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([b[0] for b in bars], rotation=45, ha="right")
        ax.set_ylabel("xfab / stock (medians)")
        fig.tight_layout()
        fig.savefig(os.path.join(results, "ratios.png"), dpi=100)
        plt.close(fig)
        made.append("ratios.png")
    return made


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
    md = table(summary, machine_record(results))
    made = plots(summary, results)
    md += "\n" + (made if isinstance(made, str) else
                  "Plots: " + ", ".join(made)) + "\n"
    with open(os.path.join(results, "report.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
