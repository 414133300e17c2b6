"""The demo part of tests/bench/run (a mixin of its Bench class; issue 29, item 2):

  demo      scripts/demo as a user runs it (--no-setup, the build given), twice: on the
            host as it is, then beside two CPU-burning processes: for each run and side,
            the capacity at p90 TTFT <= 1 s with the bracket the search ended with
            (whether the capacity is inside it), and the share of the capacity probes'
            open-loop sends that left more than 1 ms after their intended time (target
            under 1%: 99% within 1 ms), with the probes' worst p99 lateness; the host's
            stolen CPU over the run and the sends' lateness in the seconds without steal
            (hoststeal.py); whether the two runs' capacities fall inside each other's
            brackets. --quick runs the demo once, without the hogs."""
import glob
import json
import os
import subprocess

from hoststeal import StealWatch, split_late

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEMO_SIDES = ("baseline", "candidate")


class DemoParts:
    def demo_run(self, name, hogs):
        """scripts/demo into a folder of its own, beside hogs CPU-burning processes:
        {side: figures} from its report.json, and the load average at its end."""
        out = os.path.join(self.tmp, "demo-" + name)
        burners = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(hogs)]
        try:
            with StealWatch() as steal:
                p = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--no-setup",
                                    "--build", self.build, "--out", out], env=self.env,
                                   cwd=self.tmp, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        finally:
            for b in burners:
                b.kill()
                b.wait()
        load = open("/proc/loadavg").read().split()[0]
        if p.returncode:
            self.fail(f"demo ({name}): exit {p.returncode}: {p.stderr.strip()[-300:]}")
        with open(os.path.join(out, "report.json")) as f:
            sides = (json.load(f).get("open_loop") or {}).get("sides") or {}
        figs = {side: demo_figures(sides.get(side) or {}) for side in DEMO_SIDES}
        return figs, load, steal.share(), split_late(probe_sends(out), steal.clean_seconds())

    def part_demo(self):
        runs = [("quiet", 0)] if self.quick else [("quiet", 0), ("two hogs", 2)]
        got = []
        for name, hogs in runs:
            self.say(f"demo: {name}")
            got.append((name, hogs) + self.demo_run(name.replace(" ", "-"), hogs))
        lines = [
            "scripts/demo --no-setup (its defaults: the article's two endpoints in sm-emulator "
            "at --time-scale 4, sm-suite's capacity search 12:40 to 2% at p90 TTFT <= 1 s, "
            "probes of 20 s model time streamed by sm-stream), run as a user runs it: first on "
            "the host as it was, then beside two CPU-burning processes (`while :; do :; done`) "
            "for the whole run, processes placed by the scheduler. Per side: the capacity the "
            "search read and its bracket [highest rate held, lowest failed]; late = the share "
            "of every probe's open-loop sends that left more than 1 ms after their intended "
            "time (sm-compare's late_share over the probes, weighted by their requests; "
            "target under 1%), and the worst probe's p99 lateness. The load average is "
            "read at the run's end; the host's steal is the share of its CPU its hypervisor "
            "gave to other guests during the run (/proc/stat, read every 100 ms: "
            "tests/bench/hoststeal.py), which the load average does not show and which holds "
            "every process off its CPU, the client's sends too.", "",
            "| run | load | side | capacity | bracket | inside | probes' sends | late > 1 ms "
            "| worst p99 late |", "|---|---|---|---|---|---|---|---|---|"]
        for name, _, figs, load, _, _ in got:
            for side in DEMO_SIDES:
                f = figs[side]
                lines.append(
                    f"| {name} | {load} | {side} | {fmt_rate(f['capacity'])} | "
                    f"[{fmt_rate(f['held'])}, {fmt_rate(f['failed'])}] | "
                    f"{'yes' if f['inside'] else 'no'} | {f['sends']:,} | "
                    f"{f['late'] * 100:.2f}% | {f['late_p99'] * 1000:.1f} ms |")
        lines += ["", "The same sends (both sides, every probe's successful requests, from their "
                  "records) by the wall-clock second they left in: seconds in which the host "
                  "lost no CPU to its hypervisor, and the others.", "",
                  "| run | host steal | sends, seconds without steal | late > 1 ms | sends, "
                  "seconds with steal | late > 1 ms |", "|---|---|---|---|---|---|"]
        for name, _, _, _, steal, split in got:
            lines.append(f"| {name} | {fmt_share(steal)} | {split['clean'][0]:,} | "
                         f"{fmt_late(split['clean'])} | {split['stolen'][0]:,} | "
                         f"{fmt_late(split['stolen'])} |")
        agree = []
        if len(got) == 2:
            for side in DEMO_SIDES:
                a, b = got[0][2][side], got[1][2][side]
                agree.append(demo_overlap(a, b))
                lines.append("")
                lines.append(f"{side}: the two runs' capacities "
                             + ("fall inside each other's brackets" if agree[-1] else
                                "do not fall inside each other's brackets")
                             + f" ({fmt_rate(a['capacity'])} and {fmt_rate(b['capacity'])}).")
        self.details.append(("The demo's schedule and capacity", "\n".join(lines)))
        for name, hogs, figs, load, steal, split in got:
            key = "quiet" if not hogs else "hogs"
            sends = sum(figs[s]["sends"] for s in DEMO_SIDES)
            late = sum(figs[s]["late"] * figs[s]["sends"] for s in DEMO_SIDES) / max(sends, 1)
            self.row("demo", f"demo_{key}_within",
                     f"demo ({name}): probes' sends within 1 ms",
                     "share of the capacity probes' open-loop sends (both sides) that left at "
                     "most 1 ms after their intended time", 100 * (1 - late), "% of requests",
                     ">= 99%" if not hogs else "", 100 * (1 - late) >= 99 if not hogs else None,
                     f"n={sends:,}, load {load}, host steal {fmt_share(steal)}")
            n, k = split["clean"]
            within = 100 * (1 - k / n) if n else None
            self.row("demo", f"demo_{key}_within_clean",
                     f"demo ({name}): probes' sends within 1 ms, seconds without steal",
                     "the same sends, only those that left in a second in which the host's "
                     "hypervisor took none of its CPU (hoststeal.py): the client's own "
                     "schedule-keeping", within, "% of requests",
                     ">= 99%" if not hogs else "",
                     (within is not None and within >= 99) if not hogs else None,
                     f"n={n:,} of {n + split['stolen'][0]:,} sends",
                     none="n/a: no second without steal")
            inside = all(figs[s]["inside"] for s in DEMO_SIDES)
            self.row("demo", f"demo_{key}_brackets",
                     f"demo ({name}): capacities inside their brackets",
                     "both sides' capacity reads lie inside the bracket their search ended "
                     "with", sum(bool(figs[s]["inside"]) for s in DEMO_SIDES), "sides", "both", inside,
                     "; ".join(f"{s} {fmt_rate(figs[s]['capacity'])} in "
                               f"[{fmt_rate(figs[s]['held'])}, {fmt_rate(figs[s]['failed'])}]"
                               for s in DEMO_SIDES))
        if agree:
            self.row("demo", "demo_runs_agree", "demo: the two runs' capacities agree",
                     "each side's brackets of the two runs overlap", sum(agree), "sides", "both", all(agree))


