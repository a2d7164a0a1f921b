#!/usr/bin/env python3
"""Renders the SLO picture of the last `make run` from the local Prometheus (make slo-report).

Queries Prometheus' HTTP API for the SLO recording rules (vigil-slo.rules.yaml) and the raw engine and
relay metrics over the last run (the last contiguous stretch in which the engine was scraped), and
writes a self-contained HTML page with inline SVG charts; with matplotlib importable it also writes a
PNG of the same charts. Standard library only otherwise.

    slo_report.py --prometheus http://127.0.0.1:19090 --out .local/slo-report [--png]
"""
import argparse
import html
import json
import math
import os
import sys
import time
import urllib.parse
import urllib.request

OWN = 'namespace="local",vigil_engine="local"'
ENG = 'namespace="local",job="vigil-engine"'
REL = 'namespace="local",job="vigil-relay"'


class Prom:
    def __init__(self, url):
        self.url = url.rstrip("/")

    def get(self, path, **params):
        q = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{q}", timeout=30) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(f"{path} {params}: {body}")
        return body["data"]

    def range(self, expr, start, end, step):
        return self.get("/api/v1/query_range", query=expr, start=start, end=end, step=step)["result"]

    def instant(self, expr, at):
        return self.get("/api/v1/query", query=expr, time=at)["result"]


def last_run(prom, now):
    """(start, end) of the last contiguous stretch with engine scrapes in the past 7 days."""
    step = 60  # 7 days in 10,080 points: under Prometheus' 11,000-point limit per query
    res = prom.range(f'up{{{ENG}}}', now - 7 * 86400, now, step)
    ts = sorted({float(t) for s in res for t, _ in s["values"]})
    if not ts:
        return None
    end = ts[-1]
    start = end
    for t in reversed(ts):
        if start - t > 5 * 60 + step:
            break
        start = t
    return start, end


def series(prom, expr, start, end, step, legend=None):
    out = []
    for s in prom.range(expr, start, end, step):
        label = legend.format(**s["metric"]) if legend else expr
        pts = [(float(t), float(v)) for t, v in s["values"] if not math.isnan(float(v)) and not math.isinf(float(v))]
        if pts:
            out.append((label, pts))
    return out


def scalar(prom, expr, at):
    r = prom.instant(expr, at)
    if not r:
        return None
    v = float(r[0]["value"][1])
    return None if math.isnan(v) else v


