-- chat.lua: multi-turn conversations. Each conversation sends --turns turns
-- whose bodies carry the history (the earlier prompts and the replies the
-- server returned), --think-time seconds apart, optionally as a SageMaker sticky
-- session (--sessions). Closed loop by default: -c conversations at once, each
-- sender taking the next when its own is done; with --rate the conversations
-- start at open-loop arrivals (their later turns follow their replies).
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local workload = require "sm.workload"

run.scenario({
  name = "chat",
  summary = "multi-turn conversations: history in every turn, think time, sticky sessions",
  usage = "wrk -t8 -c8 -d1h --timeout 70s -s scenarios/chat.lua URL -- --endpoint NAME "
    .. "--conversations 32 --turns 4 --think-time 2 --sessions [options]",
  options = {
    { name = "--conversations", arg = "N", type = "int", min = 1, default = 16,
      help = "conversations per side" },
    { name = "--rate", arg = "R", type = "number",
      help = "open loop: conversations start at R per second (real time); default: closed "
        .. "loop, -c conversations at once" },
    workload.arrival_options[1],
    workload.arrival_options[2],
    workload.arrival_options[3],
    run.max_tokens_option(128, "tokens per reply"),
    run.prompt_option(run.STORY_PROMPT),
    run.temperature_option,
    run.ignore_eos_option,
    unpack(workload.options),
  },
  validate = function(o)
    if o.rate and o.rate <= 0 then return "--rate must be above 0" end
    return workload.validate_arrivals(o) or workload.validate(o)
  end,
  settings = function(o, ctx)
    local s = { { "conversations", o.conversations }, { "rate", o.rate },
      { "arrivals", o.rate and o.arrivals or nil },
      { "burstiness", o.rate and o.arrivals == "gamma" and o.burstiness or nil },
      { "arrival_seed", o.rate and o.arrival_seed },
      { "max_concurrency", ctx.threads }, { "max_tokens", o.max_tokens }, { "prompt", o.prompt },
      { "temperature", o.temperature }, { "ignore_eos", o.ignore_eos } }
    for _, kv in ipairs(workload.settings(o)) do s[#s + 1] = kv end
    return s
  end,
  seed = function(o) return o.workload_seed end,
  -- One round per side, both with the same conversations.
  plan = function(o, ctx)
    local base = { prompt = o.prompt, max_tokens = o.max_tokens, temperature = o.temperature,
      ignore_eos = o.ignore_eos }
    local items = workload.items(o, o.conversations, o.workload_seed * 7919, base)
    local rounds = {}
    for i, side in ipairs(ctx.sides) do
      local round = { items = {} }
      for k, item in ipairs(items) do round.items[k] = run.with(item, { side = side }) end
      if o.rate then
        round.arrivals = { process = o.arrivals, rate = o.rate * o.time_scale,
          burstiness = o.burstiness, seed = o.arrival_seed + i - 1, count = #items }
      end
      rounds[#rounds + 1] = round
    end
    return rounds
  end,
  check_of = workload.check_of,
  record = workload.record,
  finish = function(outcome, ctx, threads) workload.finish("chat", ctx.o, threads, ctx.sides) end,
})
