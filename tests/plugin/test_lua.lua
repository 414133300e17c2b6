-- The Lua helpers (lua/sm/*) and the module's Lua API, run with luajit:
--   luajit test_lua.lua REPO_DIR   (SM_PLUGIN_PATH names the built sagemaker.so)
local repo = assert(arg[1], "usage: test_lua.lua REPO_DIR")
package.path = repo .. "/lua/?.lua;" .. package.path
local args = require "sm.args"
local target = require "sm.target"
local run = require "sm.run"
local sm = run.sm

local failed = 0
local function check(cond, what)
  if not cond then
    failed = failed + 1
    io.stderr:write("check failed: ", what, "\n")
  end
end
local function eq(got, want, what)
  check(got == want, string.format("%s: got %s, want %s", what, tostring(got), tostring(want)))
end

-- sm.args: each row is words -> the value of one option, or the error.
local spec = {
  { name = "--endpoint", type = "string", many = true, help = "" },
  { name = "--repeats", type = "int", min = 1, default = 5, help = "" },
  { name = "--lengths", type = "ints", default = { 16, 512 }, help = "" },
  { name = "--scale", type = "number", default = 1, help = "" },
  { name = "--ignore-eos", type = "bool", default = true, help = "" },
  { name = "--prompt", type = "string", default = "p", help = "" },
}
for _, case in ipairs({
  { {}, "repeats", 5 },
  { { "--repeats", "7" }, "repeats", 7 },
  { { "--repeats=8" }, "repeats", 8 },
  { { "--lengths", "1,2,3" }, "lengths", "1,2,3" },
  { { "--no-ignore-eos" }, "ignore_eos", false },
  { { "--ignore-eos" }, "ignore_eos", true },
  { { "--endpoint", "a", "--endpoint=b=B" }, "endpoint", "a,b=B" },
  { { "--prompt", "--not-an-option" }, "prompt", "--not-an-option" },
  { { "--scale", "0.5" }, "scale", 0.5 },
  { { "--repeats", "0" }, nil, "--repeats wants a whole number >= 1, got '0'" },
  { { "--repeats", "1.5" }, nil, "--repeats wants a whole number >= 1, got '1.5'" },
  { { "--lengths", "16,x" }, nil,
    "--lengths wants whole numbers >= 1 separated by commas, got '16,x'" },
  { { "--scale", "0" }, nil, "--scale wants a number > 0, got '0'" },
  { { "--repeats" }, nil, "--repeats wants a value" },
  { { "--bogus" }, nil, "unknown option --bogus (see --help)" },
  { { "--no-prompt" }, nil, "unknown option --no-prompt (see --help)" },
  { { "stray" }, nil, "unexpected word 'stray' (options start with --; see --help)" },
  { { "--ignore-eos=1" }, nil, "--ignore-eos takes no value" },
}) do
  local o, err = args.parse(spec, case[1])
  local label = table.concat(case[1], " ")
  if case[2] then
    local v = o and o[case[2]]
    if type(v) == "table" then v = table.concat(v, ",") end
    eq(v, case[3], "args " .. label)
  else
    eq(err, case[3], "args error " .. label)
  end
end
check(args.help(spec):find("--ignore-eos, --no-ignore-eos", 1, true), "help names --no-")
check(args.help(spec):find("(default: 16,512)", 1, true), "help shows list defaults")

-- sm.target: URLs and regions.
for _, case in ipairs({
  { "https://runtime.sagemaker.us-east-2.amazonaws.com", "https://runtime.sagemaker.us-east-2.amazonaws.com", "runtime.sagemaker.us-east-2.amazonaws.com", "/", "us-east-2" },
  { "http://127.0.0.1:8080/", "http://127.0.0.1:8080", "127.0.0.1:8080", "/", nil },
  { "http://[::1]:9/endpoints/x/invocations", "http://[::1]:9", "[::1]:9", "/endpoints/x/invocations", nil },
  { "https://runtime-fips.sagemaker.us-gov-west-1.amazonaws.com", nil, nil, "/", "us-gov-west-1" },
  { "https://runtime.sagemaker.cn-north-1.amazonaws.com.cn", nil, nil, "/", "cn-north-1" },
}) do
  local u = assert(target.parse_url(case[1]))
  if case[2] then eq(u.origin, case[2], "origin of " .. case[1]) end
  if case[3] then eq(u.host_header, case[3], "host of " .. case[1]) end
  eq(u.path, case[4], "path of " .. case[1])
  eq(target.region_of(u.host), case[5], "region of " .. case[1])
end
eq(select(2, target.parse_url("ftp://x")), "wants an http:// or https:// URL, got 'ftp://x'",
  "a URL that is not http")
local local_url = assert(target.parse_url("http://127.0.0.1:8080"))
eq(select(2, target.region(local_url, nil)), "http://127.0.0.1:8080 is not a SageMaker Runtime "
  .. "URL (https://runtime.sagemaker.REGION.amazonaws.com): pass --region", "no region")
eq(target.region(local_url, "eu-west-1"), "eu-west-1", "--region")
local real = assert(target.parse_url("https://runtime.sagemaker.us-east-1.amazonaws.com"))
eq(select(2, target.region(real, "eu-west-1")),
  "--region eu-west-1 does not match the URL's region us-east-1", "conflicting region")
check(target.valid_endpoint("gemma-4-e2b") and target.valid_endpoint(string.rep("a", 63)),
  "valid endpoint names")
check(not target.valid_endpoint("-a") and not target.valid_endpoint("a-")
  and not target.valid_endpoint("a_b") and not target.valid_endpoint(string.rep("a", 64)),
  "invalid endpoint names")

-- Sides: endpoints, variants and components, with their labels.
local function sides(o, path)
  o.endpoint, o.variant = o.endpoint or {}, o.variant or {}
  o.inference_component, o.label = o.inference_component or {}, o.label or {}
  local s, err = target.sides(o, { path = path or "/" })
  if not s then return err end
  local out = {}
  for _, side in ipairs(s) do
    out[#out + 1] = side.name .. "/" .. tostring(side.variant) .. "/" .. tostring(side.component)
      .. "=" .. side.label
  end
  return table.concat(out, " ")
end
for _, case in ipairs({
  { { endpoint = { "a" } }, "a/nil/nil=a" },
  { { endpoint = { "a=bf16", "b=qat" } }, "a/nil/nil=bf16 b/nil/nil=qat" },
  { { endpoint = { "a", "b" }, variant = { "v" } }, "a/v/nil=a b/v/nil=b" },
  { { endpoint = { "e" }, variant = { "bf16", "qat=q" } }, "e/bf16/nil=bf16 e/qat/nil=q" },
  { { endpoint = { "e" }, inference_component = { "c1", "c2" } }, "e/nil/c1=c1 e/nil/c2=c2" },
  { { endpoint = { "a", "b" }, inference_component = { "-", "c=ic" } }, "a/nil/nil=a b/nil/c=ic" },
  { { endpoint = { "a", "b" }, label = { "x", "y" } }, "a/nil/nil=x b/nil/nil=y" },
  { {}, "x/nil/nil=x", "/endpoints/x/invocations" },
  { {}, "no endpoint: pass --endpoint NAME (the SageMaker endpoint to call)" },
  { { endpoint = { "a", "b", "c" }, variant = { "1", "2" } },
    "--variant is given 2 times for 3 sides: give it once (for all) or once per side" },
  { { endpoint = { "a", "a" } }, "two sides share the label 'a': name them with "
    .. "--endpoint NAME=LABEL or --label" },
  { { endpoint = { "a_b" } }, "'a_b' is not a SageMaker endpoint name (letters, digits and '-', "
    .. "at most 63)" },
  { { endpoint = { "a=x/y" } }, "the label 'x/y' may hold only letters, digits, '.', '_' and '-', "
    .. "not start with '.' and be 64 characters at most" },
  { { endpoint = { "a=.." } }, "the label '..' may hold only letters, digits, '.', '_' and '-', "
    .. "not start with '.' and be 64 characters at most" },
}) do
  eq(sides(case[1], case[3]), case[2], "sides")
end
eq(target.out_path("results/{scenario}-{label}.json", "decode", "bf16", 2),
  "results/decode-bf16.json", "out path")
eq(select(2, target.out_path("r.json", "decode", "bf16", 2)),
  "--out must contain {label} when the run has several endpoints", "out path without {label}")
-- The folder of --out the user named: before its first placeholder (links below it refused).
for _, case in ipairs({ { "results/{scenario}-{label}.json", "results" }, { "r.json", nil },
  { "{label}/x.json", "." }, { "/srv/out/{label}/sub/x.json", "/srv/out" },
  { "a/b{label}.json", "a" }, { "/{label}.json", nil } }) do
  eq(target.out_root(case[1]), case[2], "out root of " .. case[1])
end

-- sm.run helpers.
eq(table.concat(run.order({ "A", "B" }, 0), ""), "AB", "order 0")
eq(table.concat(run.order({ "A", "B" }, 1), ""), "BA", "order 1")
eq(table.concat(run.order({ "A", "B", "C" }, 2), ""), "CAB", "order of three")
-- The module's pure functions.
local v = sm.json_decode('{"a":[1,"x",true,null],"b":{"c":2.5}}')
eq(v.a[2], "x", "json_decode string")
eq(v.a[4], sm.null, "json_decode null")
eq(v.b.c, 2.5, "json_decode number")
eq(select(2, sm.json_decode("{x")), "not valid JSON near byte 2", "json_decode error")
eq(sm.json_encode({ 1, 2 }), "[1,2]", "json_encode list")
eq(select(2, sm.json_encode({ f = print })),
  "a value JSON cannot hold (function, userdata or thread)", "json_encode error")
eq(sm.sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256")
eq(sm.tty_text("a\27[2J\194\155b\n\tc\255"), "a\\x1b[2J\\u009bb\n\tc\\xff", "tty_text")
eq(sm.endpoint_ok("gemma-4-e2b"), true, "endpoint_ok")
eq(sm.label_ok(".."), false, "label_ok")
eq(sm.region_of("runtime.sagemaker.eu-west-1.amazonaws.com"), "eu-west-1", "region_of")
check(not sm.is_main_state() == false, "the first state to load is the main state")

-- The run through the plan (sm.begin, sm.add_file, sm.hooks, sm.finish): request()
-- signs the next item, response() records what came back at once (the journal has
-- it), or hands the item, the reply and its record to a scenario's check first.
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir) == 0)
local side = { index = 1, name = "e", variant = "v" }
local function plan_of(items)
  return { request = { host = "h", region = "us-east-1", service = "sagemaker",
    format = "vllm-chat" }, sides = { side }, rounds = { { items = items } } }
end
local quiz = { side = side, phase = "quiz", batch = 1, question = "q1", kind = "cap",
  prompt = "Capital of Australia?", max_tokens = 8, answer = "Canberra",
  pattern = "\\bCanberra\\b" }
local decode = { side = side, phase = "decode", prompt = "d", max_tokens = 16,
  expect_tokens = 16, ignore_eos = true }
local plan = plan_of({ quiz, decode, decode })
-- Bad plans say what is wrong.
eq(select(2, sm.begin(plan_of({ { side = side, phase = "quiz", prompt = "x", question = "q9",
  pattern = "(" } }), { scenario = "test" })),
  "question q9: bad pattern: offset 1: missing closing parenthesis", "begin: a bad pattern")
local tgi = plan_of({ decode })
tgi.request.format = "tgi"
eq(select(2, sm.begin(tgi, { scenario = "test" })), "the tgi format has no ignore_eos "
  .. "(leave it out, or pass the container's own field with --extra)", "begin: a field the format lacks")
local run_of = assert(sm.begin(plan, { scenario = "test", threads = 1, progress_s = 0 }))
check(run_of.run_id:match("^%d%d%d%d%d%d%d%dT%d%d%d%d%d%dZ%-%x%x%x%x%x%x$"), "run id: " .. run_of.run_id)
check(run_of.started_at:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%d%d%d%dZ$"), "started_at")
eq(assert(sm.add_file(dir .. "/r.json", { scenario = "test", run_id = run_of.run_id, label = "x",
  endpoint = { name = "e", variant = "v", format = "vllm-chat" }, target = { url = "http://h",
  host = "h", region = "us-east-1", service = "sagemaker" }, wrk = { threads = 1,
  connections = 1 }, time_scale = 2, started_at = run_of.started_at,
  settings = { { "z", 1 }, { "a", { 16, 512 } }, { "n", nil } } })), 1, "add_file: its index")
local function journal()
  return assert(io.open(dir .. "/r.journal.jsonl")):read("*a")
end
check(journal():find('^{"format":"wrk%-sagemaker%-result","version":2,"tool":"wrk%-sagemaker [^"]+",'
  .. '"scenario":"test","run_id":"[^"]+","label":"x","endpoint":{"name":"e","variant":"v",'
  .. '"format":"vllm%-chat","inference_component":null},"target":{"url":"http://h","host":"h",'
  .. '"region":"us%-east%-1","service":"sagemaker"},"wrk":{"threads":1,"connections":1,'
  .. '"duration_s":null,"timeout_s":null},"client":"wrk","api":"invoke","time_scale":2,'
  .. '"started_at":"[^"]+","settings_sha256":"' .. string.rep("%x", 64) .. '",'
  .. '"settings":{"z":1,"a":%[16,512%],"n":null}}\n%z*$'), "add_file: the head, in order: " .. journal())
-- Misuse raises, naming what is wrong.
for _, case in ipairs({
  { plan_of({ 1 }), { filler = "F" }, "each item must be a table" },
  { plan_of({ { side = 1 } }), { filler = "F" }, "an item's side must be a table" },
  { plan, { filler = 1 }, "filler must be a string" },
  { plan, { filler = "F", check = 1 }, "check must be a function" },
  { { request = plan.request, sides = { side }, rounds = { 1 } }, { filler = "F" },
    "each round must be a table" },
}) do
  local ok, err = pcall(sm.hooks, case[1], case[2])
  check(not ok and tostring(err):find(case[3], 1, true), "hooks misuse: " .. case[3] .. ": " .. tostring(err))
end
local seen = {}
local request, response = sm.hooks(plan, { thread = 0, filler = "FILLER",
  check = function(it, reply, rec)
    seen = { item = it, text = reply.text, code = rec.error_code, correct = rec.correct }
    if it == decode then rec.error_message = "checked" end
  end })
plan, quiz = nil, nil
collectgarbage() -- the hooks keep their plan's items alive
eq(request(), "FILLER", "hooks: thread 0's first call, from the main OS thread, is wrk's check")
local function sent(prompt)
  local raw = request()
  check(raw:find("^POST /endpoints/e/invocations HTTP/1.1\r\n") and raw:find(prompt, 1, true)
    and raw:find("X-Amzn-SageMaker-Target-Variant: v\r\n", 1, true),
    "hooks: the request of " .. prompt .. ": " .. raw)
end
sent("Capital of Australia?")
local body = '{"choices":[{"message":{"content":" Canberra\\n"},"finish_reason":"stop"}],'
  .. '"usage":{"prompt_tokens":9,"completion_tokens":2}}'
response(200, { ["Content-Length"] = tostring(#body) }, body)
eq(seen.item.question, "q1", "check: the item as the plan had it")
eq(seen.correct, true, "check: the quiz's score")
check(journal():find('"seq":0,"thread":0,"endpoint":"e","variant":"v","phase":"quiz","batch":1,'
  .. '"question":"q1","kind":"cap","max_tokens":8,"prompt_tokens":9,"completion_tokens":2,'
  .. '"finish_reason":"stop","status":200,"ok":true,"error":null,"t_start_us":', 1, true),
  "hooks: the record is in the journal at once: " .. journal())
check(journal():find('"text":"Canberra","answer":"Canberra","correct":true}\n', 1, true),
  "hooks: the quiz fields")
response(200, {}, body) -- a filler's reply: nothing on the wire, nothing recorded
sent('"content":"d"')
response(200, {}, body)
eq(seen.item, decode, "check: the decode item")
eq(seen.text, " Canberra\n", "check: the reply's text")
eq(seen.code, "token_mismatch", "check: the token check")
check(journal():find('"seq":1,[^\n]*"error":{"code":"token_mismatch","message":"checked"}'),
  "check: the record as the check left it: " .. journal())
sent('"content":"d"')
local out = assert(sm.finish())
eq(out.files[1].sent, 2, "every record counts")
eq(out.partial, true, "a run with a request on the wire at its end is partial")
os.execute("rm -rf " .. dir)

-- sm.workload: sampling without replacement uses each entry once before any
-- comes again; synthetic prompts have the tokens asked for (one a word), the
-- first --prefix-tokens shared within a group and not across groups; reply
-- lengths go with ignore_eos; a dataset's bad line is named.
local workload = require "sm.workload"
local picks = workload.picks(5, 12, 3, false)
local seen = {}
for i = 1, 10 do seen[picks[i]] = (seen[picks[i]] or 0) + 1 end
eq(#picks, 12, "picks: as many as asked")
check(seen[1] == 2 and seen[2] == 2 and seen[3] == 2 and seen[4] == 2 and seen[5] == 2,
  "picks without replacement: two passes over five")
local o = { input_tokens = "uniform:30:40", output_tokens = "7", prefix_tokens = 20,
  dataset_sampling = "with", prefix_groups = 2, workload_seed = 4 }
eq(workload.validate(o), nil, "workload options")
local items = workload.items(o, 6, 11, { batch = 0, max_tokens = 99, prompt = "x" })
for k, item in ipairs(items) do
  local n = select(2, item.prompt:gsub("%S+", ""))
  check(n >= 30 and n <= 40, "a synthetic prompt of 30 to 40 words: " .. n)
  check(item.max_tokens == 7 and item.ignore_eos == true and item.batch == 0, "item " .. k)
end
local function head(s) return s:match("^(" .. string.rep("%S+%s+", 19) .. "%S+)") end
eq(head(items[1].prompt), head(items[3].prompt), "a group's prefix")
check(head(items[1].prompt) ~= head(items[2].prompt), "the other group's prefix differs")
check(items[1].prompt ~= items[3].prompt, "a group's prompts differ after the prefix")
eq(workload.validate({ input_tokens = "normal:5", prefix_tokens = 0, dataset_sampling = "with" }),
  "--input-tokens: 'normal:5' is not a length distribution (N, fixed:N, uniform:A:B, "
  .. "normal:MEAN:SD[:MIN:MAX] or lognormal:MEAN:SD[:MIN:MAX])", "a bad distribution")
-- Conversations: the think time in milliseconds, its draws, and the items.
eq(workload.think_ms_spec("1.5"), "1500", "think time: seconds to ms")
eq(workload.think_ms_spec("uniform:0.5:2"), "uniform:500:2000", "think time: a distribution")
eq(workload.think_ms_spec("x"), nil, "think time: not a number")
local tt = workload.think_times("uniform:1:3", 50, 5, 2)
for _, t in ipairs(tt) do check(t >= 0.5 and t <= 1.5, "think time within A..B / scale: " .. t) end
eq(workload.think_times("0", 3, 1)[3], 0, "think time 0")
local co = { input_tokens = "5", prefix_tokens = 0, dataset_sampling = "with", prefix_groups = 1,
  workload_seed = 4, turns = 3, think_time = "2", sessions = true, format = "vllm-chat",
  time_scale = 1 }
eq(workload.validate(co), nil, "conversation options")
eq(workload.validate(workload.run_with and co or setmetatable({ format = "tgi" },
  { __index = co })), "--turns and --sessions need --format vllm-chat (the history is chat "
  .. "messages)", "conversations want vllm-chat")
local convs = workload.items(co, 2, 9, { max_tokens = 8, prompt = "x" })
eq(#convs, 2, "two conversations")
eq(#convs[1].turns, 3, "three turns each")
eq(#convs[1].think_s, 2, "a think time between turns")
eq(convs[1].think_s[1], 2, "think time 2 s")
check(convs[1].session == true and convs[1].prompt == nil, "a session, no single prompt")
check(convs[1].turns[1] ~= convs[1].turns[2] and convs[1].turns[1] ~= convs[2].turns[1],
  "every turn its own prompt")
local ds = os.tmpname()
local f = assert(io.open(ds, "w"))
f:write('{"prompt": "a"}\n\n{"messages": [{"role": "user", "content": "b"}], "max_tokens": 3}\n'
  .. '{"prompt": 5}\n')
f:close()
local data, why = workload.load(ds)
eq(data, nil, "a dataset with a bad line")
eq(why, ds .. ":4: needs a \"prompt\" string, a non-empty \"messages\" list or "
  .. "\"conversations\"", "its line")
f = assert(io.open(ds, "w"))
f:write('{"prompt": "a"}\n{"messages": [{"role": "user", "content": "b"}], "max_tokens": 3}\n')
f:close()
o = { dataset = ds, dataset_sampling = "without", prefix_tokens = 0, workload_seed = 1 }
eq(workload.validate(o), nil, "a good dataset")
items = workload.items(o, 2, 5, { max_tokens = 9 })
check((items[1].prompt == "a") ~= (items[2].prompt == "a"), "each entry once")
for _, item in ipairs(items) do
  check(item.prompt == "a" and item.max_tokens == 9 or item.messages and item.max_tokens == 3,
    "an entry's own max_tokens")
end
-- Dataset files (issue 32, item 2): a ShareGPT JSON list (its first human turn the
-- prompt; an item without one named), OpenAI chat and ShareGPT lines, and a plain
-- text corpus that prompts of --input-tokens words are cut from.
f = assert(io.open(ds, "w"))
f:write('[{"id": "a", "conversations": [{"from": "system", "value": "s"}, {"from": "human", '
  .. '"value": "h1"}, {"from": "gpt", "value": "g1"}, {"from": "human", "value": "h2"}]},\n'
  .. ' {"conversations": [{"from": "human", "value": "k1"}, {"from": "gpt", "value": "x"}, '
  .. '{"from": "human", "value": "k2"}, {"from": "human", "value": "k3"}]}]')
f:close()
data = assert(workload.load(ds))
check(#data == 2 and data[1].prompt == "h1" and data[1].turns[2] == "h2" and #data[2].turns == 3,
  "ShareGPT: the human turns")
o = { dataset = ds, dataset_sampling = "without", prefix_tokens = 0, workload_seed = 1 }
eq(workload.validate(o), nil, "a ShareGPT dataset")
items = workload.items(o, 2, 5, { max_tokens = 9 })
check((items[1].prompt == "h1" and items[2].prompt == "k1") or
  (items[1].prompt == "k1" and items[2].prompt == "h1"), "single requests: the first human turns")
co = { dataset = ds, dataset_sampling = "with", prefix_tokens = 0, workload_seed = 1, turns = 3,
  think_time = "0", sessions = false, format = "vllm-chat", time_scale = 1 }
eq(workload.validate(co), nil, "a multi-turn dataset for --turns 3")
convs = workload.items(co, 3, 7, { max_tokens = 9 })
for k, c in ipairs(convs) do
  eq(table.concat(c.turns, ","), "k1,k2,k3", "conversation " .. k .. ": the entry's own turns")
end
co.turns = 4
eq(workload.validate(co), ds .. ": no conversation has 4 user turns (--turns)", "too few turns")
f = assert(io.open(ds, "w"))
f:write('[{"conversations": [{"from": "gpt", "value": "g"}]}]')
f:close()
eq(select(2, workload.load(ds)), ds .. ": item 1: a conversation without a \"human\" turn",
  "ShareGPT: an item named")
f = assert(io.open(ds, "w"))
f:write('{"messages": [{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a"},'
  .. ' {"role": "user", "content": "u2"}]}\n{"conversations": [{"from": "human", "value": "v1"},'
  .. ' {"from": "human", "value": "v2"}]}\n')
f:close()
co.turns = 2
eq(workload.validate(co), nil, "OpenAI chat and ShareGPT lines as conversations")
convs = workload.items(co, 6, 7, { max_tokens = 9 })
for k, c in ipairs(convs) do
  local t = table.concat(c.turns, ",")
  check(t == "u1,u2" or t == "v1,v2", "line conversation " .. k .. ": " .. t)
end
f = assert(io.open(ds, "w"))
f:write("one two three four five\nsix seven\teight  nine ten\n")
f:close()
o = { dataset = ds, input_tokens = "uniform:2:4", dataset_sampling = "with", prefix_tokens = 0,
  workload_seed = 1 }
eq(workload.validate(o), nil, "a plain text corpus")
local corpus = " one two three four five six seven eight nine ten one two three "
items = workload.items(o, 20, 5, { max_tokens = 9 })
for k, item in ipairs(items) do
  local n = select(2, item.prompt:gsub("%S+", ""))
  check(n >= 2 and n <= 4 and corpus:find(" " .. item.prompt .. " ", 1, true),
    "corpus prompt " .. k .. " is a run of the corpus' words: " .. item.prompt)
end
eq(workload.validate({ dataset = ds, dataset_sampling = "with", prefix_tokens = 0 }),
  ds .. ": a plain text corpus: give --input-tokens (the words of each prompt cut from it), "
  .. "without --prefix-tokens", "a corpus wants --input-tokens")
os.remove(ds)

-- sm.tokenizer (and --tokenizer): a byte-level BPE tokenizer.json written here,
-- whose words are one token each; a prompt built to N tokens counts N, in
-- workload items too (the prefix shared), and a missing file is one line.
local G = "\xC4\xA0" -- the space's stand-in, U+0120
local vocab, merges, nv = {}, {}, 0
local function tokid(t) if not vocab[t] then vocab[t], nv = nv, nv + 1 end return vocab[t] end
for c in ("thecas."):gmatch(".") do tokid(c) end
tokid(G)
for _, head in ipairs({ G, "" }) do -- after a space first, so those merges rank first
  for _, w in ipairs({ "the", "cat", "sat" }) do
    local cur = head .. w:sub(1, 1)
    if head ~= "" and not vocab[cur] then
      merges[#merges + 1] = string.format('"%s %s"', head, w:sub(1, 1))
      tokid(cur)
    end
    for i = 2, #w do
      merges[#merges + 1] = string.format('"%s %s"', cur, w:sub(i, i))
      cur = cur .. w:sub(i, i)
      tokid(cur)
    end
  end
end
local entries = {}
for t, id in pairs(vocab) do entries[#entries + 1] = string.format('"%s": %d', t, id) end
local tj = os.tmpname()
f = assert(io.open(tj, "w"))
f:write('{"pre_tokenizer": {"type": "ByteLevel", "use_regex": true}, "model": {"type": "BPE", '
  .. '"vocab": {' .. table.concat(entries, ", ") .. '}, "merges": [' .. table.concat(merges, ", ")
  .. ']}}')
f:close()
local tok = assert(sm.tokenizer(tj))
eq(tok:kind(), "bpe", "tokenizer kind")
local ids = tok:encode("the cat.")
check(#ids == 3 and ids[1] == vocab["the"] and ids[2] == vocab[G .. "cat"] and ids[3] == vocab["."],
  "encode 'the cat.': " .. table.concat(ids, " "))
eq(tok:count(tok:prompt(50, 3)), 50, "a prompt of 50 tokens")
eq(tok:prompt(9, 3), tok:prompt(9, 3), "the same seed, the same prompt")
local none, msg = sm.tokenizer("/nonexistent/tokenizer.json")
check(none == nil and msg == "cannot read the tokenizer /nonexistent/tokenizer.json: No such file "
  .. "or directory", "a missing tokenizer: " .. tostring(msg))
o = { input_tokens = "uniform:5:40", prefix_tokens = 4, prefix_groups = 2, tokenizer = tj,
  dataset_sampling = "with", workload_seed = 2 }
eq(workload.validate(o), nil, "--tokenizer with --input-tokens")
items = workload.items(o, 8, 3, { max_tokens = 9 })
for k, item in ipairs(items) do
  check(item.input_tokens >= 5 and item.input_tokens <= 40, "a drawn length " .. k)
  eq(tok:count(item.prompt), item.input_tokens, "item " .. k .. "'s prompt is exact")
end
eq(items[1].prompt:match("^%S+ %S+ %S+ %S+"), items[3].prompt:match("^%S+ %S+ %S+ %S+"),
  "a group's 4 shared tokens")
eq(workload.validate({ tokenizer = tj, prefix_tokens = 0, dataset_sampling = "with" }),
  "--tokenizer goes with --input-tokens or --dataset", "--tokenizer alone")
-- A corpus's words of one and two tokens ("cat." is "cat" and "."), and a word
-- the tokenizer splits in several: a cut of exactly n tokens.
local corpus = {}
for i = 1, 300 do corpus[i] = ({ "the", "cat.", "ecstatic", "the cat" })[i % 4 + 1] end
for _, n in ipairs({ 1, 7, 50, 333 }) do
  for seed = 1, 5 do
    eq(tok:count(workload.cut_exact(tok, corpus, n, seed)), n,
      "a corpus prompt cut to " .. n .. " tokens, seed " .. seed)
  end
end
eq(workload.validate({ dataset_output_tokens = true, prefix_tokens = 0, dataset_sampling = "with" }),
  "--dataset-output-tokens goes with --dataset", "--dataset-output-tokens alone")
eq(workload.validate({ dataset_output_tokens = true, output_tokens = "8", dataset = tj,
  prefix_tokens = 0, dataset_sampling = "with" }),
  "--dataset-output-tokens and --output-tokens exclude each other",
  "--dataset-output-tokens with --output-tokens")
os.remove(tj)

if failed > 0 then
  io.stderr:write(failed, " check(s) failed\n")
  os.exit(1)
end
