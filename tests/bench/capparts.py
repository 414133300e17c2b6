"""tests/bench/run's capacity part (issue 21's accuracy target): a mixin of the
Bench class, which gives it row(), say(), fail(), start_emulator(), sm_stream(),
finished(), the build's programs and a temporary folder.

  capacity  an emulator configuration whose knee is computable (constant step
            time, max_seqs small, no overhead, prefill or jitter): its SLO rate
            derived from the emulator's own model (a deterministic simulation of
            its continuous batching under rate.lua's constant arrivals, and the
            fluid closed form beside it), then rate.lua on sm-stream at rates
            spaced around the knee and sm-compare --slo ttft:p90:B --format json:
            the capacity it finds against the derived one (target within 5%), and
            the achieved arrival rate of every round against the asked one
            (target within 2%).

The model (emulator/model/batch.c, runtime/rtcall.c with these settings): a call is ready when
it arrives; steps of S seconds run back to back while any sequence waits or
runs, each admitting waiting calls up to max_seqs M at its start and giving every
running one a token; an idle batch starts a step when a call is ready. A call's
first token leaves at the end of its first step. Each seat serves T steps per
call, so the knee is mu = M / (T S) calls a second: below it the time to first
token is one or two steps; above it the queue grows by lambda - mu a second, and
the calls of a round of D seconds wait about (i / mu - i / lambda) for the i-th,
so the q-quantile of TTFT is about q D (lambda / mu - 1) plus the base, and the
SLO rate about mu (1 + (B - base) / (q D)). The simulation replaces the fluid
reading with the exact schedule (the arrival times as rate.lua draws them, to the
microsecond; the percentile type 7, as sm-compare takes it).
"""
import json
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CAP_SEATS, CAP_TOKENS, CAP_STEP = 8, 32, 0.010  # max_seqs, tokens a call, step seconds
CAP_SLO_Q, CAP_SLO_S = 0.90, 0.5                # ttft:p90:0.5


def cap_arrivals(rate, duration):
    """The intended starts of a constant-rate round, as plugin/arrivals.c draws them."""
    out, t = [], 0.0
    while round(t * 1e6) < duration * 1e6:
        out.append(round(t * 1e6) / 1e6)
        t += 1.0 / rate
    return out


def cap_simulate(rate, duration, seats=CAP_SEATS, tokens=CAP_TOKENS, step=CAP_STEP):
    """Each call's time to first token under the emulator's batching (no overhead,
    prefill or jitter): a list in arrival order."""
    arr = cap_arrivals(rate, duration)
    ttft = [None] * len(arr)
    waiting, running = [], []  # indices; [index, tokens left]
    i, step_end, w = 0, None, 0
    while i < len(arr) or w < len(waiting) or running:
        busy = running or w < len(waiting)
        # a call that came during the last step waits for its end even if the batch emptied
        start = step_end if busy else max(arr[i], step_end if step_end is not None else arr[i])
        while i < len(arr) and arr[i] <= start:
            waiting.append(i)
            i += 1
        while w < len(waiting) and len(running) < seats:
            running.append([waiting[w], tokens])
            w += 1
        end = start + step
        for r in running:
            if ttft[r[0]] is None:
                ttft[r[0]] = end - arr[r[0]]
            r[1] -= 1
        running = [r for r in running if r[1] > 0]
        step_end = end
    return ttft


def cap_quantile(values, q):
    """Type 7 (linear between ranks), as sm-compare takes percentiles."""
    s = sorted(values)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def cap_slo_rate(duration):
    """The rate at which the simulated p90 TTFT reaches the bound (bisection), and the
    fluid closed form."""
    mu = CAP_SEATS / (CAP_TOKENS * CAP_STEP)
    lo, hi = mu * 0.9, mu * 3
    for _ in range(40):
        mid = (lo + hi) / 2
        if cap_quantile(cap_simulate(mid, duration), CAP_SLO_Q) <= CAP_SLO_S:
            lo = mid
        else:
            hi = mid
    base = 1.5 * CAP_STEP  # a step, and half a step's wait for its boundary on average
    return (lo + hi) / 2, mu * (1 + (CAP_SLO_S - base) / (CAP_SLO_Q * duration))


