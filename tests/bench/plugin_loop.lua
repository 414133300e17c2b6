-- plugin_loop.lua: what sweep.lua's request() and response() do per request
-- (sm.hooks: the next item, its signed request, the reply parsed, checked and
-- journalled), in a loop outside wrk and the network. A benchmark, not a test. Run with
-- luajit; SM_PLUGIN_PATH names the folder of sagemaker.so; credentials from the
-- environment.
--
--   luajit plugin_loop.lua REPLY_FILE [SECONDS]   -> "plugin_calls_us N"
local here = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") or "./"
package.path = here .. "../../lua/?.lua;" .. package.path
local sm = require "sm.plugin"

local f = assert(io.open(assert(arg[1], "usage: plugin_loop.lua REPLY_FILE [SECONDS]"), "rb"))
local body = f:read("*a")
f:close()
local seconds = tonumber(arg[2] or "1")
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir) == 0)

local side = { index = 1, name = "bench" }
local plan = {
  request = { host = "127.0.0.1:1", region = "us-east-1", service = "sagemaker",
    user_agent = "wrk-sagemaker/" .. sm.version, format = "raw", raw_body = "{}" },
  sides = { side },
  rounds = { { template = { side = side, phase = "sweep", max_tokens = 256 }, duration_s = 1e6 } },
}
local run = assert(sm.begin(plan, { scenario = "loop", threads = 1, progress_s = 0 }))
assert(sm.add_file(dir .. "/loop.json", { scenario = "loop", run_id = run.run_id, label = "loop",
  endpoint = { name = "bench" }, target = {}, wrk = {}, settings = {} }))
local request, response = assert(sm.hooks(plan, { thread = 0, filler = "" }))
request() -- wrk's verification call
-- The headers wrk hands to response(), as sm-emulator sends them.
local headers = { ["Content-Type"] = "application/json", ["Content-Length"] = tostring(#body),
  Date = os.date("!%a, %d %b %Y %H:%M:%S GMT"), ["x-amzn-RequestId"] = "0",
  ["x-Amzn-Invoked-Production-Variant"] = "AllTraffic" }

local n, start = 0, os.clock()
while os.clock() - start < seconds do
  for _ = 1, 1000 do
    assert(#request() > 0) -- a signed request, never the filler
    response(200, headers, body)
  end
  n = n + 1000
end
io.write(string.format("plugin_calls_us %.3f\n", (os.clock() - start) / n * 1e6))
os.execute("rm -rf " .. dir) -- no result file: its journal is all it would copy
