#!/usr/bin/python3
"""Charts from bench/compaction.py --json FILE (needs python3-matplotlib):
  compaction-rss.png         VmRSS and VmLck per binary and mem-lock mode
  compaction-migrated.png    guest pages migrated per mode, per THP setting
  compaction-throughput.png  the guest's throughput around the compaction,
                             relative to its baseline (first round)

Usage: bench/compaction-plot.py FILE.json [OUTDIR (default docs/img)]
"""
import json
import os
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def label(r):
    return "%s\n%s" % (r["binary"].replace(" (Debian)", ""), r["mode"])


def grouped(runs, thp):
    """{label: [runs]} in the bench's order, for one THP setting."""
    out = {}
    for r in runs:
        if r["thp"] == thp:
            out.setdefault(label(r), []).append(r)
    return out


def main():
    data = json.load(open(sys.argv[1]))
    outdir = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(os.path.dirname(HERE), "docs", "img")
    os.makedirs(outdir, exist_ok=True)
    runs = data["runs"]
    thps = list(dict.fromkeys(r["thp"] for r in runs))
    sub = "%s, -m 1G, %s" % (data["started"], "medians of %d rounds"
                             % data["args"]["rounds"])

    # RSS and VmLck (the THP setting does not change them much: first one)
    g = grouped(runs, thps[0])
    fig, ax = plt.subplots(figsize=(8, 4))
    xs = range(len(g))
    rss = [statistics.median(r["vmrss_kib"] for r in v) / 1024
           for v in g.values()]
    lck = [statistics.median(r["vmlck_kib"] for r in v) / 1024
           for v in g.values()]
    ax.bar([x - 0.2 for x in xs], rss, 0.4, label="VmRSS")
    ax.bar([x + 0.2 for x in xs], lck, 0.4, label="VmLck")
    ax.set_xticks(list(xs), list(g.keys()), fontsize=8)
    ax.set_ylabel("MiB")
    ax.set_title("Guest of 1 GiB sweeping 512 MiB: resident and locked\n"
                 "(THP %s; %s)" % (thps[0], sub), fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "compaction-rss.png"), dpi=90)

    # Pages migrated, per THP setting
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(thps)
    for i, thp in enumerate(thps):
        g = grouped(runs, thp)
        pct = [statistics.median(100.0 * r["migrated_pages"] /
                                 max(r["resident_pages"], 1) for r in v)
               for v in g.values()]
        ax.bar([x - 0.4 + width * (i + 0.5) for x in range(len(g))], pct,
               width, label="THP " + thp)
        ax.set_xticks(list(range(len(g))), list(g.keys()), fontsize=8)
    ax.set_ylabel("% of resident guest pages with a new PFN")
    ax.set_title("Guest pages migrated by 3 forced compactions, "
                 "compact_unevictable_allowed=0\n(%s)" % sub, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "compaction-migrated.png"), dpi=90)

    # Throughput around the compaction, first round, last THP setting
    thp = thps[-1]
    fig, ax = plt.subplots(figsize=(8, 4))
    ends = []
    for name, v in grouped(runs, thp).items():
        r = v[0]
        base = r["tput_before"]
        ts = [t for t, _ in r["series"]]
        ys = [y / base for _, y in r["series"]]
        ax.plot(ts, ys, label=name.replace("\n", " "), linewidth=1)
        ends.append(r["compaction_end_s"])
    ax.axvspan(0, max(ends), color="grey", alpha=0.2,
               label="compaction (longest run)")
    ax.set_xlabel("s since the first write to compact_memory")
    ax.set_ylabel("throughput / mean before")
    ax.set_title("Guest sweep throughput (100 ms samples), THP %s, round 1"
                 % thp, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "compaction-throughput.png"), dpi=90)


if __name__ == "__main__":
    main()
