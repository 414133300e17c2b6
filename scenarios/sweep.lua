-- sweep.lua: throughput at one concurrency level, wrk's -t N -c N. Batch mode
-- (the reference method): all N requests of a batch start together and the
-- next batch starts when the whole batch is done; throughput is the batch's
-- tokens over its wall time. Steady mode: every connection sends again at
-- once, for --duration seconds per side.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"

run.scenario({
  name = "sweep",
  summary = "concurrency sweep: batches of N simultaneous requests (or steady load) at -t N -c N",
  usage = "wrk -t16 -c16 -d1h --timeout 60s -s scenarios/sweep.lua URL -- --endpoint NAME "
    .. "[options]",
  options = {
    { name = "--mode", arg = "batch|steady", type = "string", default = "batch",
      help = "batch: N requests start together, batch after batch; steady: back to back" },
    { name = "--batches", arg = "N", type = "int", min = 1,
      help = "batch mode: batches per side (default 8, the fewest that give the ratio's "
        .. "interval); steady mode: rounds of --duration per side (default 1)" },
    { name = "--duration", arg = "SECONDS", type = "number",
      help = "steady mode: seconds of load per round (required)" },
    run.max_tokens_option(256, "tokens per reply"),
    run.prompt_option(run.STORY_PROMPT),
    run.temperature_option,
    run.ignore_eos_option,
  },
  validate = function(o)
    if o.mode ~= "batch" and o.mode ~= "steady" then
      return "--mode must be batch or steady, got '" .. o.mode .. "'"
    end
    if (o.mode == "steady") ~= (o.duration ~= nil) then
      return "--duration goes with --mode steady, and --mode steady needs --duration"
    end
    o.batches = o.batches or (o.mode == "batch" and 8 or 1)
  end,
  settings = function(o, ctx)
    return { { "mode", o.mode }, { "concurrency", ctx.threads },
      { "batches", o.mode == "batch" and o.batches or nil },
      { "duration_s", o.duration }, { "rounds", o.batches }, { "max_tokens", o.max_tokens },
      { "prompt", o.prompt }, { "temperature", o.temperature }, { "ignore_eos", o.ignore_eos } }
  end,
  plan = function(o, ctx)
    local rounds = {}
    for b = 0, o.batches - 1 do
      for _, side in ipairs(run.order(ctx.sides, b)) do
        local item = { side = side, batch = b, prompt = o.prompt, max_tokens = o.max_tokens,
          temperature = o.temperature, ignore_eos = o.ignore_eos }
        if o.mode == "steady" then
          rounds[#rounds + 1] = { template = item, duration_s = o.duration }
        else
          local items = {}
          for i = 1, ctx.threads do items[i] = item end
          rounds[#rounds + 1] = { items = items, per_thread = 1 }
        end
      end
    end
    return rounds
  end,
})
