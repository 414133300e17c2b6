-- ramp.lua: open-loop load whose rate changes over the run, to watch an
-- endpoint scale. --ramp takes steps and linear ramps, rate per second @
-- seconds: "10@60,40@120" (10 per second for 60 s, then 40 for 120 s),
-- "10..40@120" (from 10 to 40 per second over 120 s), or a mix; --ramp-file
-- takes a day's curve, a CSV file of seconds,rate points (the rate goes
-- linearly from one point to the next). The arrival times are drawn once,
-- before the run, from the ramp and --arrivals (constant, Poisson or gamma on
-- the ramp's time), and sent by the same open-loop sender as rate.lua's; each
-- record keeps its intended start, so the load at any moment can be rebuilt.
-- The result's settings hold the schedule (its pieces in real seconds). Run
-- under sm-timeline (sm-timeline --endpoint NAME --out FILE -- sm-stream ...),
-- the endpoint's instance counts and scaling activities are sampled meanwhile
-- into FILE, which the settings name ("timeline") for sm-compare.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local sm = require "sm.plugin"
local workload = require "sm.workload"

run.scenario({
  name = "ramp",
  summary = "open-loop load whose rate follows steps, linear ramps or a day's curve",
  usage = "wrk -t64 -c64 -d1h --timeout 70s -s scenarios/ramp.lua URL -- --endpoint NAME "
    .. "--ramp 10@60,40@120 | --ramp-file CURVE.csv [options]",
  options = workload.open_loop_options({
    { name = "--ramp", arg = "RATE@S,FROM..TO@S,...", type = "string",
      help = "the rate's pieces in turn (real time): RATE@SECONDS holds a rate, "
        .. "FROM..TO@SECONDS goes linearly from one rate to another (requests per second)" },
    { name = "--ramp-file", arg = "FILE", type = "string",
      help = "a day's curve instead: a CSV file of seconds,rate points, linear between them" },
  }),
  validate = function(o, ctx)
    if (o.ramp == nil) == (o.ramp_file == nil) then
      return "give one of --ramp PIECES or --ramp-file FILE"
    end
    local pieces, err = sm.ramp(o.ramp, o.ramp_file)
    if not pieces then return (o.ramp and "--ramp: " or "--ramp-file: ") .. err end
    local arrivals, seconds = 0, 0
    for _, p in ipairs(pieces) do
      arrivals, seconds = arrivals + (p.from + p.to) / 2 * p.dur_s, seconds + p.dur_s
    end
    ctx.pieces, ctx.expected, ctx.seconds = pieces, arrivals, seconds
    return workload.validate_arrivals(o) or workload.validate(o)
  end,
  -- sm-compare reads a ramp as one open-loop round (rate.lua's fields) at its
  -- mean offered rate; "schedule" holds the pieces, in real seconds.
  settings = function(o, ctx)
    local schedule = {}
    for k, p in ipairs(ctx.pieces) do schedule[k] = { p.dur_s, p.from, p.to } end
    return workload.open_loop_settings(o, ctx, { { "arrivals", o.arrivals },
      { "rates", { ctx.expected / ctx.seconds } }, { "duration_s", ctx.seconds },
      { "ramp", o.ramp }, { "ramp_file", o.ramp_file and o.ramp_file:match("[^/]*$") or nil },
      { "schedule", schedule }, { "timeline", os.getenv("SM_TIMELINE") } })
  end,
  seed = function(o) return o.arrival_seed end,
  -- One round per side, both with the same arrival times and prompts; the
  -- schedule runs time_scale times faster on a time-scaled server (each piece
  -- time_scale times shorter at time_scale times the rate), as rate.lua's.
  plan = function(o, ctx)
    local scaled = {}
    for k, p in ipairs(ctx.pieces) do
      scaled[k] = { dur_s = p.dur_s / o.time_scale, from = p.from * o.time_scale,
        to = p.to * o.time_scale }
    end
    local function arrivals()
      return { process = o.arrivals, ramp = scaled, burstiness = o.burstiness,
        seed = o.arrival_seed, duration_s = ctx.seconds / o.time_scale }
    end
    return workload.open_loop_rounds(o, ctx, arrivals, 0, ctx.expected,
      o.workload_seed * 7919 + 1)
  end,
  check_of = workload.check_of,
  record = workload.record,
  finish = function(outcome, ctx, threads) workload.finish("ramp", ctx.o, threads, ctx.sides) end,
})
