-- replay.lua: a production trace replayed at its recorded times (open loop).
-- --trace FILE is a Mooncake JSONL, an Azure LLM inference CSV, a BurstGPT CSV
-- or a SageMaker Data Capture JSONL file (told apart by its first line). Each
-- request is sent at its trace time (from the trace's first request, minus the
-- --window's start) divided by --speed, whether or not the endpoint keeps up;
-- its record carries that intended start, so latency counts from it as in
-- rate.lua. Prompts are synthetic words of the trace's input length (Mooncake:
-- each hash id's 512-token block is the same text wherever it appears, so a
-- prefix cache hits where production shared a prefix); replies are the trace's
-- output length (max_tokens with ignore_eos). A Data Capture body is sent as it
-- was captured, with its observedContentType as the Content-Type when the
-- capture holds one (else application/json). A malformed line stops the run before anything is sent.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local sm = require "sm.plugin"
local workload = require "sm.workload"

local BLOCK = 512 -- tokens per Mooncake hash id

-- The --window text START:END (seconds of trace time; either may be empty) as
-- from_s, to_s (-1: no end), or nil and why.
local function window_of(text)
  local a, b = text:match("^([^:]*):([^:]*)$")
  local from, to = tonumber(a ~= "" and a or "0"), b ~= "" and tonumber(b) or -1
  if not a or not from or not to or from < 0 or (to >= 0 and to <= from) then
    return nil, "--window wants START:END in seconds of trace time (END after START; "
      .. "either may be left out), got '" .. text .. "'"
  end
  return from, to
end

-- The prompt of a trace request of n tokens: its hash ids' blocks (each the
-- first 512 words drawn from the block's id), then words of its own.
local function prompt_of(req, seed, blocks)
  local parts, left = {}, req.input_tokens or 1
  for _, id in ipairs(req.hash_ids or {}) do
    if left <= 0 then break end
    local block = blocks[id]
    if not block then -- its words, and its whole text once asked for
      block = { words = workload.synthetic_words(BLOCK, seed * 1000003 + id) }
      blocks[id] = block
    end
    local k = math.min(left, BLOCK)
    if k == BLOCK then
      block.text = block.text or table.concat(block.words, " ")
      parts[#parts + 1] = block.text
    else
      parts[#parts + 1] = table.concat(block.words, " ", 1, k)
    end
    left = left - k
  end
  if left > 0 then
    parts[#parts + 1] = table.concat(workload.synthetic_words(left,
      seed * 1000003 + 500000009 + req.line), " ")
  end
  return table.concat(parts, " ")
end

run.scenario({
  name = "replay",
  summary = "a production trace replayed at its recorded times (Mooncake, Azure, BurstGPT, "
    .. "Data Capture)",
  usage = "wrk -t64 -c64 -d1h --timeout 70s -s scenarios/replay.lua URL -- --endpoint NAME "
    .. "--trace FILE [--speed X] [--window START:END] [--cap N] [options]",
  options = {
    { name = "--trace", arg = "FILE", type = "string",
      help = "the trace: Mooncake JSONL, Azure LLM inference CSV, BurstGPT CSV or SageMaker "
        .. "Data Capture JSONL (required)" },
    { name = "--speed", arg = "X", type = "number", default = 1,
      help = "replay X times faster than recorded (0.5: half as fast)" },
    { name = "--window", arg = "START:END", type = "string", default = ":",
      help = "only the requests from START to before END seconds of trace time (from its "
        .. "first request); the replay starts at START" },
    { name = "--cap", arg = "N", type = "int", min = 0, default = 0,
      help = "at most the window's first N requests (0: all)" },
    { name = "--trace-seed", arg = "N", type = "int", default = 1,
      help = "the seed of the prompts' words" },
    run.temperature_option,
  },
  validate = function(o, ctx)
    if not o.trace then return "--trace FILE is required" end
    local from, to = window_of(o.window)
    if not from then return to end
    local t, err = sm.trace(o.trace, { speed = o.speed, from_s = from, to_s = to, cap = o.cap })
    if not t then return err end
    ctx.trace, ctx.window = t, { from, to >= 0 and to or nil }
  end,
  settings = function(o, ctx)
    -- sm-compare reads a replay as one open-loop round (rate.lua's fields): its
    -- offered rate is the requests over the replay's span.
    local reqs = ctx.trace.requests
    local span = (reqs[#reqs].at_us - reqs[1].at_us) / 1e6 / o.time_scale
    local rate = span > 0 and #reqs / span or #reqs
    return { { "arrivals", "trace" }, { "rates", { rate } },
      { "duration_s", span > 0 and span or nil },
      { "trace", o.trace:match("[^/]*$") }, { "trace_format", ctx.trace.format },
      { "speed", o.speed }, { "window_s", ctx.window }, { "cap", o.cap > 0 and o.cap or nil },
      { "requests", #ctx.trace.requests }, { "trace_requests", ctx.trace.read },
      { "trace_seed", o.trace_seed }, { "max_concurrency", ctx.threads },
      { "temperature", o.temperature } }
  end,
  seed = function(o) return o.trace_seed end,
  -- The trace and its prompts are made once per process, not once per thread:
  -- every sender takes its arrivals from the one plan (memory: the trace once).
  shared_plan = true,
  -- One round per side, both with the trace's times and prompts; the schedule
  -- runs time_scale times faster on a time-scaled server, as rate.lua's.
  plan = function(o, ctx)
    local at, items, blocks = {}, {}, {}
    for k, req in ipairs(ctx.trace.requests) do
      at[k] = math.floor(req.at_us / o.time_scale + 0.5)
      local item = { batch = 0, temperature = o.temperature }
      if req.body then
        item.body, item.content_type = req.body, req.content_type
      else
        item.prompt = prompt_of(req, o.trace_seed, blocks)
        item.max_tokens, item.ignore_eos = math.max(req.output_tokens or 1, 1), true
      end
      items[k] = item
    end
    local rounds = {}
    for _, side in ipairs(run.order(ctx.sides, 0)) do
      local round = { arrivals = { at_us = at }, items = {} }
      for k, item in ipairs(items) do round.items[k] = run.with(item, { side = side }) end
      rounds[#rounds + 1] = round
    end
    return rounds
  end,
})
