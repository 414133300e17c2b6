"""tests/bench/run's part for runs split over several client processes (issue 24): a
mixin of the Bench class, which gives it row(), say(), fail(), start_emulator(), the
CPUs, the build's programs and a temporary folder.

  shards    a sweep level of 16 connections as 4 shard processes of 4 (sm-stream
            -c16 --shard K/4, one --start-at) against a single 16-connection run,
            rounds taking turns on one emulator: the merged c16's throughput over
            the single run's (sm-compare's load_c16_tokens_per_second of each),
            target within 2%; the shards' start skew, for the record.
"""
import datetime
import json
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class ShardParts:
    def shard_clients(self, url, args, out, n, when):
        """The n shard processes of one run, started together; waits for them."""
        procs = []
        for k in range(n):
            cmd = [self.bin["stream"], "-t1", "-c16", "-d1h", "-s",
                   os.path.join(ROOT, "scenarios", "sweep.lua"), url, "--", "--region",
                   "us-east-1", "--progress", "0", "--shard", f"{k}/{n}", "--start-at", when,
                   "--no-clock-probe", "--out", os.path.join(out, f"sweep.{k}.json")] + args
            procs.append(subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        for k, p in enumerate(procs):
            self.finished(p, f"shards: shard {k}/{n}")

    def part_shards(self):
        rounds = 1 if self.quick else 4
        batches = "3" if self.quick else "8"
        args = ["--endpoint", "ep", "--time-scale", "10", "--batches", batches,
                "--max-tokens", "128"]
        emu = self.start_emulator(["--endpoint", "ep=bf16-l4", "--time-scale", "10"])
        ratios, skews, single_tps, merged_tps = [], [], [], []
        try:
            for r in range(rounds):
                self.say(f"shards: round {r + 1} of {rounds}")
                single = os.path.join(self.tmp, "shards", f"single-{r}")
                merged = os.path.join(self.tmp, "shards", f"merged-{r}")
                p = self.sm_stream(16, os.path.join(ROOT, "scenarios", "sweep.lua"), emu.url,
                                   args + ["--out", os.path.join(single, "sweep.json")])
                self.finished(p, "shards: the single run")
                when = datetime.datetime.fromtimestamp(
                    int(time.time()) + 3, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                self.shard_clients(emu.url, args, merged, 4, when)
                q = subprocess.run([self.bin["compare"], "-f", "json", merged, single],
                                   env=self.env, capture_output=True, text=True)
                if q.returncode:
                    self.fail(f"shards: sm-compare exited {q.returncode}: {q.stderr[-300:]}")
                report = json.loads(q.stdout)
                m, s, ratio = report["rows"]["load_c16_tokens_per_second"]
                merged_tps.append(m)
                single_tps.append(s)
                ratios.append(m / s)
                skews.append(report["shards"][0]["start_skew_s"] * 1e3)
        finally:
            emu.stop()
        ratio = statistics.median(ratios)
        lines = [
            f"scenarios/sweep.lua --batches {batches} --max-tokens 128 against sm-emulator's "
            "bf16-l4 profile at --time-scale 10: a single sm-stream -t1 -c16, then four "
            "sm-stream -t1 -c16 --shard K/4 processes (4 connections each) with one --start-at, "
            f"{rounds} round(s) taking turns on one emulator. Each side's figure is sm-compare's "
            "load_c16_tokens_per_second (the median batch; a merged batch is the four shards' "
            "batch b, its tokens over the wall from its first send to its last end), in real "
            "units.", "",
            "| round | merged 4 x 4 (tokens/s) | single c16 (tokens/s) | ratio | start skew |",
            "|---|---|---|---|---|"]
        for r in range(rounds):
            lines.append(f"| {r + 1} | {merged_tps[r]:.2f} | {single_tps[r]:.2f} | "
                         f"{ratios[r]:.4f} | {skews[r]:.3f} ms |")
        self.details.append(("Shards (one load over several clients)", "\n".join(lines)))
        self.row("shards", "shards_c16_ratio", "merged c16 against single c16",
                 "throughput of a c16 level run as 4 shard processes of 4 connections and "
                 "merged by sm-compare, against a single 16-connection run (median of rounds)",
                 100 * (ratio - 1), "%", "within 2%", abs(ratio - 1) <= 0.02,
                 f"{rounds} round(s), ratios {min(ratios):.4f} to {max(ratios):.4f}",
                 runs=ratios)
        self.row("shards", "shards_start_skew", "shards: start skew",
                 "the latest shard's first request after the earliest's, one host (median of "
                 "rounds)", statistics.median(skews), "ms")