def demo_figures(side):
    """A side of report.json's open_loop: its capacity and bracket, and its probes'
    lateness (late_share weighted by each probe's requests)."""
    cap = side.get("capacity") or {}
    pts = [p for p in side.get("rates") or [] if isinstance(p.get("late_share"), (int, float))]
    sends = sum(p["ok"] for p in pts)
    rate = cap.get("requests_per_second") if cap.get("relation") == "=" else None
    held, failed = cap.get("last_held"), cap.get("first_failed")
    return {"capacity": rate, "held": held, "failed": failed,
            "inside": None not in (rate, held, failed) and held <= rate <= failed,
            "sends": sends,
            "late": sum(p["late_share"] * p["ok"] for p in pts) / sends if sends else 0.0,
            "late_p99": max((p.get("late_p99_seconds") or 0 for p in pts), default=0.0)}


def probe_sends(out):
    """(wall start in seconds, late) of every successful request of the capacity probes
    in the demo's run folder out (each side's rate-search-N.json)."""
    sends = []
    for path in glob.glob(os.path.join(out, "*", "rate-search-*.json")):
        with open(path) as f:
            for r in json.load(f)["records"]:
                if r.get("ok") and r.get("t_intended_us") is not None:
                    sends.append((r["wall_start_us"] / 1e6,
                                  r["t_start_us"] - r["t_intended_us"] > 1000))
    return sends


def fmt_share(v):
    return "n/a" if v is None else f"{100 * v:.1f}%"


def fmt_late(nk):
    return "n/a" if not nk[0] else f"{100 * nk[1] / nk[0]:.2f}%"


def demo_overlap(a, b):
    """Two runs of a side agree: their brackets overlap."""
    if None in (a["held"], a["failed"], b["held"], b["failed"]):
        return False
    return a["held"] <= b["failed"] and b["held"] <= a["failed"]


def fmt_rate(v):
    return "n/a" if v is None else f"{v:.2f}/s"
