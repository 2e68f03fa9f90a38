"""Draws the scaling plots of a side-by-side run (run by run.py in the benchmark venv):

    plot.py side_by_side.json OUTDIR

One PNG per workload and measure (eval time, peak memory of one gradient call) against
the size, log-log, one line per contestant; a point whose gradient disagrees with the
others is drawn as a red cross and not joined. Prints `title<TAB>path` per plot."""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contestants import CONTESTANTS, WORKLOADS  # noqa: E402

MEASURES = [("eval_us", "eval (s)", 1e-6, "time"),
            ("peak_kb", "peak memory growth, derivative + first call (MB)", 1.0 / 1024,
             "memory")]


def style(cid):
    """This project's contestants solid, peers dashed, the matmul floor dotted."""
    if cid.startswith("floor-"):
        return ":"
    return "-" if cid.startswith("tangent-") and cid != "tangent-ad" else "--"


def main():
    raw, out = sys.argv[1], sys.argv[2]
    data = json.load(open(raw))
    meta = data["meta"]
    cmap = plt.get_cmap("tab20")
    colors = {cid: cmap(k % 20) for k, cid in enumerate(CONTESTANTS)}
    for w, sc in data["scaling"].items():
        sizes = sorted(int(s) for s in sc["sizes"])
        for key, ylabel, scale, name in MEASURES:
            fig, ax = plt.subplots(figsize=(9, 5.5))
            for cid in CONTESTANTS:
                xs, ys, bad_x, bad_y = [], [], [], []
                for s in sizes:
                    r = sc["sizes"][str(s)].get(cid)
                    if not r or key not in r:
                        continue
                    value = max(r[key], 1) * scale if key == "peak_kb" else r[key] * scale
                    good = r["agrees"] or r.get("reference")
                    (xs if good else bad_x).append(s)
                    (ys if good else bad_y).append(value)
                if xs:
                    ax.plot(xs, ys, style(cid), marker="o", ms=3, color=colors[cid],
                            label=CONTESTANTS[cid][0])
                if bad_x:
                    ax.plot(bad_x, bad_y, "x", color="red", ms=8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(WORKLOADS[w][3])
            ax.set_ylabel(ylabel)
            title = "%s: %s against %s" % (w, name, WORKLOADS[w][3])
            # A workload measured again alone (--scaling-only) has a date of its own.
            date = sc.get("date", meta["date"])
            ax.set_title("%s\n%s, %s" % (title, date, meta["machine"][:70]),
                         fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
            fig.tight_layout()
            path = os.path.join(out, "scaling_%s_%s.png" % (w, name))
            fig.savefig(path, dpi=90)
            plt.close(fig)
            print("%s\t%s" % (title, path))


main()
