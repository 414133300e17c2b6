-- decode.lua: the fixed-length decode test of the reference method. Every
-- reply must have exactly the asked number of tokens (ignore_eos); the decode
-- rate is (L2 - L1) / (median wall at L2 - median wall at L1) and the fixed
-- per-call cost what is left at L1 (sm-compare computes both from the files).
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"

run.scenario({
  name = "decode",
  summary = "fixed-length decode: replies of each length, one request at a time",
  usage = "wrk -t1 -c1 -d1h --timeout 60s -s scenarios/decode.lua URL -- --endpoint NAME [options]",
  options = {
    { name = "--lengths", arg = "N,N,...", type = "ints", default = { 16, 512 },
      help = "the reply lengths in tokens (two or more)" },
    { name = "--repeats", arg = "N", type = "int", min = 1, default = 5,
      help = "replies of each length per endpoint" },
    run.prompt_option(run.STORY_PROMPT),
    run.temperature_option,
    run.ignore_eos_option,
  },
  validate = function(o, ctx)
    if ctx.threads ~= 1 then
      return "decode times one request at a time: run it with -t 1 -c 1"
    end
    if #o.lengths < 2 then return "--lengths needs two or more lengths" end
  end,
  settings = function(o)
    return { { "prompt", o.prompt }, { "lengths", o.lengths }, { "repeats", o.repeats },
      { "temperature", o.temperature }, { "ignore_eos", o.ignore_eos } }
  end,
  -- Repetition by repetition, each length on every side, the sides' order
  -- turning each repetition.
  plan = function(o, ctx)
    local items = {}
    for rep = 0, o.repeats - 1 do
      for _, n in ipairs(o.lengths) do
        for _, side in ipairs(run.order(ctx.sides, rep)) do
          items[#items + 1] = { side = side, batch = rep, prompt = o.prompt, max_tokens = n,
            expect_tokens = n, temperature = o.temperature, ignore_eos = o.ignore_eos }
        end
      end
    end
    return { { items = items } }
  end,
})
