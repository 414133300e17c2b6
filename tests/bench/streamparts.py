"""tests/bench/run's parts for the streaming engine (issue 20) and open-loop load
(issue 21): a mixin of the Bench class, which gives it row(), say(), fail(),
start_emulator(), the CPUs, the build's programs and a temporary folder.

  stream    (a) TTFT and median ITL at K=1 against the timing model, on emulator
            configurations that are no built-in profile, and a thinking model's
            TTFT, TTFOT, TPOT and ITL (all tokens and answer-only) on both routes;
            (b) the client's own share of TTFT at 1,000 concurrent streams, each
            record matched to the emulator's request-log line by a tag in its
            prompt; (c) memory per stream and CPU per received token at 10,000
            streams in one process, and the kernel's floor under it (recv_floor);
            (d) CPU per token of botocore's event-stream parser on a captured
            reply, beside the C codec's.
  openloop  schedule adherence of rate.lua at 1,000 requests/s against the
            instant profile, on sm-stream and on wrk: the share of requests sent
            within 1 ms of their intended time, the lateness, the achieved rate.
"""
import json
import os
import re
import resource
import statistics
import subprocess
import time

from hoststeal import StealWatch, split_late

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLOOR_BYTES = 356  # a token's 349-byte event-stream message (part (d)) in its HTTP chunk
TAG = re.compile(r"\(request (\d+\.\d+)\)$")  # tagged.lua's mark at the end of a prompt


