-- tagged.lua (a benchmark's helper, tests/bench/run's stream part): sweep.lua's
-- batch mode, or rate.lua's open loop (--rate), with every request told apart.
-- Request k of batch b asks PROMPT followed by " (request b.k)", and its record's
-- question is "b.k": a record matches the line of sm-emulator's --request-log
-- whose prompt ends with the same tag, whatever order the requests were sent,
-- received or answered in.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../../lua/?.lua;" .. package.path
local run = require "sm.run"

run.scenario({
  name = "tagged",
  summary = "batches of N simultaneous requests, each with a prompt and a record of its own",
  usage = "sm-stream -t1 -c1000 -d1h -s tests/bench/tagged.lua URL -- --endpoint NAME "
    .. "[options]",
  options = {
    { name = "--batches", arg = "N", type = "int", min = 1, default = 1,
      help = "batches per side (or, with --rate, rounds)" },
    { name = "--rate", arg = "R", type = "number",
      help = "open loop: Poisson arrivals at R requests per second (real time), --count "
        .. "requests per round, on as many connections as are free (-c: the most in flight)" },
    { name = "--count", arg = "N", type = "int", min = 1, default = 1000,
      help = "with --rate: requests per round" },
    run.max_tokens_option(32, "tokens per reply"),
    run.prompt_option(run.STORY_PROMPT),
    run.temperature_option,
    run.ignore_eos_option,
  },
  settings = function(o, ctx)
    return { { "mode", o.rate and "rate" or "batch" }, { "concurrency", ctx.threads },
      { "batches", o.batches }, { "rate", o.rate }, { "count", o.rate and o.count or nil },
      { "max_tokens", o.max_tokens }, { "prompt", o.prompt }, { "temperature", o.temperature },
      { "ignore_eos", o.ignore_eos } }
  end,
  plan = function(o, ctx)
    local rounds = {}
    for b = 0, o.batches - 1 do
      for _, side in ipairs(run.order(ctx.sides, b)) do
        local items = {}
        for k = 1, o.rate and o.count or ctx.threads do
          local tag = string.format("%d.%d", b, k - 1)
          items[k] = { side = side, batch = b, question = tag,
            prompt = o.prompt .. " (request " .. tag .. ")", max_tokens = o.max_tokens,
            temperature = o.temperature, ignore_eos = o.ignore_eos }
        end
        rounds[#rounds + 1] = o.rate and { items = items, arrivals = { process = "poisson",
          rate = o.rate * o.time_scale, seed = b + 1 } } or { items = items, per_thread = 1 }
      end
    end
    return rounds
  end,
})
