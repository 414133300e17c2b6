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

-- sm.run helpers.
eq(table.concat(run.order({ "A", "B" }, 0), ""), "AB", "order 0")
eq(table.concat(run.order({ "A", "B" }, 1), ""), "BA", "order 1")
eq(table.concat(run.order({ "A", "B", "C" }, 2), ""), "CAB", "order of three")
eq(run.json(run.ordered({ { "z", 1 }, { "a", run.ordered({ { "y", "s" }, { "n", nil } }) },
  { "l", { 16, 512 } } })), '{"z":1,"a":{"y":"s","n":null},"l":[16,512]}', "ordered JSON")

-- The module's pure functions.
local v = sm.json_decode('{"a":[1,"x",true,null],"b":{"c":2.5}}')
eq(v.a[2], "x", "json_decode string")
eq(v.a[4], sm.null, "json_decode null")
eq(v.b.c, 2.5, "json_decode number")
eq(select(2, sm.json_decode("{x")), "not valid JSON near byte 2", "json_decode error")
eq(sm.json_encode({ 1, 2 }), "[1,2]", "json_encode list")
eq(select(2, sm.json_encode({ f = print })),
  "a value JSON cannot hold (function, userdata or thread)", "json_encode error")
eq(sm.strip("\n  Canberra \r\n"), "Canberra", "strip")
eq(sm.sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256")
eq(sm.regex("(?i)\\bBras[ií]lia\\b"):search("Brasília."), true, "regex")
eq(sm.regex("\\b1512\\b"):search("15120"), false, "regex no match")
eq(select(2, sm.regex("(")), "offset 1: missing closing parenthesis", "bad regex")
eq(sm.body("vllm-completions", { prompt = "x", max_tokens = 4, ignore_eos = true,
  extra = '{"model":"m"}' }), '{"prompt":"x","max_tokens":4,"ignore_eos":true,"model":"m"}', "body")
eq(select(2, sm.body("tgi", { prompt = "x", ignore_eos = true })),
  "the tgi format has no ignore_eos",
  "body error")
eq(select(2, sm.body("nope", { prompt = "x" })), "unknown body format", "body format")
local r = sm.parse_reply(200, {}, '{"choices":[{"text":"hi","finish_reason":"length"}],'
  .. '"usage":{"prompt_tokens":3,"completion_tokens":16}}')
eq(r.text, "hi", "reply text")
eq(r.completion_tokens, 16, "reply tokens")
eq(r.error_code, nil, "reply ok")
r = sm.parse_reply(403, { ["X-Amzn-ErrorType"] = "InvalidSignatureException:x",
  Date = os.date("!%a, %d %b %Y %H:%M:%S GMT", os.time() + 600) },
  '{"message":"Signature expired: 20251130T102846Z is now earlier than 20251130T103346Z"}')
eq(r.error_code, "InvalidSignatureException", "reply error code, header in any case")
check(r.skew_offset and math.abs(r.skew_offset - 600) <= 2, "skew offset from the Date header")
eq(sm.parse_reply(429, {}, "").skew_offset, nil, "no skew for other errors")
eq(sm.journal_path("results/x.json"), "results/x.journal.jsonl", "journal path")
eq(sm.iso8601(1796035639023045), "2026-11-30T10:47:19.023045Z", "iso8601")

-- wrk's command line, from a file shaped like /proc/self/cmdline.
local path = os.tmpname()
local f = assert(io.open(path, "wb"))
f:write(table.concat({ "wrk", "-t2", "-c2", "-d", "1h", "--timeout", "60s", "-s", "x.lua",
  "http://h", "--", "--endpoint", "a" }, "\0") .. "\0")
f:close()
local wa = assert(sm.wrk_args(path))
os.remove(path)
eq(wa.threads, 2, "wrk threads")
eq(wa.duration_s, 3600, "wrk duration")
eq(wa.timeout_s, 60, "wrk timeout")
eq(wa.duration_set, true, "wrk duration given")
eq(wa.url, "http://h", "wrk url")
eq(table.concat(wa.args, " "), "--endpoint a", "wrk script args")
check(not sm.is_main_state() == false, "the first state to load is the main state")

-- wrk's hooks (sm.hooks): request() signs the next item of the schedule (a retry
-- first), response() records what came back at once (the journal has it), or
-- hands the reply and its record to a scenario's check first.
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir) == 0)
assert(sm.begin({ scenario = "test", threads = 1, rounds = { { items = 9 } }, progress_s = 0 }))
local file = assert(sm.add_file(dir .. "/r.json", dir .. "/r.journal.jsonl", '{"label":"x"}'))
local function journal()
  return assert(io.open(dir .. "/r.journal.jsonl")):read("*a")
end
local function item(body, call)
  return { call = assert(sm.call(call)), req = assert(sm.request({ method = "POST",
    target = "/endpoints/e/invocations", host = "h", region = "us-east-1",
    service = "sagemaker", body = body })) }
end
local quiz_re = assert(sm.regex("\\bCanberra\\b"))
local decode = { file = file, endpoint = "e", phase = "decode", max_tokens = 16,
  expect_tokens = 16, ignore_eos = true }