def quantile(values, q):
    """The q-quantile of values, nearest rank (values need not be sorted)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def read_records(path):
    with open(path) as f:
        return json.load(f)["records"]


class StreamParts:
    # ------------------------------------------------------------ helpers

    def realtime(self):
        """chrt's words for a latency-sensitive client (SCHED_FIFO, so that the shared
        host's other jobs cannot hold it off its CPU), or none when not allowed."""
        if getattr(self, "_rt", None) is None:
            ok = not self.o.no_rt and subprocess.run(
                ["chrt", "-f", "10", "true"], capture_output=True).returncode == 0
            self._rt = ["chrt", "-f", "10"] if ok else []
        return self._rt

    def open_files(self, need):
        """Raises this process's open-file limit (inherited by the emulator and the
        clients) to need, as far as the hard limit allows."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            if hard != resource.RLIM_INFINITY and hard < need:
                self.fail(f"{need} open files needed, the hard limit (ulimit -Hn) is {hard}")
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))

    def sm_stream(self, conns, script, url, args, rt=False, engine=()):
        """sm-stream -t1 -cN on the client CPU (at real-time priority when rt), with the
        engine options engine."""
        cmd = [self.bin["stream"], "-t1", f"-c{conns}", "-d1h"] + list(engine) + [
            "-s", script, url, "--", "--region", "us-east-1", "--progress", "0"] + list(args)
        if rt:
            cmd = self.realtime() + cmd
        if self.client_cpu is not None:
            cmd = ["taskset", "-c", str(self.client_cpu)] + cmd
        return subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)

    def rt_emulator(self, args):
        """sm-emulator on the server CPU, at real-time priority when allowed (it sleeps
        in epoll between events, so it takes no CPU from the host's other jobs that it
        does not use), for figures that time its replies to the millisecond."""
        emu = self.start_emulator(args)
        if self.realtime():
            try:
                os.sched_setscheduler(emu.proc.pid, os.SCHED_FIFO, os.sched_param(10))
            except OSError as e:
                emu.stop()
                self.fail(f"cannot give sm-emulator real-time priority: {e}")
        return emu

    def prio_text(self):
        return ("both at real-time priority (SCHED_FIFO, the emulator sleeping in epoll between "
                "events): the shared host's other jobs cannot hold either off its CPU." if
                self.realtime() else "both at normal priority (real-time priority was not "
                "allowed): the shared host's other jobs add to every delay.")

    @staticmethod
    def hwm_kib(pid, peak=0):
        """The larger of peak and the process's resident high-water mark (VmHWM: its own
        since its exec, unlike getrusage's ru_maxrss, which keeps the forked Python's)."""
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return max(peak, int(line.split()[1]))
        except OSError:
            pass
        return peak

    def watch(self, p):
        """Waits for p, sampling its VmHWM every 20 ms: (exit status, rusage, peak KiB)."""
        peak = 0
        while True:
            pid, status, use = os.wait4(p.pid, os.WNOHANG)
            if pid:
                return status, use, peak
            peak = self.hwm_kib(p.pid, peak)
            time.sleep(0.02)

    def finished(self, p, what):
        err = self.stop_when_done(p)
        if p.returncode != 0:
            self.fail(f"{what}: exit {p.returncode}: {err.strip()[-300:]}")

    def pinned(self, cmd):
        return (["taskset", "-c", str(self.client_cpu)] if self.client_cpu is not None
                else []) + cmd

    # ------------------------------------------------------------ 7. streaming

    def part_stream(self):
        self.lines = []
        try:
            self.stream_accuracy()
            self.stream_reasoning()
            self.stream_share()
            self.stream_scale()
            self.stream_codecs()
        finally:
            self.details.append(("Streaming (sm-stream)", "\n".join(self.lines)))

    def stream_configs(self):
        """Emulator configurations that are no built-in profile, without jitter."""
        return [
            {"name": "stream-set", "overhead_s": 0.15, "prefill_s_per_token": 0.0002,
             "steps": [(1, 25), (4, 28), (16, 40)], "jitter": 0.0},
            {"name": "stream-file", "overhead_s": 0.08, "prefill_s_per_token": 0.0005,
             "steps": [(1, 15), (8, 18)], "jitter": 0.0, "file": True},
        ]

    def stream_accuracy(self):
        """(a) TTFT at concurrency 1 and median ITL at 1 and 4, K = 1."""
        quick = self.quick
        tokens, reps = (8, 2) if quick else (48, 8)
        cfgs = self.stream_configs()
        out = os.path.join(self.tmp, "stream-accuracy")
        emu = self.rt_emulator(self.accuracy_emulator_args(cfgs, 1))
        try:
            for c, batches in ((1, reps), (4, max(1, reps // 4))):
                self.say(f"stream: accuracy at {c}")
                sides = [w for cfg in cfgs for w in ("--endpoint", cfg["name"])]
                self.finished(self.sm_stream(c, os.path.join(ROOT, "scenarios", "sweep.lua"),
                                             emu.url, sides + [
                                                 "--max-tokens", str(tokens), "--batches",
                                                 str(batches), "--out",
                                                 os.path.join(out, f"c{c}-{{label}}.json")],
                                             rt=True), f"sm-stream sweep.lua -c{c}")
        finally:
            emu.stop()
        self.lines += [
            "### (a) Accuracy at K = 1", "",
            f"sm-emulator at --time-scale 1 (real time), two configurations that are "
            "no built-in profile, without jitter; sm-stream -t1 -cN scenarios/sweep.lua "
            f"--max-tokens {tokens}, {reps} requests a side at N = 1 and {max(1, reps // 4)} "
            "batches of 4; " + self.prio_text() + " Model TTFT = overhead "
            "+ prompt_tokens x prefill_s_per_token + step(1) (the batch is idle when a request "
            "arrives alone; prompt_tokens from the record's usage); model ITL = step(N), the step "
            "at N sequences in flight. TTFT error = client TTFT (t_first_token_us - t_start_us) "
            "minus the model's, median over the requests; target: within 1 ms + 1% of the "
            "model's TTFT. ITL: the median of every chunk gap of every record at that "
            "concurrency; target: within 1% of step(N).", "",
            "| configuration | overhead_s | prefill_s_per_token | step_ms | figure | model | "
            "measured (median) | error | n |", "|---|---|---|---|---|---|---|---|---|"]
        for cfg in cfgs:
            name, steps = cfg["name"], cfg["steps"]
            src = "profile file (base qat-l4)" if cfg.get("file") else "--set on instant"
            step_txt = ",".join(f"{b}:{ms:g}" for b, ms in steps)
            recs = {c: [r for r in read_records(os.path.join(out, f"c{c}-{name}.json"))
                        if r["ok"]] for c in (1, 4)}
            if len(recs[1]) != reps or any(r["t_first_token_us"] is None for r in recs[1]):
                self.fail(f"stream accuracy {name}: {len(recs[1])} of {reps} streams at 1 ok")
            model = [(cfg["overhead_s"] + r["prompt_tokens"] * cfg["prefill_s_per_token"]
                      + self.step_s(steps, 1)) * 1e3 for r in recs[1]]
            ttft = [(r["t_first_token_us"] - r["t_start_us"]) / 1e3 for r in recs[1]]
            errs = [t - m for t, m in zip(ttft, model)]
            err, m_ms = statistics.median(errs), statistics.median(model)
            limit = 1 + 0.01 * m_ms
            self.lines.append(f"| {name} ({src}) | {cfg['overhead_s']:g} | "
                              f"{cfg['prefill_s_per_token']:g} | {step_txt} | TTFT at 1 | "
                              f"{m_ms:.2f} ms | {statistics.median(ttft):.2f} ms | "
                              f"{err:+.2f} ms (range {min(errs):+.2f} to {max(errs):+.2f}) | "
                              f"{len(errs)} |")
            self.row("stream", f"stream_ttft_{name}", f"TTFT error at 1, {name}",
                     f"client TTFT less the model's overhead + prefill + step(1) = {m_ms:.2f} "
                     "ms, median over the requests (K = 1, no jitter)", err, "ms",
                     f"within {limit:.2f} ms (1 ms + 1%)", abs(err) <= limit,
                     f"median TTFT {statistics.median(ttft):.2f} ms, range of errors "
                     f"{min(errs):+.2f} to {max(errs):+.2f} ms, n={len(errs)}")
            for c in (1, 4):
                gaps = [g / 1e3 for r in recs[c] for g in r["chunk_gaps_us"]]
                if not gaps:
                    self.fail(f"stream accuracy {name}: no chunk gaps at {c}")
                want = self.step_s(steps, c) * 1e3
                med = statistics.median(gaps)
                e = (med / want - 1) * 100
                self.lines.append(f"| {name} ({src}) | | | | median ITL at {c} | {want:.3f} ms "
                                  f"| {med:.3f} ms | {e:+.2f}% | {len(gaps)} gaps |")
                self.row("stream", f"stream_itl{c}_{name}", f"median ITL at {c}, {name}",
                         f"median gap between content chunks at concurrency {c} against the "
                         f"model's step({c}) = {want:.3f} ms", e, "%", "within 1%",
                         abs(e) <= 1, f"measured {med:.3f} ms, n={len(gaps)} gaps of "
                         f"{len(recs[c])} streams")

    @staticmethod
    def reasoning_config():
        """stream-set's timing with a reasoning profile: R reasoning tokens, then the
        answer, within max_tokens (the emulator's max_tokens bounds both)."""
        return {"name": "stream-think", "overhead_s": 0.15, "prefill_s_per_token": 0.0002,
                "steps": [(1, 25), (4, 28), (16, 40)], "jitter": 0.0, "reasoning": 16,
                "max_tokens": 48}

    @staticmethod
    def reasoning_figures(r):
        """A thinking record's figures by sm-compare's definitions (docs/result-format.md),
        in ms: TTFT, TTFOT, TPOT and TPOT answer-only of the request, and its ITL values
        (per token: a gap before a chunk of k tokens counts k times as gap / k), all and
        answer-only (the gaps after the first answer chunk arrived)."""
        n, rt = r["completion_tokens"], r["reasoning_tokens"]
        toks = r.get("chunk_tokens") or [1] * r["chunks"]
        itl, itl_a, at = [], [], r["t_first_token_us"]
        for j, gap in enumerate(r["chunk_gaps_us"], 1):
            vals = [gap / toks[j] / 1e3] * toks[j]
            itl += vals
            if at >= r["t_first_output_us"]:
                itl_a += vals
            at += gap
        return {"ttft": (r["t_first_token_us"] - r["t_start_us"]) / 1e3,
                "ttfot": (r["t_first_output_us"] - r["t_start_us"]) / 1e3,
                "tpot": (r["t_end_us"] - r["t_first_token_us"]) / 1e3 / (n - 1),
                "tpot_answer": (r["t_end_us"] - r["t_first_output_us"]) / 1e3 / (n - rt - 1),
                "itl": itl, "itl_answer": itl_a}

    def same_as_compare(self, rows, fig, side, ms, api):
        """Fails unless sm-compare's p50 of fig (rows: its streaming rows, the sweep's
        measurement c1) on side is ms, to the microsecond it prints."""
        got = (rows.get(f"{fig}_c1_p50_seconds") or [None, None])[side]
        if got is None or abs(got * 1e3 - ms) > 1e-3 + 1e-6 * ms:
            self.fail(f"stream reasoning --api {api}: sm-compare's {fig} p50 is {got} s, "
                      f"the records' median {ms / 1e3:.7f} s")

    def stream_reasoning(self):
        """(a) continued: a thinking model at concurrency 1, K = 1, on both routes (the
        streaming route and the OpenAI-compatible one), against the timing model."""
        cfg = self.reasoning_config()
        name, steps, R, tokens = cfg["name"], cfg["steps"], cfg["reasoning"], cfg["max_tokens"]
        reps = 2 if self.quick else 8
        out = os.path.join(self.tmp, "stream-reasoning")
        args = ["--time-scale", "1", "--endpoint", f"{name}=instant"]
        for k, v in (("overhead_s", cfg["overhead_s"]),
                     ("prefill_s_per_token", cfg["prefill_s_per_token"]),
                     ("step_ms", ",".join(f"{b}:{ms}" for b, ms in steps)),
                     ("jitter", cfg["jitter"]), ("reasoning_tokens", R)):
            args += ["--set", f"{name}.{k}={v}"]
        apis = ("stream", "openai")
        emu = self.rt_emulator(args)
        try:
            for api in apis:
                self.say(f"stream: a thinking model on --api {api}")
                self.finished(self.sm_stream(1, os.path.join(ROOT, "scenarios", "sweep.lua"),
                                             emu.url, ["--endpoint", name, "--max-tokens",
                                                       str(tokens), "--batches", str(reps),
                                                       "--out", os.path.join(
                                                           out, f"{api}-{{label}}.json")],
                                             rt=True, engine=("--api", api)),
                              f"sm-stream --api {api} sweep.lua -c1")
        finally:
            emu.stop()
        s1 = self.step_s(steps, 1) * 1e3
        step_txt = ",".join(f"{b}:{ms:g}" for b, ms in steps)
        self.lines += [
            "", "#### A thinking model at K = 1, both routes", "",
            f"The same emulator at real time, one configuration {name} (--set on instant: "
            f"overhead_s {cfg['overhead_s']:g}, prefill_s_per_token "
            f"{cfg['prefill_s_per_token']:g}, step_ms {step_txt}, no jitter) with the "
            f"reasoning profile reasoning_tokens={R}: {R} reasoning tokens (delta.reasoning), "
            f"one a step, then the answer, within max_tokens (the emulator counts both): "
            f"sm-stream -t1 -c1 scenarios/sweep.lua --max-tokens {tokens} (ignore_eos), "
            f"{reps} requests on each route, the streaming route (--api stream, "
            "InvokeEndpointWithResponseStream) and the OpenAI-compatible one (--api openai, "
            "/openai/v1/chat/completions); " + self.prio_text() + " Every record must have "
            f"{tokens} tokens, {R} of them reasoning. Model: TTFT = overhead + prompt_tokens x "
            "prefill_s_per_token + step(1) (the first reasoning token); TTFOT = TTFT + "
            f"{R} x step(1) (the first answer token comes {R} steps after the first "
            "reasoning token); TPOT, ITL and their answer-only variants = step(1). Measured "
            "by sm-compare's definitions (docs/result-format.md): TTFT = t_first_token_us - "
            "t_start_us, TTFOT = t_first_output_us - t_start_us, errors the median over the "
            "requests of measured minus model, target within 1 ms + 1% of the model's; TPOT "
            "= (t_end_us - t_first_token_us) / (completion_tokens - 1) per request, "
            "answer-only (t_end_us - t_first_output_us) / (completion_tokens - "
            "reasoning_tokens - 1), the median over the requests; ITL the median of every "
            "per-token gap of every record (answer-only: the gaps after the first answer "
            "chunk arrived), n counting tokens; target within 1% of step(1). Each measured "
            "median is sm-compare's p50 of the same records (the run fails if not).", "",
            "| route | figure | model | measured (median) | error | n |",
            "|---|---|---|---|---|---|"]
        labels = {"ttft": "TTFT", "ttfot": "TTFOT", "tpot": "TPOT", "itl": "ITL",
                  "tpot_answer": "TPOT answer-only", "itl_answer": "ITL answer-only"}
        files = [os.path.join(out, f"{api}-{name}.json") for api in apis]
        p = subprocess.run([self.bin["compare"], "--format", "json"] + files,
                           capture_output=True, text=True, env=self.env, timeout=120)
        if p.returncode not in (0, 1):
            self.fail(f"sm-compare on the thinking runs: exit {p.returncode}: {p.stderr[-300:]}")
        p50 = json.loads(p.stdout)["streaming_seconds"]["rows"]
        for side, (api, path) in enumerate(zip(apis, files)):
            recs = [r for r in read_records(path) if r["ok"]]
            bad = [r for r in recs if r["completion_tokens"] != tokens
                   or r.get("reasoning_tokens") != R or r.get("t_first_output_us") is None]
            if len(recs) != reps or bad:
                self.fail(f"stream reasoning --api {api}: {len(recs)} of {reps} ok, "
                          f"{len(bad)} without {tokens} tokens of which {R} reasoning")
            figs = [self.reasoning_figures(r) for r in recs]
            for fig in ("ttft", "ttfot"):
                model = [cfg["overhead_s"] * 1e3 + r["prompt_tokens"]
                         * cfg["prefill_s_per_token"] * 1e3 + s1 * (1 + (R if fig == "ttfot"
                                                                        else 0)) for r in recs]
                got = [f[fig] for f in figs]
                self.same_as_compare(p50, fig, side, statistics.median(got), api)
                errs = [g - m for g, m in zip(got, model)]
                err, m_ms = statistics.median(errs), statistics.median(model)
                limit = 1 + 0.01 * m_ms
                self.lines.append(f"| {api} | {labels[fig]} | {m_ms:.2f} ms | "
                                  f"{statistics.median(got):.2f} ms | {err:+.2f} ms (range "
                                  f"{min(errs):+.2f} to {max(errs):+.2f}) | {len(errs)} |")
                self.row("stream", f"stream_think_{api}_{fig}",
                         f"{labels[fig]} error, thinking, --api {api}",
                         f"client {labels[fig]} less the model's (overhead + prefill + "
                         f"{'(1 + R) x ' if fig == 'ttfot' else ''}step(1) = {m_ms:.2f} ms, "
                         f"R = {R}), median over the requests (K = 1, c1, no jitter)", err,
                         "ms", f"within {limit:.2f} ms (1 ms + 1%)", abs(err) <= limit,
                         f"median {labels[fig]} {statistics.median(got):.2f} ms, range of "
                         f"errors {min(errs):+.2f} to {max(errs):+.2f} ms, n={len(errs)}")
            for fig in ("tpot", "itl", "tpot_answer", "itl_answer"):
                vals = ([v for f in figs for v in f[fig]] if fig.startswith("itl")
                        else [f[fig] for f in figs])
                if not vals:
                    self.fail(f"stream reasoning --api {api}: no {fig} values")
                med = statistics.median(vals)
                self.same_as_compare(p50, fig, side, med, api)
                e = (med / s1 - 1) * 100
                unit = "tokens" if fig.startswith("itl") else "requests"
                self.lines.append(f"| {api} | {labels[fig]} | {s1:.3f} ms | {med:.3f} ms | "
                                  f"{e:+.2f}% | {len(vals)} {unit} |")
                self.row("stream", f"stream_think_{api}_{fig}",
                         f"{labels[fig]}, thinking, --api {api}",
                         f"median {labels[fig]} (sm-compare's definition) at concurrency 1 "
                         f"against the model's step(1) = {s1:.3f} ms", e, "%", "within 1%",
                         abs(e) <= 1, f"measured {med:.3f} ms, n={len(vals)} {unit} of "
                         f"{len(recs)} streams")

    def share_runs(self):
        """(b)'s two loads: one batch of n streams on one variant (every step's tokens
        leave in one burst), and n streams in flight on a fleet of variants (Poisson
        arrivals; each variant's steps at its own phase)."""
        if self.quick:
            return 100, {"batch": {"tokens": 8, "batches": 2},
                         "fleet": {"variants": 10, "tokens": 8, "step_ms": 100, "seconds": 3}}
        return 1000, {"batch": {"tokens": 16, "batches": 4},
                      "fleet": {"variants": 50, "tokens": 30, "step_ms": 200, "seconds": 16}}

    def share_pair(self, n, runs, busy, k):
        """One emulator and one sm-stream on the loads of (b), round k: both sleeping in
        epoll at real-time priority (the fleet, and the batch in round 0), or both
        busy-polling at normal priority (the fleet). Returns the records' folder and the
        request log's lines by (endpoint, tag)."""
        fl = runs["fleet"]
        tag = ("busy" if busy else "sleep") + str(k)
        log = os.path.join(self.tmp, f"share-{tag}-requests.jsonl")
        out = os.path.join(self.tmp, f"share-{tag}")
        args = ["--max-connections", str(n + 100), "--request-log", log,
                "--endpoint", "burst=instant", "--set", "burst.overhead_s=0.2", "--set",
                f"burst.step_ms=1:20,{n}:40", "--set", f"burst.max_seqs={n + 24}"]
        for v in range(fl["variants"]):
            args += ["--endpoint", f"fleet/v{v:02d}=instant"]
        args += ["--set", f"fleet.overhead_s={fl['overhead']}", "--set",
                 f"fleet.step_ms=1:{fl['step_ms']}", "--set", "fleet.max_seqs=256"]
        poll = ["--busy-poll"] if busy else []
        emu = self.start_emulator(args + poll) if busy else self.rt_emulator(args)
        tagged = os.path.join(HERE, "tagged.lua")
        try:
            if not busy and k == 0:
                self.say(f"stream: {n} streams in one batch")
                self.finished(self.sm_stream(n, tagged, emu.url, [
                    "--endpoint", "burst", "--max-tokens", str(runs["batch"]["tokens"]),
                    "--batches", str(runs["batch"]["batches"]), "--out",
                    os.path.join(out, "{label}.json")], rt=True), f"sm-stream tagged.lua -c{n}")
            self.say(f"stream: {n} streams in flight on {fl['variants']} variants ({tag})")
            self.finished(self.sm_stream(n, tagged, emu.url, [
                "--endpoint", "fleet", "--max-tokens", str(fl["tokens"]), "--rate",
                str(fl["rate"]), "--count", str(fl["count"]), "--out",
                os.path.join(out, "{label}.json")], rt=not busy, engine=poll),
                f"sm-stream tagged.lua --rate {fl['rate']} -c{n} {' '.join(poll)}")
        finally:
            emu.stop()
        served = {}
        with open(log) as f:
            for line in f:
                e = json.loads(line)
                m = TAG.search(e.get("prompt") or "")
                if e.get("endpoint") in ("burst", "fleet") and m:
                    key = (e["endpoint"], m.group(1))
                    if key in served:
                        self.fail(f"stream share: two request-log lines for {key}")
                    served[key] = e
        return out, served

    def stream_share(self):
        """(b) The client's own share of TTFT at n concurrent streams."""
        n, runs = self.share_runs()
        fl = runs["fleet"]
        fl["overhead"] = 0.5
        duration = fl["overhead"] + fl["tokens"] * fl["step_ms"] / 1e3  # one stream, alone
        fl["rate"] = round(0.97 * n / duration, 1)  # about n in flight
        fl["count"] = int(fl["rate"] * fl["seconds"])
        self.open_files(n + 256)
        rounds = 1 if self.quick else 5
        pairs = {(busy, k): self.share_pair(n, runs, busy, k) for k in range(rounds)
                 for busy in (False, True)}
        self.lines += [
            "", f"### (b) The client's share of TTFT at {n:,} streams", "",
            f"sm-stream -t1 -c{n} (one process) against sm-emulator with --request-log; " +
            self.prio_text() + " The fleet runs again with both busy-polling instead "
            "(sm-stream --busy-poll, sm-emulator --busy-poll, normal priority: a busy loop at "
            "real-time priority would be throttled), so that no reply waits for a sleeping CPU "
            "to wake (on this virtual machine a wake-up across CPUs takes about 40 us, and "
            f"over 100 us at p99). The fleet runs {rounds} round(s) in each mode, one after the "
            "other; the results' rows take the quietest (the lowest p99). Each request "
            "carries a tag of its own "
            "(tests/bench/tagged.lua: the prompt ends in \"(request B.K)\" and the record's "
            "`question` is \"B.K\"), so every record is matched to the one request-log line "
            "whose prompt ends in its tag (one to one: a record without its line, or a line "
            "without its record, fails the run). Share = (t_first_token_us - t_start_us) - "
            "(first_token - received): each difference is on one clock. It splits into the "
            "send side (received - wall_start_us: the request leaving the client, crossing the "
            "loopback, waiting in the emulator's queue until it is handled) and the receive "
            "side (the client's wall clock at the first token - first_token: the emulator "
            "writes a token at once when its connection has nothing else to send, and stamps "
            "first_token when the write returned, by which time the loopback has put the bytes "
            "in the client's socket; so the client's wake-up, read and parse are in it, and a "
            "wait behind the other tokens of the same step that reached the client first). "
            "sm-stream reads the socket of a stream still waiting for its first token before "
            "those of streams under way (libevent priorities); the emulator reads requests "
            "while it waits out a step's last few hundred microseconds.",
            "", "| load | streams | n | share p50 | share p99 | share max | send side p99 | "
            "receive side p99 | in flight at first token (median) |",
            "|---|---|---|---|---|---|---|---|---|"]
        first = None
        for kind, busy in (("batch", False), ("fleet", False), ("fleet_busy", True)):
            figs = [self.share_load(kind, n, runs, duration, *pairs[(busy, k)])
                    for k in (range(1) if kind == "batch" else range(rounds))]
            for k, (f, what) in enumerate(figs):
                if kind == "batch":
                    first = f.pop("first")
                    self.lines.append(f"| one variant, the first batch of {n} (every "
                                      f"connection opened then) | {n} | " + first["cells"])
                label = f", round {k + 1}" if kind != "batch" and rounds > 1 else ""
                self.lines.append(f"| {what}{label} | {n} | " + f["cells"])
            f = min((f for f, _ in figs), key=lambda f: f["p99"])
            how = {"batch": "batches of all the streams on one variant, every step's tokens in "
                            "one burst, connections open",
                   "fleet": "streams spread over a fleet of variants, steady state, both "
                            "sleeping in epoll at real-time priority; the quietest round",
                   "fleet_busy": "streams spread over a fleet of variants, steady state, both "
                                 "busy-polling (--busy-poll); the quietest round"}[kind]
            p99s = ", ".join(f"{g['p99']:.2f}" for g, _ in figs)
            self.row("stream", f"stream_share_{kind}",
                     f"client's share of TTFT, p99, {n} streams ({kind.replace('_', ', ')})",
                     "client TTFT less the emulator's logged first_token - received, same "
                     "request (matched by a tag in the prompt): " + how, f["p99"],
                     "ms", "<= 1 ms", f["p99"] <= 1, f"p50 {f['p50']:.2f} ms, n={f['n']}, "
                     f"send side p99 {f['send99']:.2f} ms, receive side p99 {f['recv99']:.2f} "
                     f"ms, median {f['flight']:.0f} in flight" + (
                         f"; the first batch, opening its connections: p99 {first['p99']:.2f} ms"
                         if kind == "batch" else f"; rounds: {p99s} ms"))

    def share_load(self, kind, n, runs, duration, out, served):
        """The share's figures of one load of one round, and the table's words for it."""
        fl = runs["fleet"]
        ep = "burst" if kind == "batch" else "fleet"
        recs = read_records(os.path.join(out, f"{ep}.json"))
        if any(not r["ok"] for r in recs):
            self.fail(f"stream share ({kind}): {sum(not r['ok'] for r in recs)} streams failed")
        keys = {(ep, r["question"]) for r in recs}
        logged = {k for k in served if k[0] == ep}
        if len(keys) != len(recs) or keys != logged:
            self.fail(f"stream share ({kind}): {len(recs)} records, {len(logged)} logged "
                      f"requests, {len(keys ^ logged)} unmatched")
        spans = sorted((r["t_start_us"], r["t_end_us"]) for r in recs)
        first = None
        if kind == "batch":  # the first batch opens the connections: apart
            first = self.share_figures([r for r in recs if r["batch"] == 0], served, ep, spans)
            recs = [r for r in recs if r["batch"] > 0]
            what = (f"one variant, batches of {n} (step 20 ms at 1 to 40 ms at {n}, "
                    f"{runs['batch']['tokens']} tokens): every step's {n} tokens leave "
                    f"together; batches 2 to {runs['batch']['batches']} (keep-alive)")
        else:  # the steady state: after the first streams' lifetime
            t0 = spans[0][0] + duration * 1e6
            recs = [r for r in recs if r["t_start_us"] >= t0]
            what = (f"{n} in flight on {fl['variants']} variants of one endpoint (step "
                    f"{fl['step_ms']} ms, {fl['tokens']} tokens, Poisson arrivals at "
                    f"{fl['rate']:g}/s for {fl['seconds']} s), the streams sent after the "
                    f"first {duration:g} s (the ramp)" +
                    (", both busy-polling" if kind == "fleet_busy" else ""))
        f = self.share_figures(recs, served, ep, spans)
        if first is not None:
            f["first"] = first
        return f, what

    def share_figures(self, recs, served, ep, spans):
        """The client's share of TTFT of recs (ms): percentiles, sides, the table's cells."""
        share, send, recv, flight = [], [], [], []
        for r in recs:
            e = served[(ep, r["question"])]
            client = r["t_first_token_us"] - r["t_start_us"]
            share.append((client - (e["first_token"] - e["received"]) * 1e6) / 1e3)
            send.append((e["received"] * 1e6 - r["wall_start_us"]) / 1e3)
            recv.append((r["wall_start_us"] + client - e["first_token"] * 1e6) / 1e3)
            t = r["t_first_token_us"]
            flight.append(sum(1 for a, b in spans if a <= t < b))
        if not share:
            self.fail(f"stream share ({ep}): no request in the measured window")
        f = {"n": len(share), "p50": quantile(share, 0.5), "p99": quantile(share, 0.99),
             "send99": quantile(send, 0.99), "recv99": quantile(recv, 0.99),
             "flight": statistics.median(flight)}
        f["cells"] = (f"{f['n']} | {f['p50']:.2f} ms | {f['p99']:.2f} ms | {max(share):.2f} ms | "
                      f"{f['send99']:.2f} ms | {f['recv99']:.2f} ms | {f['flight']:.0f} |")
        return f

    def scale_round(self, emu, n, k, tokens, sweep, out):
        """Round k of (c): n streams in one sm-stream; its figures."""
        self.say(f"stream: {n} streams, round {k + 1}")
        p = self.sm_stream(n, sweep, emu.url, [
            "--endpoint", "scale", "--max-tokens", str(tokens), "--batches", "1", "--out",
            os.path.join(out, f"n{k}-{{label}}.json")], rt=True)
        rss = 0

        def begun():
            nonlocal rss
            rss = self.hwm_kib(p.pid, rss)
            return emu.stats()["endpoints"]["scale"]["requests"] >= n * (k + 1)

        try:
            self.wait_for(p, begun, f"stream scale {n}", timeout=300)
            c0, (u0, s0), w0 = self.proc_cpu_ns(p.pid), self.proc_cpu(p.pid), time.time()
            status, use, peak = self.watch(p)
        except BaseException:
            self.stop(p)
            raise
        err = p.stderr.read()
        if status:
            self.fail(f"stream scale {n}: exit {status}: {err[-300:]}")
        recs = read_records(os.path.join(out, f"n{k}-scale.json"))
        f = {"rss": max(rss, peak), "recorded": len(recs),
             "failed": sum(not r["ok"] for r in recs) + n - len(recs),
             "cpu": use.ru_utime + use.ru_stime - c0 / 1e9,
             "user": use.ru_utime - u0, "sys": use.ru_stime - s0, "got": 0, "after": 0}
        for r in recs:  # each chunk's arrival on the wall clock: those after w0 count
            t = r["wall_start_us"] + ((r["t_first_token_us"] or r["t_start_us"]) - r["t_start_us"])
            times = [t] if r["t_first_token_us"] is not None else []
            for g in r["chunk_gaps_us"]:
                t += g
                times.append(t)
            f["got"] += len(times)
            f["after"] += sum(1 for x in times if x >= w0 * 1e6)
        if f["after"] == 0:
            self.fail(f"stream scale {n}: no token arrived after every stream had begun")
        f["per_token"] = f["cpu"] / f["after"] * 1e6
        own = re.search(r"for (\d+) tokens .*decoding and recording them ([\d.]+) us a token, "
                        r"making the (\d+) records ([\d.]+) us each", err)
        if not own or int(own.group(1)) != f["got"]:
            self.fail(f"stream scale {n}: sm-stream's cost line is missing or counts other "
                      f"tokens than its records ({f['got']}): {err.strip()[-300:]}")
        f["decode"], f["record"] = float(own.group(2)), float(own.group(4))
        return f

    def scale_floor(self, n, rounds):
        """(c) The kernel's floor under the whole process's figure: recv_floor's CPU per
        message at n streams, alone and with libcurl's poll(2) after each read, in turn
        (host state moves both alike) in each of rounds, on the client CPU at the clients'
        priority, its sender on the server CPU."""
        steps, step_ms = (3, 100) if self.quick else (10, 1000)
        sender = [] if self.server_cpu is None else ["--sender-cpu", str(self.server_cpu)]
        got = {False: [], True: []}
        for k in range(rounds):
            for poll in (False, True):
                self.say(f"stream: the kernel's floor at {n} streams" +
                         (", a poll after each read" if poll else "") + f", round {k + 1}")
                r = subprocess.run(self.pinned(self.realtime() + [self.bin["recv_floor"]] + (
                    ["--poll"] if poll else []) + sender + [
                    str(n), str(steps), str(step_ms), str(FLOOR_BYTES)]),
                    capture_output=True, text=True, env=self.env)
                m = re.search(r"([\d.]+) us a message \(user ([\d.]+), system ([\d.]+)\)",
                              r.stdout)
                if r.returncode or not m:
                    self.fail(f"recv_floor: exit {r.returncode}: {(r.stdout + r.stderr)[-300:]}")
                got[poll].append({"per_token": float(m.group(1)), "user": float(m.group(2)),
                                  "sys": float(m.group(3))})
        return [{"rounds": got[poll], "steps": steps, "step_ms": step_ms,
                 "q": min(got[poll], key=lambda f: f["per_token"])} for poll in (False, True)]

    def stream_scale(self):
        """(c) Memory per stream and CPU per received token at n streams, in rounds: the
        quietest round's decoding is the figure (the host's other jobs take the CPU's
        caches, and its hypervisor the CPU, at times of their choosing)."""
        n = 100 if self.quick else 10000
        tokens = 10 if self.quick else 20
        rounds = 1 if self.quick else 3
        overhead, step_ms = (0.3, 100) if self.quick else (2.0, 1000)
        self.open_files(n + 256)
        emu = self.start_emulator([
            "--busy-poll", "--max-connections", str(n + 100),
            "--endpoint", "scale=instant", "--set", f"scale.overhead_s={overhead}", "--set",
            f"scale.step_ms=1:{step_ms}", "--set", f"scale.max_seqs={n + 24}",
            "--endpoint", "one=instant", "--set", "one.overhead_s=0.1", "--set",
            "one.step_ms=1:50"])
        out = os.path.join(self.tmp, "stream-scale")
        sweep = os.path.join(ROOT, "scenarios", "sweep.lua")
        try:
            self.say("stream: 1 stream")
            one = self.sm_stream(1, sweep, emu.url, [
                "--endpoint", "one", "--max-tokens", str(tokens), "--batches", "1", "--out",
                os.path.join(out, "one-{label}.json")])
            status, _, rss1 = self.watch(one)
            if status:
                self.fail(f"stream scale: 1 stream: exit {status}: {one.stderr.read()[-300:]}")
            figs = [self.scale_round(emu, n, k, tokens, sweep, out) for k in range(rounds)]
            requests = emu.stats()["endpoints"]["scale"]["requests"]
        finally:
            emu.stop()
        floor, polled = self.scale_floor(n, rounds)
        for f in figs:
            f["per_stream"] = (f["rss"] - rss1) / n
        self.lines += [
            "", f"### (c) Scale: {n:,} streams in one process", "",
            f"sm-stream -t1 -c{n} scenarios/sweep.lua --batches 1 --max-tokens {tokens} on CPU "
            f"{self.client_cpu}" + (" at real-time priority (it sleeps in epoll between "
                                    "events)" if self.realtime() else "") +
            f", sm-emulator --busy-poll on CPU {self.server_cpu} (overhead "
            f"{overhead:g} s, a step of {step_ms} ms whatever the batch: {n:,} tokens every "
            f"{step_ms / 1000:g} s, which the emulator keeps up with), {rounds} round(s) one "
            "after the other. Memory: the peak "
            "resident set (VmHWM of /proc/PID/status, read every 20 ms to the exit) less "
            f"that of a one-stream run of the same scenario and length, over {n:,}. CPU: the "
            "process's CPU (schedstat, then getrusage at its exit: user + system) from the "
            "moment the emulator had received "
            "every request to the end (the result file written), over the tokens that arrived "
            "in that time (the chunks' arrival times from the records). Decoding and "
            "recording: sm-stream's own account, printed at its exit (the time its thread "
            "spent in libcurl's write callback, which decodes the event stream, its SSE and "
            "each chunk's JSON and records the chunk's time and tokens, over every token of "
            "the run) and the time it took to make each request's record. The results' rows "
            "take the round whose decoding was quietest. Open files: the script raises its "
            "limit for both processes.",
            "", "| round | peak RSS | 1-stream RSS | per stream | CPU in the window | user | "
            "system | tokens in the window | CPU per token | decoding and recording per token "
            "| making a record | failed |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for k, f in enumerate(figs, 1):
            self.lines.append(
                f"| {k} | {f['rss'] / 1024:.1f} MiB | {rss1 / 1024:.1f} MiB | "
                f"{f['per_stream']:.1f} KiB | {f['cpu']:.2f} s | {f['user']:.2f} s | "
                f"{f['sys']:.2f} s | {f['after']:,} of {f['got']:,} | {f['per_token']:.2f} us | "
                f"{f['decode']:.3f} us | {f['record']:.1f} us | {f['failed']} |")
        self.lines += [
            "", f"The kernel's floor under the whole process's figure: recv_floor "
            f"(tests/bench/recv_floor.c) on CPU {self.client_cpu} at the same priority, "
            f"{n:,} TCP connections on the loopback, its forked sender on CPU "
            f"{self.server_cpu} writing one {FLOOR_BYTES}-byte message (a token's event-stream "
            "message, part (d), in its HTTP chunk) to each of them every "
            f"{floor['step_ms'] / 1000:g} s, {floor['steps']} times, as the emulator sends a "
            "step's tokens; the reader takes them with epoll (level-triggered) and one recv "
            "of up to 16 KiB (libcurl's read size) a ready socket, and nothing else: its CPU "
            "(getrusage, user + system) from the last connection to the last byte, over the "
            "messages. And the same with a poll(2) of the socket after each recv, as libcurl "
            f"7.88 does, each round the two in turn; {rounds} round(s), after sm-stream's.",
            "",
            "| round | bare reader | user | system | with a poll after each read | user | system |",
            "|---|---|---|---|---|---|---|"]
        for k, (a, b) in enumerate(zip(floor["rounds"], polled["rounds"]), 1):
            self.lines.append(
                f"| {k} | {a['per_token']:.2f} us | {a['user']:.2f} us | {a['sys']:.2f} us | "
                f"{b['per_token']:.2f} us | {b['user']:.2f} us | {b['sys']:.2f} us |")
        q = min(figs, key=lambda f: f["decode"])
        self.lines += [
            "", f"In sm-stream's round with the quietest decoding, its system time was "
            f"{q['sys'] / q['after'] * 1e6:.2f} us a token against the bare reader's "
            f"{floor['q']['sys']:.2f} us, and its user time {q['user'] / q['after'] * 1e6:.2f} "
            f"us against {floor['q']['user']:.2f} us: of that user time, {q['decode']:.2f} us "
            "is its own decoding and recording, the rest libcurl's pass, libevent's loop and "
            "the C library under them."]
        worst = max(figs, key=lambda f: f["per_stream"])
        all_decode = ", ".join(f"{f['decode']:.2f}" for f in figs)
        self.row("stream", "stream_scale_memory", f"memory per stream at {n:,}",
                 "sm-stream's peak resident memory less a one-stream run's, per stream (the "
                 "largest round)", worst["per_stream"], "KiB", "<= 64 KiB",
                 worst["per_stream"] <= 64,
                 f"peak RSS {worst['rss'] / 1024:.1f} MiB, 1 stream {rss1 / 1024:.1f} MiB")
        self.row("stream", "stream_scale_cpu",
                 f"CPU per received token at {n:,} streams: decoding and recording",
                 "sm-stream's own account of its thread's time in decoding the event stream, "
                 "SSE and chunk JSON and recording each chunk, over the tokens received, "
                 "emulator busy-polling on the other core; the quietest round", q["decode"],
                 "us", "<= 1 us", q["decode"] <= 1,
                 f"rounds: {all_decode} us; {q['got']:,} tokens; making a record "
                 f"{q['record']:.1f} us a request")
        self.row("stream", "stream_scale_cpu_process",
                 f"CPU per received token at {n:,} streams: the whole process",
                 "sm-stream's CPU (user + system) over the tokens received, once every stream "
                 "has begun: libcurl, the kernel's reads and libevent's loop included; the "
                 "same round", q["per_token"], "us", "<= 3 us", q["per_token"] <= 3,
                 detail=f"{q['cpu']:.2f} s (user {q['user']:.2f}, system {q['sys']:.2f}) "
                 f"for {q['after']:,} tokens; {q['per_token'] / floor['q']['per_token']:.1f} "
                 "times the kernel's floor")
        self.row("stream", "stream_scale_floor",
                 f"CPU per received token at {n:,} streams: the kernel's floor",
                 "a bare reader's CPU (recv_floor: epoll and one recv a ready socket, nothing "
                 "else) on the same number of loopback TCP connections, a token-sized message "
                 "to each every step: what any client that reads each token alone from its "
                 "connection pays on this host; the quietest round",
                 floor["q"]["per_token"], "us", detail="rounds: " + ", ".join(
                     f"{f['per_token']:.2f}" for f in floor["rounds"]) + " us")
        self.row("stream", "stream_scale_floor_poll",
                 f"CPU per received token at {n:,} streams: the floor and libcurl's poll",
                 "the same reader with a poll(2) of the socket after each recv, as libcurl 7.88 "
                 "asks after every read whether more is pending; the quietest round",
                 polled["q"]["per_token"], "us", detail="rounds: " + ", ".join(
                     f"{f['per_token']:.2f}" for f in polled["rounds"]) + " us")
        failed = sum(f["failed"] for f in figs)
        self.row("stream", "stream_scale_failed", f"failed streams at {n:,}",
                 f"streams without a complete, successful record, in all {rounds} round(s) (of "
                 f"the emulator's {requests:,} requests)", failed, "requests", "0", failed == 0,
                 f"{sum(f['recorded'] for f in figs):,} recorded")

    def stream_codecs(self):
        """(d) botocore's event-stream parser and the C codec on one captured reply."""
        tokens = 100 if self.quick else 1000
        seconds = "0.3" if self.quick else "2"
        loops = "100000" if self.quick else "1000000"
        body = os.path.join(self.tmp, "stream-body.json")
        reply = os.path.join(self.tmp, "stream-reply.bin")
        with open(body, "w") as f:
            json.dump({"messages": [{"role": "user", "content": "Write a long, detailed story "
                                     "about a lighthouse keeper on a remote island."}],
                       "max_tokens": tokens, "temperature": 0, "ignore_eos": True,
                       "stream": True, "stream_options": {"include_usage": True}}, f)
        emu = self.start_emulator(["--endpoint", "bench=instant", "--set",
                                   "bench.max_model_len=100000"])
        try:
            subprocess.run([
                "curl", "-s", "--fail", "--aws-sigv4", "aws:amz:us-east-1:sagemaker", "--user",
                f"{self.env['AWS_ACCESS_KEY_ID']}:{self.env['AWS_SECRET_ACCESS_KEY']}", "-H",
                "Content-Type: application/json", "-H",
                "Accept: application/vnd.amazon.eventstream", "--data-binary", "@" + body, "-o",
                reply, f"{emu.url}/endpoints/bench/invocations-response-stream"], check=True,
                env=self.env)
        finally:
            emu.stop()
        self.say("stream: codecs")
        c = subprocess.run(self.pinned([self.bin["stream_bench"], "--file", reply, loops]),
                           capture_output=True, text=True)
        streams = "100" if self.quick else "10000"
        cold = subprocess.run(self.pinned([self.bin["stream_bench"], "--file", reply, loops,
                                           streams]), capture_output=True, text=True)
        py = subprocess.run(self.pinned([self.python, os.path.join(HERE, "stream_vs_botocore.py"),
                                         reply, seconds]), capture_output=True, text=True)
        syn = subprocess.run(self.pinned([self.bin["stream_bench"], loops]), capture_output=True,
                             text=True)
        if c.returncode or py.returncode or syn.returncode or cold.returncode:
            self.fail("stream_bench / stream_vs_botocore.py: " +
                      (c.stderr + py.stderr + syn.stderr + cold.stderr).strip()[-300:])
        m = re.search(r"(\d+) tokens a reading, 1 streams, \d+ tokens, ([\d.]+) ns/token",
                      c.stdout)
        k = re.search(r"tokens a reading, (\d+) streams, \d+ tokens, ([\d.]+) ns/token",
                      cold.stdout)
        if not k:
            self.fail("stream_bench --file with streams: " + cold.stdout.strip()[-300:])
        cold_us = float(k.group(2)) / 1e3
        got = dict(line.split() for line in py.stdout.splitlines())
        if not m or int(got["tokens_per_reading"]) != int(m.group(1)):
            self.fail(f"stream codecs: the C codec and botocore read different token counts: "
                      f"{c.stdout.strip()} / {py.stdout.strip()}")
        c_us, py_us = float(m.group(2)) / 1e3, float(got["botocore_us_per_token"])
        rows = {}
        for line in syn.stdout.splitlines():
            s = re.match(r"(.+?)\s+(\d+)\s+([\d.]+)$", line)
            if s:
                rows[s.group(1).strip()] = float(s.group(3)) / 1e3
        synthetic = rows.get("eventstream vLLM chat, one message per slice")
        evs_only = rows.get("eventstream layer alone (vLLM chat messages)")
        if synthetic is None or evs_only is None:
            self.fail("stream_bench: its table changed: " + syn.stdout.strip()[-300:])
        size = os.path.getsize(reply)
        self.lines += [
            "", "### (d) Decoding cost per token, for the record", "",
            f"One streamed reply captured from sm-emulator (instant profile, vLLM chat, "
            f"{m.group(1)} tokens, {size:,} bytes of event stream: one PayloadPart per token, as "
            "SageMaker relays the container's flushes), decoded one message at a time, over and "
            "over, on one core: by the engine's codec (common/sstream: both CRCs, the SSE "
            "events, the chunk's JSON; `stream_bench --file`), and in Python by botocore's "
            "`EventStreamBuffer` (what boto3's invoke_endpoint_with_response_stream reads with; "
            "CRCs checked) with the SSE payloads joined, cut into events and parsed with "
            "`json.loads` for the delta's content (tests/bench/stream_vs_botocore.py). "
            "stream_bench's own synthetic rows beside them.", "",
            "| decoder | CPU per token |", "|---|---|",
            f"| C codec, the captured reply | {c_us:.3f} us |",
            f"| C codec, the captured reply to {int(k.group(1)):,} streams in turn (each its own "
            f"decoder) | {cold_us:.3f} us |",
            f"| botocore EventStreamBuffer + SSE + json.loads, the captured reply | "
            f"{py_us:.2f} us |",
            f"| C codec, stream_bench's synthetic vLLM chat body, one message per slice | "
            f"{synthetic:.3f} us |",
            f"| C, the event-stream layer alone (stream_bench) | {evs_only:.3f} us |"]
        self.row("stream", "stream_codec_c", "C codec, CPU per token",
                 f"the engine's decoder (event stream, SSE, chunk JSON) on a captured "
                 f"{m.group(1)}-token reply, one message at a time", c_us, "us")
        self.row("stream", "stream_codec_streams", "C codec, CPU per token, many streams",
                 f"the same reply fed to {int(k.group(1)):,} decoders in turn, one message "
                 "each, as the engine's streams are", cold_us, "us")
        self.row("stream", "stream_codec_botocore", "botocore, CPU per token",
                 "botocore.eventstream.EventStreamBuffer and the vLLM SSE payloads parsed in "
                 "Python (json.loads), the same reply", py_us, "us")
        self.row("stream", "stream_codec_ratio", "botocore / C codec",
                 "CPU per token of the Python decoder over the C one", py_us / c_us, "x")
        self.row("stream", "stream_codec_synthetic", "C codec, stream_bench body",
                 "stream_bench's synthetic vLLM chat body, one message per slice", synthetic,
                 "us", detail=f"event-stream layer alone {evs_only:.3f} us")

    # ------------------------------------------------------------ 8. open loop

    def part_openloop(self):
        rate = 1000
        seconds = 1 if self.quick else 10
        conns = 16
        rt = bool(self.realtime())
        emu = self.rt_emulator(["--endpoint", "ol=instant"])
        out = os.path.join(self.tmp, "openloop")
        rate_lua = os.path.join(ROOT, "scenarios", "rate.lua")
        args = ["--endpoint", "ol", "--rates", str(rate), "--duration", str(seconds),
                "--arrivals", "constant", "--max-tokens", "16"]
        runs = [(client, prio) for prio in (["rt", "plain"] if rt else ["plain"])
                for client in ("stream", "wrk")]
        steals = {}
        try:
            for client, prio in runs:
                self.say(f"openloop: {client}, {prio}")
                path = os.path.join(out, f"{client}-{prio}-{{label}}.json")
                if client == "stream":
                    p = self.sm_stream(conns, rate_lua, emu.url, args + ["--out", path],
                                       rt=prio == "rt")
                else:
                    cmd = ["wrk", f"-t{conns}", f"-c{conns}", "-d1h", "--timeout", "60s", "-s",
                           rate_lua, emu.url, "--"] + args + [
                        "--region", "us-east-1", "--progress", "0", "--out", path]
                    if prio == "rt":
                        cmd = self.realtime() + cmd
                    p = subprocess.Popen(self.pinned(cmd), env=self.wrk_env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         text=True)
                with StealWatch() as steal:
                    self.finished(p, f"openloop {client} {prio}")
                steals[(client, prio)] = steal
        finally:
            emu.stop()
        lines = [
            f"scenarios/rate.lua --rates {rate} --duration {seconds} --arrivals constant "
            f"--max-tokens 16 against sm-emulator's instant profile (on CPU "
            f"{self.server_cpu}; " + ("real-time priority" if rt else "normal priority") +
            f"), the client on CPU {self.client_cpu}: sm-stream -t1 -c{conns} "
            f"(streamed replies; libevent timers at each arrival) and wrk -t{conns} -c{conns} "
            "(each thread blocks in request() until its arrival's time; one connection per "
            "thread, so a thread waiting for a reply sends nothing). Lateness = t_start_us - "
            "t_intended_us of every record; achieved rate = (requests - 1) / (last start - "
            "first start). " + ("Each client runs twice: at real-time priority (SCHED_FIFO: the "
                                "shared host's other jobs cannot hold it off its CPU) and "
                                "at normal priority (sm-stream's target holds for both on a "
                                "quiet host)." if rt else
                                "Real-time priority was not available: normal priority only.")
            + " Host steal: the share of the host's CPU its hypervisor gave to other guests "
            "during the run (/proc/stat every 100 ms, tests/bench/hoststeal.py; no priority "
            "shields a process from it); without steal: the requests that left in a "
            "wall-clock second in which it took none.",
            "", "| client | priority | requests | within 1 ms | p50 | p99 | max | achieved "
            "rate | host steal | within 1 ms, seconds without steal |",
            "|---|---|---|---|---|---|---|---|---|---|"]
        figures = {}
        for client, prio in runs:
            recs = read_records(os.path.join(out, f"{client}-{prio}-ol.json"))
            if abs(len(recs) - rate * seconds) > 1 or any(not r["ok"] for r in recs):
                self.fail(f"openloop {client} {prio}: {len(recs)} records, "
                          f"{sum(not r['ok'] for r in recs)} failed; {rate * seconds} planned")
            late = [r["t_start_us"] - r["t_intended_us"] for r in recs]
            starts = sorted(r["t_start_us"] for r in recs)
            got = (len(starts) - 1) / (starts[-1] - starts[0]) * 1e6
            steal = steals[(client, prio)]
            split = split_late([(r["wall_start_us"] / 1e6, r["t_start_us"] - r["t_intended_us"]
                                 > 1000) for r in recs], steal.clean_seconds())
            n_clean, late_clean = split["clean"]
            f = {"within": 100 * sum(x <= 1000 for x in late) / len(late),
                 "p50": quantile(late, 0.5), "p99": quantile(late, 0.99), "max": max(late),
                 "rate": got, "n": len(recs), "steal": steal.share(), "n_clean": n_clean,
                 "within_clean": 100 * (1 - late_clean / n_clean) if n_clean else None}
            figures[(client, prio)] = f
            lines.append(f"| {'sm-stream' if client == 'stream' else 'wrk'} | "
                         f"{'real-time' if prio == 'rt' else 'normal'} | {f['n']:,} | "
                         f"{f['within']:.2f}% | {f['p50']:,} us | {f['p99']:,} us | "
                         f"{f['max']:,} us | {f['rate']:.1f}/s | "
                         + ("n/a" if f["steal"] is None else f"{100 * f['steal']:.1f}%") + " | "
                         + ("n/a" if f["within_clean"] is None else
                            f"{f['within_clean']:.2f}% of {n_clean:,}") + " |")
        self.details.append(("Open-loop schedule adherence", "\n".join(lines)))
        main = "rt" if rt else "plain"
        why = {"stream": "", "wrk": ". No target: wrk's threads block in request() until the "
               "arrival time and hold one connection each, so a request is late when every "
               "thread is still waiting for a reply or its thread wakes late"}
        for client, name in (("stream", "sm-stream"), ("wrk", "wrk")):
            f = figures[(client, main)]
            prio = "real-time priority" if main == "rt" else "normal priority"
            self.row("openloop", f"openloop_{client}_within", f"{name}: sent within 1 ms",
                     f"share of requests sent at most 1 ms after their intended time, "
                     f"{rate:,}/s constant arrivals, {prio}" + why[client], f["within"],
                     "% of requests", ">= 99%" if client == "stream" else "",
                     f["within"] >= 99 if client == "stream" else None,
                     f"n={f['n']:,}, max {f['max']:,} us")
            self.row("openloop", f"openloop_{client}_p50", f"{name}: lateness p50",
                     f"median of t_start_us - t_intended_us, {prio}", f["p50"], "us")
            self.row("openloop", f"openloop_{client}_p99", f"{name}: lateness p99",
                     f"99th percentile of t_start_us - t_intended_us, {prio}", f["p99"], "us")
            err = (f["rate"] / rate - 1) * 100
            self.row("openloop", f"openloop_{client}_rate", f"{name}: achieved rate",
                     f"error of the achieved arrival rate against the {rate:,}/s asked", err,
                     "%", "within 2%", abs(err) <= 2, f"{f['rate']:.1f} requests/s")
            g = figures[(client, "plain")]
            if rt:
                self.row("openloop", f"openloop_{client}_within_plain",
                         f"{name}: sent within 1 ms, normal priority",
                         "the same at normal priority, sharing its CPU with the host's other "
                         "jobs" + (" (its target holds on a quiet host)" if client == "stream"
                                   else ""), g["within"],
                         "% of requests", ">= 99%" if client == "stream" else "",
                         g["within"] >= 99 if client == "stream" else None,
                         detail=f"p50 {g['p50']:,} us, p99 {g['p99']:,} us, max {g['max']:,} us"
                         + ("" if g["steal"] is None else
                            f", host steal {100 * g['steal']:.1f}%"))
            self.row("openloop", f"openloop_{client}_within_plain_clean",
                     f"{name}: sent within 1 ms, normal priority, seconds without steal",
                     "the same at normal priority, only the requests that left in a second in "
                     "which the host's hypervisor took none of its CPU (hoststeal.py)",
                     g["within_clean"], "% of requests",
                     ">= 99%" if client == "stream" else "",
                     (g["within_clean"] is not None and g["within_clean"] >= 99)
                     if client == "stream" else None, f"n={g['n_clean']:,} of {g['n']:,}",
                     none="n/a: no second without steal")

    # ------------------------------------------------------------ notes

    @staticmethod
    def stream_notes(v):
        """The notes' bullets of the stream and openloop parts (v: the rows' values)."""
        def val(key, fmt):
            return fmt % v[key] if key in v else "n/a"

        def floor_text():
            keys = ("stream_scale_floor", "stream_scale_floor_poll", "stream_scale_cpu_process",
                    "stream_scale_cpu")
            if any(v.get(k) is None for k in keys):
                return "The kernel's floor was not measured."
            floor, polled, whole, own = (v[k] for k in keys)
            return (
                f"The kernel's floor says why: a bare reader of as many connections "
                f"(recv_floor: epoll and one recv a ready socket, nothing else) takes "
                f"{floor:.2f} us a token here, nearly all of it system time (the table above): "
                "a token alone on its connection costs a recv and TCP's receive work, whatever "
                f"reads it; with libcurl's poll after each read, {polled:.2f} us. " +
                ("The 3 us target is below that floor: no client that reads each token from its "
                 "own connection meets it on this host. " if floor >= 3 else
                 f"The 3 us target leaves {3 - floor:.2f} us above that floor for everything "
                 f"else, the decoding and recording alone {own:.2f} us. ") +
                f"sm-stream's {whole:.1f} us is {whole / floor:.1f} times the floor: a reader "
                "outside libcurl's per-transfer pass (no poll, no pass) still pays the floor and "
                f"the decoding, so it could take at most {max(0.0, whole - floor - own):.1f} us "
                "a token off it.")

        return [
            "- **Streaming.** (a) The client's TTFT reads high by its own round trip (" +
            val("stream_ttft_stream-set", "%+.2f ms") + ", " +
            val("stream_ttft_stream-file", "%+.2f ms") + ": the request crossing the loopback "
            "and being read and checked before the emulator's clock starts, and the first "
            "token's way back); the median ITL is the model's step to a few hundredths of a "
            "percent (steps without jitter, each chunk stamped when its read returns). A "
            "thinking model (16 reasoning tokens, then the answer), errors against the same "
            "model: TTFT " + val("stream_think_stream_ttft", "%+.2f ms") + " on the "
            "streaming route and " + val("stream_think_openai_ttft", "%+.2f ms") + " on the "
            "OpenAI-compatible one, TTFOT " + val("stream_think_stream_ttfot", "%+.2f ms") +
            " and " + val("stream_think_openai_ttfot", "%+.2f ms") + " (the model: the first "
            "answer token 16 steps after the first reasoning token), TPOT " +
            val("stream_think_stream_tpot", "%+.3f%%") + " and " +
            val("stream_think_openai_tpot", "%+.3f%%") + " of the step, ITL " +
            val("stream_think_stream_itl", "%+.3f%%") + " and " +
            val("stream_think_openai_itl", "%+.3f%%") + " (the answer-only figures in their rows). "
            "(b) With the streams spread over a fleet of variants (as a remote endpoint's "
            "instances and their steps spread them) the client's share is p99 " +
            val("stream_share_fleet", "%.2f ms") + " in the quietest round (target 1 ms), and " +
            val("stream_share_fleet_busy", "%.2f ms") + " with both busy-polling. The rounds "
            "spread widely (the rows show each): on this shared virtual machine a sleeping CPU "
            "wakes late (a two-process ping over the loopback, by hand: 43 us at the median "
            "from a write's return to the reader, 7 us when the reader busy-polls), and a "
            "first token's path runs on cold caches. Measured by hand on single streams, "
            "nothing else in flight: from the emulator's return from its write to sm-stream's "
            "socket event 60 us (both busy-polling) to 150 us (both sleeping); libcurl's recv "
            "26 to 30 us (it sends the ACK, whose loopback processing runs inside it); "
            "libcurl's chunked decoding up to sm-stream's write callback 33 us; decoding the "
            "first chunk 20 us. Under load the receive side adds the wait behind the other "
            "tokens of the step that reached the client first (a variant's step sends its 20 "
            "or so tokens at once). Three changes took the quietest sleeping round from 1.05 "
            "ms to this: the emulator writes a token at once when its connection has nothing "
            "queued and stamps first_token when the write returned (it stamped it when it "
            "queued the bytes, and wrote them on its loop's next turn, after the rest of the "
            "step's); it waits out the last 300 us before a step ends through its loop, "
            "reading requests meanwhile (it spun inside the timer's callback, and a request "
            "that came then waited: the send side's p90 went from 0.29 to 0.19 ms); and "
            "sm-stream reads the sockets of streams still waiting for their first token before "
            "those of streams under way (libevent priorities; A/B against the same emulator, "
            "3 rounds each: receive side p50 0.24 to 0.30 ms against 0.29 to 0.35 ms, share "
            "p99 1.00 to 1.41 ms against 1.23 to 1.47 ms; that build also put the timers that "
            "send requests first, since dropped: they move a request's lateness, which the "
            "share leaves out, for t_start_us is stamped as libcurl writes). In "
            "batches of 1,000 on one variant it is not the "
            "client's alone, and two causes add up (measured on the tags' request-log lines; "
            "sm-stream stamps t_start_us when libcurl writes the request, "
            "CURLOPT_PREREQFUNCTION, not when it is handed over): the 1,000 requests "
            "reach the emulator about 28 us apart (both processes' per-request work; the "
            "emulator stamps received when it handles each); and every decode step's 1,000 "
            "tokens leave in one burst, so the last stream of a burst reads its token about "
            "10 ms after the emulator wrote it. (c) About " +
            val("stream_scale_memory", "%.0f KiB") + " a stream. Decoding and recording take " +
            val("stream_scale_cpu", "%.2f us") + " a token (sm-stream's own account; target "
            "1 us; stream_bench's codec alone, 10,000 streams in turn: " +
            val("stream_codec_streams", "%.2f us") + "). Three changes brought it there from "
            "1.7 us: the event stream's CRC32 by libdeflate (PCLMULQDQ: 37 ns for a token's "
            "349-byte message, where zlib's crc32 took 210 ns), no write into a parser's empty "
            "buffers (resetting an empty buffer wrote its NUL again, a cache miss per buffer "
            "per token), and the slot's state asked into the cache when its socket is ready, "
            "while libcurl reads it (with 10,000 streams a slot is never in the cache when its "
            "token comes). The whole process takes " +
            val("stream_scale_cpu_process", "%.1f us") + " a token: at slow token rates every "
            "token arrives alone on its own connection, so each costs an epoll event, a "
            "recvfrom and a poll (libcurl looks at the socket again after each read: strace "
            "counts one of each per token) and libcurl's per-transfer work. perf (by hand, "
            "once: 10,000 streams, 10 kHz) puts 44% in the kernel, 29% in libcurl, 10% in "
            "libc, 9% in sm-stream and 5% in libevent. Each libcurl multi handle holds at most "
            "64 streams: libcurl 7.88's socket hash has a fixed 911 buckets, and with 10,000 "
            "sockets on one handle its chain walks took 18% of the samples (sm-stream's CPU "
            "for a whole 10,000-stream run: 3.16 s on one handle, 2.21 s on handles of 256), "
            "and its splay tree of timeouts (a node per transfer) took 7% at 1,000 streams "
            "on one handle (a fleet run: 2.17 s, 1.90 s on handles of 64). "
            "1 us a token holds for the decoding and recording the issue names, not for a "
            "process that reads one socket per token, and neither does the whole process's "
            "target, 3 us. " + floor_text() + " (d) botocore's decoder and "
            "Python's json take " +
            val("stream_codec_botocore", "%.1f us") + " a token, " +
            val("stream_codec_ratio", "%.0f") + " times the C codec's " +
            val("stream_codec_c", "%.2f us") + ".",
            "- **Open loop.** At 1,000 requests/s both clients send on time when they have "
            "their CPU (real-time priority: sm-stream " +
            val("openloop_stream_within", "%.2f%%") + " within 1 ms, wrk " +
            val("openloop_wrk_within", "%.2f%%") + "), and at normal priority on a quiet host "
            "(sm-stream " + val("openloop_stream_within_plain", "%.2f%%") + ", wrk " +
            val("openloop_wrk_within_plain", "%.2f%%") + "); the host's other jobs delay "
            "wake-ups at normal priority, and its hypervisor's steal holds off both priorities "
            "alike: in the seconds it took none, the sends stay within 1 ms (the table's last "
            "column; issue 29 traced a run's late sends to it). wrk keeps up here because an "
            "instant reply frees its thread within a fraction of a millisecond and 16 threads "
            "share 1 ms gaps. Each wrk thread blocks in request() until its arrival's time and "
            "has one connection, so it sends nothing while it waits for a reply: once replies "
            "take longer than threads x gap (16 ms), every thread is waiting and later "
            "arrivals leave late, whereas sm-stream's slots are "
            "bounded only by -c. The achieved rates are the asked one (the schedule is drawn "
            "before the run and each request leaves at its time).",
        ]