# ---------------------------------------------------------------- SVG charts

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "ms":
        return f"{v * 1000:.2f} ms"
    if unit == "%":
        return f"{v * 100:.3f} %"
    if unit == "/s":
        return f"{v:,.1f}/s"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def svg_chart(title, lines, unit, start, end, width=560, height=220, dashed=(), ymin0=True):
    left, right, top, bottom = 64, 12, 26, 34
    pw, ph = width - left - right, height - top - bottom
    vals = [v for _, pts in lines for _, v in pts]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{left}" y="16" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    if not vals:
        out.append(f'<text x="{left + 10}" y="{top + ph / 2}" fill="#888">no data in this run</text></svg>')
        return "".join(out)
    lo = 0.0 if ymin0 else min(vals)
    hi = max(vals) if max(vals) > lo else lo + 1
    hi = hi * 1.08
    span = max(end - start, 1)

    def x(t):
        return left + (t - start) / span * pw

    def y(v):
        return top + ph - (v - lo) / (hi - lo) * ph

    for i in range(5):
        v = lo + (hi - lo) * i / 4
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#555">{html.escape(fmt(v, unit))}</text>')
    for i in range(5):
        t = start + span * i / 4
        out.append(f'<text x="{x(t):.1f}" y="{top + ph + 14}" text-anchor="middle" fill="#555">{time.strftime("%H:%M:%S", time.gmtime(t))}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#bbb"/>')
    lx = left
    for i, (label, pts) in enumerate(lines):
        c = COLORS[i % len(COLORS)]
        d = " ".join(f"{'M' if j == 0 else 'L'}{x(t):.1f},{y(v):.1f}" for j, (t, v) in enumerate(pts))
        dash = ' stroke-dasharray="6,4"' if label in dashed else ""
        out.append(f'<path d="{d}" fill="none" stroke="{c}" stroke-width="1.6"{dash}/>')
        out.append(f'<rect x="{lx}" y="{height - 12}" width="10" height="3" fill="{c}"/>'
                   f'<text x="{lx + 13}" y="{height - 8}" fill="#333">{html.escape(label)}</text>')
        lx += 18 + 6.2 * len(label)
    out.append("</svg>")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prometheus", default="http://127.0.0.1:19090")
    ap.add_argument("--out", default=".local/slo-report")
    ap.add_argument("--png", action="store_true", help="also write slo-report.png (needs matplotlib)")
    a = ap.parse_args()
    prom = Prom(a.prometheus)
    now = time.time()
    run = last_run(prom, now)
    if run is None:
        print("no engine scrapes in the local Prometheus: run `make run` (and some traffic) first", file=sys.stderr)
        return 1
    start, end = run
    dur = max(int(end - start), 60)
    step = max(5, dur // 240)
    rng = f"{dur}s"

    charts = [
        ("AUTH latency vs objectives", "ms", [
            *series(prom, f"vigil:auth_latency_seconds:p50{{{OWN}}}", start, end, step, "p50"),
            *series(prom, f"vigil:auth_latency_seconds:p95{{{OWN}}}", start, end, step, "p95"),
            *series(prom, f"vigil:auth_latency_seconds:p99{{{OWN}}}", start, end, step, "p99"),
            *series(prom, f"vigil:slo_objective:latency_seconds{{{OWN}}}", start, end, step, "objective p{quantile}")],
         ("objective p0.5", "objective p0.95", "objective p0.99")),
        ("AUTH answers/s by engine mode", "/s",
         series(prom, f'sum by (mode) (rate(vigil_evaluate_seconds_count{{{ENG},endpoint="auth"}}[1m]))', start, end, step, "{mode}"), ()),
        ("Availability burn rate (1 = budget spent exactly over 30 d)", "", [
            *series(prom, f"vigil:auth_availability:error_ratio_rate5m{{{OWN}}} / 0.001", start, end, step, "5m"),
            *series(prom, f"vigil:auth_availability:error_ratio_rate1h{{{OWN}}} / 0.001", start, end, step, "1h")], ()),
        ("p99 latency burn rate", "", [
            *series(prom, f"vigil:auth_latency_p99:error_ratio_rate5m{{{OWN}}} / 0.01", start, end, step, "5m"),
            *series(prom, f"vigil:auth_latency_p99:error_ratio_rate1h{{{OWN}}} / 0.01", start, end, step, "1h")], ()),
        ("Outbox queue depth and relay lag", "", [
            *series(prom, f"max(vigil_outbox_queue_depth{{{ENG}}})", start, end, step, "outbox depth"),
            *series(prom, f"max(vigil_relay_lag{{{REL}}})", start, end, step, "relay lag")], ()),
        ("Relay published/s and dropped/s", "/s", [
            *series(prom, f"sum(rate(vigil_relay_published_total{{{REL}}}[1m]))", start, end, step, "published"),
            *series(prom, f'sum(rate(vigil_outbox_enqueue_total{{{ENG},result="dropped"}}[1m]))', start, end, step, "dropped")], ()),
    ]

    at = end
    total = scalar(prom, f'sum(increase(vigil_evaluate_seconds_count{{{ENG},endpoint="auth"}}[{rng}]))', at)
    bad = scalar(prom, f'(sum(increase(vigil_evaluate_seconds_count{{{ENG},endpoint="auth",mode="FAIL_OPEN"}}[{rng}])) or vector(0))'
                       f' + (sum(increase(vigil_engine_load_shed_total{{{ENG},endpoint="auth"}}[{rng}])) or vector(0))', at)
    slow99 = scalar(prom, f'1 - sum(increase(vigil_evaluate_seconds_bucket{{{ENG},endpoint="auth",le="0.01"}}[{rng}])) '
                          f'/ sum(increase(vigil_evaluate_seconds_count{{{ENG},endpoint="auth"}}[{rng}]))', at)
    slow95 = scalar(prom, f'1 - sum(increase(vigil_evaluate_seconds_bucket{{{ENG},endpoint="auth",le="0.005"}}[{rng}])) '
                          f'/ sum(increase(vigil_evaluate_seconds_count{{{ENG},endpoint="auth"}}[{rng}]))', at)
    quant = {q: scalar(prom, f'histogram_quantile({q}, sum by (le) (increase(vigil_evaluate_seconds_bucket{{{ENG},endpoint="auth"}}[{rng}])))', at)
             for q in ("0.5", "0.95", "0.99")}
    budgets = {k: scalar(prom, f"vigil:auth_{k}:error_budget_remaining{{{OWN}}}", at) for k in ("availability", "latency_p99", "latency_p95")}
    alerts = prom.range('ALERTS{alertstate="firing"}', start, end, step)
    fired = sorted({(s["metric"].get("alertname"), s["metric"].get("severity", ""), s["metric"].get("long_window", ""),
                     s["metric"].get("code", "")) for s in alerts})

    os.makedirs(a.out, exist_ok=True)
    rows = [
        ("Run", f'{time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(start))} – {time.strftime("%H:%M:%S", time.gmtime(end))} UTC ({dur} s)'),
        ("AUTH requests answered", fmt(total, "")),
        ("Availability (not failed open, not shed)", "n/a" if not total else f"{(1 - (bad or 0) / total) * 100:.4f} %  (objective 99.9 %)"),
        ("Slower than p99 objective (10 ms)", f"{fmt(slow99, '%')}  (allowed 1 %)"),
        ("Slower than p95 objective (5 ms)", f"{fmt(slow95, '%')}  (allowed 5 %)"),
        ("p50 / p95 / p99 over the run", " / ".join(fmt(quant[q], "ms") for q in ("0.5", "0.95", "0.99")) + "  (objectives 2 / 5 / 10 ms)"),
        ("Error budget left (30 d, availability / p99 / p95)", " / ".join("n/a" if v is None else f"{v * 100:.1f} %" for v in budgets.values())),
        ("Alerts that fired", ", ".join(f"{n} {s} {w} {c}".strip() for n, s, w, c in fired) or "none"),
    ]
    page = ["<!doctype html><html><head><meta charset='utf-8'><title>Vigil SLO report</title>",
            "<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin-bottom:18px}"
            "td{padding:4px 12px;border-bottom:1px solid #eee}td:first-child{color:#555}.grid{display:flex;flex-wrap:wrap;gap:12px}</style>",
            "</head><body><h1>Vigil SLO report (local run)</h1>",
            f"<p>From the local Prometheus ({html.escape(a.prometheus)}) and the SLO rules of "
            "charts/vigil-engine/files/rules/vigil-slo.rules.yaml. Objectives and alert tiers: docs/slo.md.</p><table>"]
    page += [f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in rows]
    page.append("</table><div class='grid'>")
    for title, unit, lines, dashed in charts:
        page.append(svg_chart(title, lines, unit, start, end, dashed=dashed))
    page.append("</div></body></html>")
    path = os.path.join(a.out, "index.html")
    with open(path, "w") as f:
        f.write("\n".join(page))
    print(f"SLO report: {path}")
    for k, v in rows:
        print(f"  {k}: {v}")

    if a.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("  (no PNG: matplotlib is not installed; the HTML has the same charts)")
            return 0
        fig, axes = plt.subplots(3, 2, figsize=(12, 9), dpi=80)
        for ax, (title, unit, lines, dashed) in zip(axes.flat, charts):
            for i, (label, pts) in enumerate(lines):
                xs = [(t - start) / 60 for t, _ in pts]
                ys = [v * 1000 if unit == "ms" else v for _, v in pts]
                ax.plot(xs, ys, label=label, color=COLORS[i % len(COLORS)], linestyle="--" if label in dashed else "-", linewidth=1.4)
            ax.set_title(title, fontsize=10)
            ax.set_xlabel("minutes into the run", fontsize=8)
            if unit:
                ax.set_ylabel(unit, fontsize=8)
            ax.set_ylim(bottom=0)
            ax.tick_params(labelsize=8)
            ax.grid(alpha=0.3)
            if lines:
                ax.legend(fontsize=7, loc="upper left")
        fig.suptitle("Vigil SLO report (local run): " + rows[4][1].split("  ")[0] + " slower than 5 ms, availability "
                     + rows[2][1].split("  ")[0], fontsize=11)
        fig.tight_layout()
        png = os.path.join(a.out, "slo-report.png")
        fig.savefig(png)
        print(f"  PNG: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
