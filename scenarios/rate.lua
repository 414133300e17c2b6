-- rate.lua: open-loop load. Requests arrive at a rate whether or not the
-- endpoint keeps up: at constant gaps, as a Poisson process, or with gamma gaps
-- (--burstiness), drawn from --arrival-seed before the run. Each rate runs for
-- --duration seconds on each side in turn. Every record carries its intended
-- start, so latency counts from it and a request sent late (every connection
-- busy) shows its lateness; -c is the most requests in flight at once.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local workload = require "sm.workload"

run.scenario({
  name = "rate",
  summary = "open-loop load at one or more request rates (constant, Poisson or gamma arrivals)",
  usage = "wrk -t64 -c64 -d1h --timeout 70s -s scenarios/rate.lua URL -- --endpoint NAME "
    .. "--rates 0.5,1,2 --duration 60 [options]",
  options = workload.open_loop_options({
    { name = "--rates", arg = "R,...", type = "numbers",
      help = "requests per second (real time), one round per rate and side (required)" },
    { name = "--duration", arg = "SECONDS", type = "number",
      help = "seconds of arrivals per rate and side (required)" },
  }),
  validate = function(o)
    if not o.rates or not o.duration then return "--rates and --duration are required" end
    return workload.validate_arrivals(o) or workload.validate(o)
  end,
  settings = function(o, ctx)
    return workload.open_loop_settings(o, ctx, { { "arrivals", o.arrivals },
      { "rates", o.rates }, { "duration_s", o.duration } })
  end,
  seed = function(o) return o.arrival_seed end,
  -- One round per rate and side, both sides with the same arrival times and
  -- prompts; the schedule runs time_scale times faster on a time-scaled server,
  -- so that the records, read in real units, keep the rate. A workload gives
  -- the round the expected number of arrivals' items, which go round.
  plan = function(o, ctx)
    local rounds = {}
    for i, rate in ipairs(o.rates) do
      local function arrivals()
        return { process = o.arrivals, rate = rate * o.time_scale, burstiness = o.burstiness,
          seed = o.arrival_seed + i - 1, duration_s = o.duration / o.time_scale }
      end
      for _, round in ipairs(workload.open_loop_rounds(o, ctx, arrivals, i - 1,
        rate * o.duration, o.workload_seed * 7919 + i)) do
        rounds[#rounds + 1] = round
      end
    end
    return rounds
  end,
  check_of = workload.check_of,
  record = workload.record,
  finish = function(outcome, ctx, threads) workload.finish("rate", ctx.o, threads, ctx.sides) end,
})