class CapacityParts:
    # ------------------------------------------------------------ 9. capacity

    def part_capacity(self):
        mu = CAP_SEATS / (CAP_TOKENS * CAP_STEP)
        duration = 3 if self.quick else 20
        grid = (1.0, 1.15, 1.3) if self.quick else (0.90, 0.95, 1.00, 1.05, 1.10)
        rates = [round(mu * g, 3) for g in grid]
        derived, fluid = cap_slo_rate(duration)
        emu = self.start_emulator(["--endpoint", "cap-a=instant", "--endpoint", "cap-b=instant",
                                   "--set", "*.step_ms=1:%g" % (CAP_STEP * 1000), "--set",
                                   "*.max_seqs=%d" % CAP_SEATS])
        out = os.path.join(self.tmp, "capacity")
        slo = "ttft:p%d:%g" % (round(CAP_SLO_Q * 100), CAP_SLO_S)
        try:
            self.say(f"capacity: rates {rates}, {duration} s each, both sides")
            p = self.sm_stream(256, os.path.join(ROOT, "scenarios", "rate.lua"), emu.url, [
                "--endpoint", "cap-a", "--endpoint", "cap-b", "--rates",
                ",".join("%g" % r for r in rates), "--duration", str(duration), "--arrivals",
                "constant", "--max-tokens", str(CAP_TOKENS), "--prompt", "Count.",
                "--out", os.path.join(out, "{label}.json")])
            self.finished(p, "capacity rate.lua")
        finally:
            emu.stop()
        report = os.path.join(out, "compare.json")
        c = subprocess.run([self.bin["compare"], os.path.join(out, "cap-a.json"),
                            os.path.join(out, "cap-b.json"), "--slo", slo, "--format", "json",
                            "-o", report], capture_output=True, text=True)
        if c.returncode != 0:
            self.fail(f"sm-compare: exit {c.returncode}: {c.stderr.strip()[-300:]}")
        with open(report) as f:
            sides = json.load(f)["open_loop"]["sides"]
        found, lines = {}, []
        for key, label in (("baseline", "cap-a"), ("candidate", "cap-b")):
            cap = sides[key]["capacity"]
            if cap["relation"] != "=":
                self.fail(f"capacity of {label}: {cap['relation']} {cap['requests_per_second']}"
                          " (the rates do not bracket it)")
            found[label] = cap["requests_per_second"]
            for r in sides[key]["rates"]:
                ttft = (r["latency_seconds"]["ttft"] or {}).get("p90")
                held = (r["slos"] or {}).get("held")
                lines.append(f"| {label} | {r['rate']:g} | {ttft:.3f} s | "
                             f"{cap_quantile(cap_simulate(r['rate'], duration), CAP_SLO_Q):.3f} s"
                             f" | {'held' if held else 'failed'} |")
        achieved = self.cap_achieved(out, rates)
        self.cap_rows(mu, derived, fluid, found, achieved, duration, rates, slo, lines)

    def cap_achieved(self, out, rates):
        """(side, asked rate, achieved rate) of every round: (n - 1) / (last start - first)."""
        got = []
        for label in ("cap-a", "cap-b"):
            with open(os.path.join(out, label + ".json")) as f:
                recs = json.load(f)["records"]
            for k, rate in enumerate(rates):
                starts = sorted(r["t_start_us"] for r in recs if r["batch"] == k)
                if len(starts) < 2:
                    self.fail(f"capacity: {label} at {rate}/s has {len(starts)} records")
                got.append((label, rate, (len(starts) - 1) / (starts[-1] - starts[0]) * 1e6))
        return got

    def cap_rows(self, mu, derived, fluid, found, achieved, duration, rates, slo, lines):
        errs = {label: (v / derived - 1) * 100 for label, v in found.items()}
        worst = max(errs.values(), key=abs)
        self.row("capacity", "capacity_error", "capacity at the SLO: found / derived",
                 f"sm-compare's capacity at {slo} (rate.lua on sm-stream, {duration} s rounds at "
                 f"{len(rates)} rates around the knee) against the SLO rate derived from the "
                 "emulator's model; the larger error of two identical endpoints", worst, "%",
                 "within 5%", abs(worst) <= 5,
                 f"found {found['cap-a']:.2f} and {found['cap-b']:.2f}/s, derived {derived:.2f}/s")
        self.row("capacity", "capacity_derived", "capacity at the SLO: derived",
                 f"the rate at which p90 TTFT reaches {CAP_SLO_S:g} s in a deterministic "
                 f"simulation of the emulator's batching (knee M / (T S) = {mu:g}/s)", derived,
                 "requests/s", detail=f"fluid closed form {fluid:.2f}/s")
        rate_errs = [(got / asked - 1) * 100 for _, asked, got in achieved]
        worst_rate = max(rate_errs, key=abs)
        self.row("capacity", "capacity_rate_error", "achieved / asked arrival rate",
                 "the largest error of a round's achieved arrival rate ((n - 1) / (last start - "
                 "first start)) against its asked rate, over every round of both sides",
                 worst_rate, "%", "within 2%", abs(worst_rate) <= 2,
                 f"{len(achieved)} rounds, {min(g for _, _, g in achieved):.2f} to "
                 f"{max(g for _, _, g in achieved):.2f}/s")
        text = [
            f"Two endpoints alike (`--set '*.step_ms=1:{CAP_STEP * 1000:g}' --set "
            f"'*.max_seqs={CAP_SEATS}'` on the instant profile: no overhead, prefill or jitter), "
            f"{CAP_TOKENS}-token streamed replies, `scenarios/rate.lua --arrivals constant "
            f"--duration {duration} --rates {','.join('%g' % r for r in rates)}` on `sm-stream "
            f"-t1 -c256`, then `sm-compare --slo {slo} --format json`. The knee is M / (T S) = "
            f"{mu:g} requests/s; the SLO rate {derived:.3f}/s comes from a simulation of the "
            f"emulator's batching with rate.lua's arrival times (tests/bench/capparts.py; the "
            f"fluid closed form mu (1 + (B - 1.5 S) / (0.9 D)) gives {fluid:.3f}/s). Found: "
            f"{found['cap-a']:.3f}/s and {found['cap-b']:.3f}/s.",
            "", "| side | rate | p90 TTFT measured | p90 TTFT simulated | SLO |",
            "|---|---|---|---|---|"] + lines
        self.details.append(("Capacity at an SLO (accuracy)", "\n".join(text)))

    @staticmethod
    def capacity_notes(v):
        """The notes' bullet of the capacity part (v: the rows' values)."""
        def val(key, fmt):
            return fmt % v[key] if key in v else "n/a"

        return [
            "- **Capacity.** The capacity search reads the SLO rate between two probes (the "
            "last rate that held and the first that failed) on a straight line; above the "
            "knee the p90 TTFT of a constant-rate round grows about linearly with the rate "
            "(the queue grows by lambda - mu a second for the round's D seconds), so the "
            "reading is close to the model's own rate (" + val("capacity_error", "%+.2f%%") +
            "). The measured TTFT adds the client's and the loopback's share (well under a "
            "millisecond) to the model's; the achieved arrival rates are the asked ones to " +
            val("capacity_rate_error", "%+.2f%%") + " at worst.",
        ]