local items = {
  item("q1", { file = file, thread = 2, endpoint = "e", variant = "v", phase = "quiz", batch = 1,
    question = "q1", kind = "cap", max_tokens = 8, answer = "Canberra", regex = quiz_re }),
  item("d2", decode), item("d3", decode), item("d4", decode), item("d5", decode),
}
local rounds = { { items = items } }
quiz_re = nil
collectgarbage() -- the call keeps its pattern alive
-- Misuse raises, naming what is wrong.
for _, case in ipairs({
  { { { items = { 1 } } }, { filler = "F" }, "each item must be a table" },
  { { { items = { {} } } }, { filler = "F" }, "sagemaker.request expected" },
  { rounds, { filler = 1 }, "filler must be a string" },
  { rounds, { filler = "F", check = 1 }, "check must be a function" },
  { { 1 }, { filler = "F" }, "each round must be a table" },
}) do
  local ok, err = pcall(sm.hooks, case[1], case[2])
  check(not ok and tostring(err):find(case[3], 1, true), "hooks misuse: " .. case[3] .. ": " .. tostring(err))
end
local request, response = sm.hooks(rounds, { thread = 0, filler = "FILLER" })
items[2] = nil
collectgarbage() -- the hooks keep their items, requests and calls alive
eq(request(), "FILLER", "hooks: thread 0's first call, from the main OS thread, is wrk's check")
local function sent(body)
  local raw = request()
  check(raw:find("^POST /endpoints/e/invocations HTTP/1.1\r\n") and raw:sub(-#body) == body,
    "hooks: the request of " .. body .. ": " .. raw)
end
sent("q1")
local body = '{"choices":[{"message":{"content":" Canberra\\n"},"finish_reason":"stop"}],'
  .. '"usage":{"prompt_tokens":9,"completion_tokens":2}}'
response(200, { ["Content-Length"] = tostring(#body) }, body)
check(journal():find('"seq":0,"thread":2,"endpoint":"e","variant":"v","phase":"quiz","batch":1,'
  .. '"question":"q1","kind":"cap","max_tokens":8,"prompt_tokens":9,"completion_tokens":2,'
  .. '"finish_reason":"stop","status":200,"ok":true,"error":null,"t_start_us":', 1, true),
  "hooks: the record is in the journal at once: " .. journal())
check(journal():find('"text":"Canberra","answer":"Canberra","correct":true}\n', 1, true),
  "hooks: the quiz fields")
response(200, {}, body) -- a filler's reply: nothing on the wire, nothing recorded
sent("d2")
sent("d3") -- no reply came for d2: wrk reconnected and asks again
check(journal():find('"seq":1,[^\n]*"status":0,"ok":false,"error":{"code":"socket"'),
  "hooks: no reply is a socket error: " .. journal())
local expired = '{"message":"Signature expired: 20261130T100000Z is now earlier than '
  .. '20261130T101000Z (20261130T101500Z - 5 min.)"}'
local server = os.date("!%a, %d %b %Y %H:%M:%S GMT", os.time() + 900)
response(403, { ["x-amzn-ErrorType"] = "InvalidSignatureException:x", date = server }, expired)
sent("d3") -- a refused signing time: the same item again, signed with the server's clock
sm.set_skew(0)
response(200, {}, body)
check(select(2, journal():gsub("\"seq\":", "")) == 4, "hooks: four records: " .. journal())

local seen = {}
rounds = { { items = { items[1], items[1], items[1], items[4], items[4] } } } -- items[2] is gone
request, response = sm.hooks(rounds, { thread = 0, filler = "FILLER", check = function(it, reply, rec)
  seen = { item = it, text = reply.text, code = rec.error_code, message = rec.error_message }
  rec.error_message = "checked"
  it.req, it.call = nil, nil -- the hooks keep them alive all the same
end })
eq(request(), "FILLER", "check: wrk's check again")
sent("d4")
response(200, {}, body)
eq(seen.item, items[4], "check: the item")
eq(seen.text, " Canberra\n", "check: the reply's text")
eq(seen.code, "token_mismatch", "check: the token check")
eq(seen.message, "the container ignored ignore_eos: asked 16, got 2", "check: its message")
check(journal():find('"seq":4,[^\n]*"error":{"code":"token_mismatch","message":"checked"}'),
  "check: the record as the check left it: " .. journal())
collectgarbage()
sent("d4")
response(200, {}, body)
local out = assert(sm.finish())
eq(out.files[1].sent, 6, "every record counts")
os.execute("rm -rf " .. dir)

-- A signed request: the same string while the signature holds.
local req = assert(sm.request({ method = "POST", target = "/endpoints/e/invocations", host = "h",
  region = "us-east-1", service = "sagemaker", body = "{}" }))
assert(sm.begin({ scenario = "test", threads = 1, rounds = { { items = 1 } }, progress_s = 0 }))
local raw1, raw2 = assert(req:raw()), assert(req:raw())
eq(raw1, raw2, "raw: the same request within a second")
check(raw1:find("^POST /endpoints/e/invocations HTTP/1.1\r\nHost: h\r\n"), "raw: the request")
local t0, wall0 = sm.clock()
local _, t, wall = req:raw()
local t1, wall1 = sm.clock()
check(t0 <= t and t <= t1 and wall0 <= wall and wall <= wall1, "raw: the clocks when it leaves")
sm.finish()

if failed > 0 then
  io.stderr:write(failed, " check(s) failed\n")
  os.exit(1)
end
