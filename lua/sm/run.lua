-- sm.run: the wrk side of every scenario. A scenario file calls run.scenario{...}
-- with its name, its own options, its settings and its plan; this module defines
-- wrk's global functions (setup, init, request, response, done), parses the
-- options, signs and sends every request, records every reply and ends the run
-- when its work is done. It defines no delay(): wrk would then run a timer
-- before every request; a thread that must wait (a round's barrier) waits in
-- request() instead.
--
-- wrk runs the script once in its main state (here: check the options, set up
-- the run and its result files, or exit with one line) and once per thread
-- (here: hand the plan to the C module, which prepares the signed requests). A plan
-- is a list of rounds:
--   { items = {item, ...} }                 any thread sends the next item
--   { items = {item, ...}, per_thread = 1 } a batch: one item per thread, all together
--   { template = item, duration_s = D }     steady: back to back for D seconds
--   { template = item, arrivals = A }       open loop: each request at its arrival time
--   { items = {item, ...}, arrivals = A }   open loop, the items in turn
-- where A = { process = "constant"|"poisson"|"gamma", rate = R (per second),
-- burstiness = B (gamma's shape), seed = N, count = N or duration_s = D (count
-- defaults to the number of items) }: the arrival times are drawn before the run.
-- Each round starts when every thread is done with the one before. An item is a
-- table: side (from ctx.sides), batch, phase, prompt, max_tokens, temperature,
-- ignore_eos, expect_tokens (a reply of another length fails), question, kind,
-- answer, pattern (quiz: scored on the stripped reply).
local sm = require "sm.plugin"
local args = require "sm.args"
local target = require "sm.target"

local M = { sm = sm }

local SAGEMAKER_LIMIT_S = 60 -- SageMaker ends a reply that takes longer
local GC_PAUSE = 400 -- percent: see init()

M.common = {
  { name = "--endpoint", arg = "NAME[=LABEL]", type = "string", many = true,
    help = "the SageMaker endpoint to call; give it twice to compare two endpoints "
      .. "(requests alternate between them, one result file each)" },
  { name = "--variant", arg = "NAME[=LABEL]", type = "string", many = true,
    help = "a production variant (X-Amzn-SageMaker-Target-Variant), once for every side or "
      .. "once per side; two variants of one endpoint make two sides" },
  { name = "--inference-component", arg = "NAME[=LABEL]", type = "string", many = true,
    help = "an inference component (X-Amzn-SageMaker-Inference-Component), as --variant; "
      .. "'-' for a side that targets none beside one that does" },
  { name = "--custom-attributes", arg = "TEXT", type = "string",
    help = "X-Amzn-SageMaker-Custom-Attributes on every request" },
  { name = "--region", arg = "REGION", type = "string",
    help = "the region to sign for; needed when the URL is not "
      .. "https://runtime.sagemaker.REGION.amazonaws.com" },
  { name = "--allow-plain-http", type = "bool", default = false,
    help = "sign and send requests over http:// to a host that is not loopback (the signature "
      .. "and session token then cross the network unencrypted); http:// to 127.0.0.0/8, ::1 "
      .. "or localhost (the emulator) needs no flag" },
  { name = "--profile", arg = "NAME", type = "string",
    help = "take the credentials from this AWS profile (default: the usual chain: "
      .. "environment, ~/.aws files, container, instance)" },
  { name = "--format", arg = "FORMAT", type = "string", default = "vllm-chat",
    help = "the body format: vllm-chat, vllm-completions, tgi, lmi or raw" },
  { name = "--body", arg = "TEXT", type = "string",
    help = "with --format raw: the whole request body, sent as it is" },
  { name = "--extra", arg = "JSON", type = "string",
    help = "a JSON object of extra body fields (tgi and lmi: extra parameters)" },
  { name = "--thinking", arg = "on|off|default", type = "string", default = "default",
    help = "a thinking model's reasoning (Qwen3, Gemma 4, gpt-oss, DeepSeek-R1 distills): on "
      .. "or off sends vllm-chat's chat_template_kwargs.enable_thinking, default sends "
      .. "nothing (the model's own); the result's settings say which" },
  { name = "--api", arg = "invoke|openai", type = "string", default = "invoke",
    help = "wrk's route: invoke (InvokeEndpoint) or openai (SageMaker's OpenAI-compatible "
      .. "route, /openai/v1/chat/completions, with \"stream\": false: wrk cannot stream; "
      .. "--format vllm-chat); sm-stream takes its own --api before the --" },
  { name = "--warmup", arg = "N", type = "int", default = 0,
    help = "send N warm-up requests to each side first (copies of the plan's first request, "
      .. "all done before the first measured one), recorded with phase \"warmup\" and left "
      .. "out of every figure by sm-compare, which counts them" },
  { name = "--seed", arg = "N", type = "int", help = "the seed field of every body" },
  { name = "--min-tokens", arg = "N", type = "int",
    help = "the min_tokens field of every body (vLLM formats)" },
  { name = "--label", arg = "LABEL", type = "string", many = true,
    help = "the side's label, which names its result file; once per side "
      .. "(default: the endpoint name, or what tells the sides apart)" },
  { name = "--out", arg = "PATH", type = "string", default = "runs/{scenario}-{label}.json",
    help = "the result file; {label} becomes each side's label (required with several "
      .. "sides), {scenario} the scenario's name; the journal goes beside it" },
  { name = "--force", type = "bool", default = false,
    help = "replace result files (and journals) of an earlier run at --out; without it a run "
      .. "that would overwrite one refuses to start" },
  { name = "--time-scale", arg = "K", type = "number", default = 1,
    help = "the server runs K times faster than real time (an emulator); "
      .. "recorded in the result file" },
  { name = "--refuse-after", arg = "N", type = "int", default = 3,
    help = "stop the run when an endpoint's first N requests all fail (0: never)" },
  { name = "--progress", arg = "SECONDS", type = "number", min = 0, default = 30,
    help = "seconds between progress lines when stderr is not a terminal (0: none)" },
  { name = "--shard", arg = "K/N", type = "string",
    help = "run shard K (0-based) of N client processes: each builds the whole schedule and "
      .. "keeps its stripe (sender t and request i of a round belong to shard t mod N and i mod N: "
      .. "-c names the whole run's senders); default: $JOB_COMPLETION_INDEX/$SM_SHARDS when "
      .. "SM_SHARDS is set" },
  { name = "--run-id", arg = "ID", type = "string",
    help = "the run's id in its result files (the shards of one run share it); default: made up, "
      .. "or run-START for a sharded run with --start-at" },
  { name = "--start-at", arg = "TIME", type = "string",
    help = "start the first round at this UTC time (2026-05-01T12:00:00Z), not before: the "
      .. "shards' common start" },
  { name = "--start-tolerance", arg = "SECONDS", type = "number", min = 0, default = 1,
    help = "with --start-at: a run that would start later than this fails (exit 5) instead "
      .. "of measuring another load" },
  { name = "--clock-probe", type = "bool", default = true,
    help = "with --start-at: before waiting, measure this host's clock against the endpoint's "
      .. "Date header (a few seconds of GET /ping) and record it" },
  { name = "--print-schedule", type = "bool", default = false,
    help = "print what this shard would send (JSON lines) and exit without sending" },
  { name = "--help", type = "bool", default = false, help = "print this help and exit" },
}

-- The reference method's prompt for long replies.
M.STORY_PROMPT = "Write a long, detailed story about a lighthouse keeper on a remote island."

-- Option specs scenarios share.
function M.prompt_option(default)
  return { name = "--prompt", arg = "TEXT", type = "string", default = default,
    help = "the prompt" }
end

function M.max_tokens_option(default, help)
  return { name = "--max-tokens", arg = "N", type = "int", min = 1, default = default,
    help = help or "tokens per reply at most" }
end

M.temperature_option = { name = "--temperature", arg = "T", type = "number", min = 0, default = 0,
  help = "the sampling temperature" }

M.ignore_eos_option = { name = "--ignore-eos", type = "bool", default = true,
  help = "ask the container to ignore end-of-sequence, so every reply has its full length" }

-- Every item of the plan, steady rounds' templates included.
local function each_item(rounds)
  return coroutine.wrap(function()
    for _, round in ipairs(rounds) do
      for _, item in ipairs(round.items or { round.template }) do coroutine.yield(item) end
    end
  end)
end

-- A copy of t with the fields of more added (more's win).
function M.with(t, more)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  for k, v in pairs(more) do out[k] = v end
  return out
end

-- The list rotated by i (0-based): with two sides, even i gives A, B and odd i
-- gives B, A, so drift over the run lands on both.
function M.order(list, i)
  local out = {}
  for k = 1, #list do out[k] = list[(k - 1 + i) % #list + 1] end
  return out
end

-- The phase of the warm-up requests (--warmup), which sm-compare leaves out.
M.WARMUP_PHASE = "warmup"

-- A round of n warm-up requests per side, before every other: copies of the
-- plan's first item, in turn on each side; the next round starts when all are done.
local function warmup_round(rounds, sides, n)
  local first = each_item(rounds)()
  local items = {}
  for i = 0, n - 1 do
    for _, side in ipairs(M.order(sides, i)) do
      items[#items + 1] = M.with(first, { side = side, batch = i, phase = M.WARMUP_PHASE })
    end
  end
  return { items = items }
end

local function fail(name, msg)
  io.stderr:write(name, ": ", msg, "\n")
  os.exit(2)
end

local function spec_of(def)
  local spec = {}
  for _, opt in ipairs(M.common) do spec[#spec + 1] = opt end
  for _, opt in ipairs(def.options or {}) do spec[#spec + 1] = opt end
  return spec
end

local function help_text(def, spec)
  return table.concat({
    def.name .. ".lua: " .. def.summary,
    "",
    "usage: " .. def.usage,
    "",
    "wrk must run one connection per thread (-t N -c N). The run ends by itself when its",
    "work is done; wrk's -d is only a cap, so give a generous one (e.g. -d 1h).",
    "Credentials come from the AWS chain (environment, ~/.aws, container, instance).",
    "",
    "options (after wrk's --):",
    args.help(spec),
    "",
    "exit status: 0 done, 2 bad usage, 3 stopped early (an endpoint failed every request),",
    "4 partial (Ctrl-C or wrk's -d), 5 started later than --start-at allows",
  }, "\n") .. "\n"
end

local function check_wrk(wa)
  if wa.connections ~= wa.threads then
    return nil, string.format("wrk must run one connection per thread, or a reply cannot be "
      .. "matched to its request: pass -t N -c N (got -t %d -c %d%s)", wa.threads,
      wa.connections, wa.connections_set and "" or ", wrk's default -c is 10")
  end
  return true
end

-- The shard {index, count, given} of --shard K/N, else of JOB_COMPLETION_INDEX
-- and SM_SHARDS (a Kubernetes Indexed Job's index and the job's completions),
-- else the whole run {index = 0, count = 1}.
local function shard_of(o)
  local text, from = o.shard, "--shard"
  local env_n, env_k = os.getenv("SM_SHARDS"), os.getenv("JOB_COMPLETION_INDEX")
  if not text and env_n and env_n ~= "" then
    if not env_k or env_k == "" then
      return nil, "SM_SHARDS is set but JOB_COMPLETION_INDEX is not: give --shard K/N"
    end
    text, from = env_k .. "/" .. env_n, "JOB_COMPLETION_INDEX/SM_SHARDS"
  end
  if not text then return { index = 0, count = 1 } end
  local k, n = text:match("^(%d+)/(%d+)$")
  k, n = tonumber(k), tonumber(n)
  if not k or n < 1 or n > 10000 or k >= n then
    return nil, string.format("%s wants K/N with 0 <= K < N <= 10000, got '%s'", from, text)
  end
  return { index = k, count = n, given = true }
end

-- The run id: --run-id, else for a sharded run "run-" and --start-at's digits.
local function run_id_of(o, shard)
  if o.run_id then
    if not sm.label_ok(o.run_id) then
      return nil, "--run-id may hold only letters, digits, '.', '_' and '-' (at most 64)"
    end
    return o.run_id
  end
  if shard.count < 2 or (o.print_schedule and not o.start_at) then return nil end
  if not o.start_at then
    return nil, "a sharded run needs --run-id (every shard the same) or --start-at"
  end
  return "run-" .. o.start_at:gsub("[^%dTZ]", "")
end

-- Options, target, sides and plan from the scenario's words: the same in every state.
local function configure(def, wa)
  local spec = spec_of(def)
  local o, err = args.parse(spec, wa.args)
  if not o then return nil, err end
  if o.help then return { help = help_text(def, spec) } end
  local ok
  ok, err = check_wrk(wa)
  if not ok then return nil, err end
  local url
  url, err = target.parse_url(wa.url)
  if not url then return nil, "the URL " .. err end
  ok, err = sm.plain_http_check(url.origin, o.allow_plain_http)
  if not ok then return nil, err end
  local ctx = { o = o, wa = wa, url = url, name = def.name, threads = wa.threads }
  ctx.shard, err = shard_of(o)
  if not ctx.shard then return nil, err end
  if ctx.shard.count > wa.threads then
    return nil, string.format("a run over %d shards needs at least %d senders (-c), one a shard "
      .. "at least (sender t belongs to shard t mod %d); it has %d", ctx.shard.count,
      ctx.shard.count, ctx.shard.count, wa.threads)
  end
  ctx.run_id, err = run_id_of(o, ctx.shard)
  if err then return nil, err end
  ctx.region, err = target.region(url, o.region)
  if not ctx.region then return nil, err end
  ctx.sides, err = target.sides(o, url)
  if not ctx.sides then return nil, err end
  if not ({ ["vllm-chat"] = 1, ["vllm-completions"] = 1, tgi = 1, lmi = 1, raw = 1 })[o.format] then
    return nil, "--format must be vllm-chat, vllm-completions, tgi, lmi or raw, got '"
      .. o.format .. "'"
  end
  if (o.format == "raw") ~= (o.body ~= nil) then
    return nil, "--body goes with --format raw, and --format raw needs --body"
  end
  if o.extra and type(sm.json_decode(o.extra)) ~= "table" then
    return nil, "--extra must be a JSON object, got '" .. o.extra .. "'"
  end
  if not ({ on = 1, off = 1, default = 1 })[o.thinking] then
    return nil, "--thinking must be on, off or default, got '" .. o.thinking .. "'"
  end
  if o.thinking ~= "default" and o.format ~= "vllm-chat" then
    return nil, "--thinking " .. o.thinking .. " needs --format vllm-chat (a chat template's "
      .. "enable_thinking), not " .. o.format
  end
  if not ({ invoke = 1, openai = 1 })[o.api] then
    return nil, "--api must be invoke or openai, got '" .. o.api .. "'"
  end
  if o.api ~= "invoke" and sm.client ~= "wrk" then
    return nil, "--api " .. o.api .. " after the -- is wrk's: " .. sm.client
      .. " takes --api stream|openai before the --"
  end
  if o.api == "openai" and o.format ~= "vllm-chat" then
    return nil, "--api openai takes chat bodies only (--format vllm-chat), not " .. o.format
  end
  -- A scenario whose plan is shared (def.shared_plan) has it made once, in the
  -- main state (sm.begin hands it to the run); a client thread's state makes none.
  local borrowed = def.shared_plan and not sm.is_main_state()
  if def.validate and not borrowed then
    err = def.validate(o, ctx)
    if err then return nil, err end
  end
  ctx.rounds = borrowed and {} or def.plan(o, ctx)
  for item in each_item(ctx.rounds) do item.phase = item.phase or def.name end
  if o.warmup > 0 then
    table.insert(ctx.rounds, 1, warmup_round(ctx.rounds, ctx.sides, o.warmup))
  end
  ctx.plan = {
    request = { host = url.host_header, region = ctx.region, service = "sagemaker",
      user_agent = "wrk-sagemaker/" .. sm.version, format = o.format,
      raw_body = o.format == "raw" and o.body or nil, extra = o.extra,
      min_tokens = o.min_tokens, seed = o.seed, custom_attributes = o.custom_attributes,
      thinking = o.thinking ~= "default" and o.thinking or nil,
      api = o.api ~= "invoke" and o.api or nil,
      shared = def.shared_plan or nil },
    sides = ctx.sides,
    rounds = ctx.rounds,
  }
  return ctx
end

-- A scenario's settings, with --thinking when it was given (a thinking model's
-- figures depend on it). --warmup is not one: its requests are in no figure.
local function with_thinking(settings, o)
  if o.thinking ~= "default" then settings[#settings + 1] = { "thinking", o.thinking } end
  return settings
end

-- The head of a side's result file (docs/result-format.md).
local function head_of(def, ctx, side, run)
  local o, wa = ctx.o, ctx.wa
  return {
    scenario = def.name,
    api = o.api ~= "invoke" and o.api or nil, -- wrk's; sm-stream's own is added by the module
    run_id = run.run_id,
    label = side.label,
    endpoint = { name = side.name, variant = side.variant, format = o.format,
      inference_component = side.component },
    target = { url = ctx.url.origin, host = ctx.url.host_header, region = ctx.region,
      service = "sagemaker" },
    wrk = { threads = wa.threads, connections = wa.connections, duration_s = wa.duration_s,
      timeout_s = wa.timeout_s },
    time_scale = o.time_scale,
    started_at = run.started_at,
    seed = def.seed and def.seed(o) or nil,
    shard = ctx.shard.given and { index = ctx.shard.index, count = ctx.shard.count } or nil,
    start_at = run.start_at,
    start_tolerance_s = run.start_at and o.start_tolerance or nil,
    clock = run.clock,
    settings = with_thinking(def.settings(o, ctx), o),
  }
end

local function notes(def, ctx)
  local wa, n, steady = ctx.wa, 0, 0
  for _, r in ipairs(ctx.rounds) do
    n = n + (r.items and not r.arrivals and #r.items or 0)
    steady = steady + (r.duration_s or r.arrivals and r.arrivals.duration_s or 0)
  end
  local labels = {}
  for _, side in ipairs(ctx.sides) do labels[#labels + 1] = side.label end
  io.stderr:write(string.format("%s: %s%s on %d thread(s), sides %s\n", def.name,
    n > 0 and (n .. " requests") or "", steady > 0 and string.format("%s%g s steady",
      n > 0 and " + " or "", steady) or "", wa.threads, table.concat(labels, ", ")))
  if not wa.duration_set then
    io.stderr:write(def.name, ": note: ", sm.client, " stops the run at -d, 10 s when not given; "
      .. "pass a generous -d (e.g. -d 1h): the run ends by itself when its work is done\n")
  elseif steady > wa.duration_s then
    io.stderr:write(string.format("%s: note: the steady rounds take %g s, more than -d %d s\n",
      def.name, steady, wa.duration_s))
  end
  if next(wrk.headers) ~= nil then
    io.stderr:write(def.name, ": note: wrk's -H headers are not sent: the plugin builds and signs "
      .. "every request itself (see --custom-attributes)\n")
  end
  if wa.timeout_s < SAGEMAKER_LIMIT_S and sm.client ~= "wrk" then
    io.stderr:write(string.format("%s: note: %s cuts a reply slower than --timeout (%g s) and "
      .. "records it as a timeout; SageMaker allows 60 s\n", def.name, sm.client, wa.timeout_s))
  elseif wa.timeout_s < SAGEMAKER_LIMIT_S then
    io.stderr:write(string.format("%s: note: wrk counts replies slower than --timeout (%g s) as "
      .. "timeouts in its own summary (the result files are not affected); pass --timeout 60s\n",
      def.name, wa.timeout_s))
  end
end

-- With --options-json among its words (sm-suite's probe), the scenario prints its
-- name and every option it takes as one JSON document on stdout, before anything
-- else is checked, and wrk exits before it connects anywhere:
-- {"format": "wrk-sagemaker-options", "version": 1, "scenario": NAME,
--  "options": [{name, arg, type, many, default, min, help}, ...]}
local function options_json(def, wa)
  local asked = false
  for _, word in ipairs(wa.args) do asked = asked or word == "--options-json" end
  if not asked then return end
  local function json(v) return v == nil and "null" or assert(sm.json_encode(v)) end
  local parts = {}
  for _, opt in ipairs(spec_of(def)) do
    local fields = {}
    for _, kv in ipairs({ { "name", opt.name }, { "arg", opt.arg }, { "type", opt.type },
      { "many", opt.many == true }, { "default", opt.default }, { "min", opt.min },
      { "help", opt.help } }) do
      fields[#fields + 1] = json(kv[1]) .. ":" .. json(kv[2])
    end
    parts[#parts + 1] = "{" .. table.concat(fields, ",") .. "}"
  end
  io.stdout:write('{"format":"wrk-sagemaker-options","version":1,"scenario":', json(def.name),
    ',"options":[', table.concat(parts, ","), "]}\n")
  io.stdout:flush()
  os.exit(0)
end

-- The main state: check everything, begin the run, open the result files.
local function main_state(def)
  local wa, err = sm.wrk_args()
  if not wa then fail(def.name, err) end
  options_json(def, wa)
  local ctx
  ctx, err = configure(def, wa)
  if not ctx then fail(def.name, err) end
  if ctx.help then
    io.stdout:write(ctx.help)
    os.exit(0)
  end
  local shard = ctx.shard
  if ctx.o.print_schedule then
    local text
    text, err = sm.schedule(ctx.plan, { threads = wa.threads, shard_index = shard.index,
      shard_count = shard.count })
    if not text then fail(def.name, err) end
    io.stdout:write(text)
    io.stdout:flush()
    os.exit(0)
  end
  if shard.given then
    io.stderr:write(string.format("%s: shard %d of %d (run %s)%s\n", def.name, shard.index,
      shard.count, ctx.run_id or "?", ctx.o.start_at and ", waiting for " .. ctx.o.start_at or ""))
  elseif ctx.o.start_at then
    io.stderr:write(def.name, ": waiting for ", ctx.o.start_at, "\n")
  end
  local run, kind
  run, err, kind = sm.begin(ctx.plan, {
    scenario = def.name,
    threads = wa.threads,
    cap_s = wa.duration_s,
    refuse_after = ctx.o.refuse_after,
    progress_s = ctx.o.progress,
    profile = ctx.o.profile,
    run_id = ctx.run_id,
    shard_index = shard.index,
    shard_count = shard.count,
    start_at = ctx.o.start_at,
    start_tolerance_s = ctx.o.start_tolerance,
    probe_url = ctx.o.clock_probe and ctx.url.origin .. "/ping" or nil,
  })
  if not run and kind == "late" then
    io.stderr:write(def.name, ": ", err, "\n")
    os.exit(5)
  end
  if not run then fail(def.name, err) end
  if run.clock then
    io.stderr:write(string.format("%s: clock: the endpoint's is %+.3f ms from this host's "
      .. "(+- %.3f ms, %d replies)\n", def.name, run.clock.offset_us / 1000,
      run.clock.uncertainty_us / 1000, run.clock.probes))
  elseif run.clock_note then
    io.stderr:write(def.name, ": note: clock not measured: ", run.clock_note, "\n")
  end
  ctx.paths = {}
  for i, side in ipairs(ctx.sides) do
    local path
    path, err = target.out_path(ctx.o.out, def.name, side.label, #ctx.sides, shard.index)
    if not path then fail(def.name, err) end
    for j = 1, i - 1 do
      if ctx.paths[j] == path then fail(def.name, "two sides would write " .. path) end
    end
    ctx.paths[i] = path
    local ok
    ok, err = sm.add_file(path, head_of(def, ctx, side, run), ctx.o.force,
      target.out_root(ctx.o.out))
    if not ok then fail(def.name, err) end
  end
  notes(def, ctx)
  return ctx
end

-- A request wrk may send when this thread has nothing to send (it never counts).
local function filler(ctx)
  return "GET /ping HTTP/1.1\r\nHost: " .. ctx.url.host_header .. "\r\n\r\n"
end

-- Defines wrk's functions for the scenario def:
--   name, summary, usage   for messages and --help
--   options                the scenario's own options (sm.args specs)
--   validate(o, ctx)       nil, or a message refusing the options
--   settings(o, ctx)       {{key, value}, ...}: the result file's "settings"
--   seed(o)                optional: the seed the schedule is drawn from (the head's "seed")
--   plan(o, ctx)           the rounds (see above)
--   shared_plan            optional, true: the plan is made once per process (its
--                          validate and plan run in the main state only) and every
--                          thread sends from it; no check (a thread has no items)
--   check(item, reply, rec) optional: adjust a record (rec.ok, rec.error_code, ...)
--   check_of(o)            optional: the check for these options (nil: def.check)
--   record(ctx, threads)   optional: in done(), before the result files are written (e.g.
--                          sm.set_template); nil or a message (printed, the run goes on)
--   finish(outcome, ctx)   optional: print something in done()
function M.scenario(def)
  local ctx
  local threads = {}

  if sm.is_main_state() then
    local ok, result = pcall(main_state, def)
    -- An error that is no message is sm-stream's os.exit unwinding: it goes on.
    if not ok and type(result) == "userdata" then error(result, 0) end
    if not ok then fail(def.name, "internal error: " .. tostring(result)) end
    ctx = result
  end

  function setup(thread)
    threads[#threads + 1] = thread
    thread:set("sm_thread_id", #threads - 1)
  end

  -- wrk's request() and response() are the plugin's (sm.hooks): one C call each.
  -- The collector waits for the heap to grow to 4 times its live size (LuaJIT's
  -- default: 2): each cycle walks all this state keeps (the modules, the plan,
  -- the prepared requests: about 110 KB), and at 2 a cycle came every 40 or so
  -- replies (wrk makes 2.5 KB of garbage of each). It costs about 220 KB a thread.
  function init()
    collectgarbage("setpause", GC_PAUSE)
    local wa, err = sm.wrk_args()
    if wa then ctx, err = configure(def, wa) end
    if ctx and not ctx.help then
      request, response = sm.hooks(ctx.plan, { thread = sm_thread_id, filler = filler(ctx),
        check = def.check_of and def.check_of(ctx.o) or def.check })
      err = request == nil and response or err
    end
    if not request then fail(def.name, err or "cannot prepare the requests") end
  end

  function done()
    local out, err
    if def.record then
      err = def.record(ctx, threads)
      if err then io.stderr:write(def.name, ": ", err, "\n") end
    end
    out, err = sm.finish()
    if not out then
      io.stderr:write(def.name, ": ", err, "\n")
      os.exit(1)
    end
    for i, side in ipairs(ctx.sides) do
      local c = out.files[i]
      io.stderr:write(string.format("%s: %s: %d ok, %d failed -> %s\n", def.name, side.label,
        c.ok, c.failed, ctx.paths[i]))
    end
    if def.finish then def.finish(out, ctx, threads) end
    if out.partial then
      io.stderr:write(def.name, ": partial result: ", out.reason, "\n")
      io.stdout:flush()
      os.exit(out.reason:match("^refused") and 3 or out.reason:match("^late start") and 5 or 4)
    end
  end
end

return M
