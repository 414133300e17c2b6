-- client.lua: the wrk scripts the client-cost benchmark compares with the
-- plugin (tests/bench/run), built by the plugin itself so that they send the
-- very bytes the sweep scenario sends. Run with luajit; SM_PLUGIN_PATH names
-- the folder of sagemaker.so; the AWS credentials come from the environment.
--
--   luajit client.lua prompt BODY_BYTES
--       a prompt whose vllm-chat body (as sweep.lua sends it) has BODY_BYTES bytes
--   luajit client.lua static|request|response HOST ENDPOINT PROMPT_FILE
--       a wrk script sending that request signed now (valid for SageMaker's
--       5-minute window): static: wrk.method, wrk.path, wrk.headers, wrk.body
--       (wrk builds the request once); request: a request() returning it;
--       response: the same with an empty response(), so wrk hands every reply
--       to Lua.
local here = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") or "./"
package.path = here .. "../../lua/?.lua;" .. package.path
local sm = require "sm.plugin"
local run = require "sm.run"

local function fail(msg)
  io.stderr:write("client.lua: ", msg, "\n")
  os.exit(2)
end

-- The request sweep.lua sends with its defaults for prompt, signed now (once a process).
local function signed(host, endpoint, prompt)
  local side = { index = 1, name = endpoint }
  local plan = {
    request = { host = host, region = "us-east-1", service = "sagemaker",
      user_agent = "wrk-sagemaker/" .. sm.version, format = "vllm-chat" },
    sides = { side },
    rounds = { { items = { { side = side, phase = "sweep", prompt = prompt, max_tokens = 256,
      temperature = 0, ignore_eos = true } } } },
  }
  assert(sm.begin(plan, { scenario = "client", threads = 1, progress_s = 0 }))
  local request = assert(sm.hooks(plan, { thread = 0, filler = "" }))
  request() -- wrk's verification call
  return request()
end

local function prompt_for(bytes)
  local overhead = #signed("h", "e", ""):match("\r\n\r\n(.*)$")
  if bytes < overhead then fail("a body needs at least " .. overhead .. " bytes") end
  local words = {}
  local len = -1
  while len < bytes - overhead do
    words[#words + 1] = run.STORY_PROMPT
    len = len + 1 + #run.STORY_PROMPT
  end
  return table.concat(words, " "):sub(1, bytes - overhead)
end

local function wrk_script(mode, raw)
  local head, body = raw:match("^(.-)\r\n\r\n(.*)$")
  if mode ~= "static" then
    local lines = { "local raw = " .. string.format("%q", raw),
      "function request() return raw end" }
    if mode == "response" then lines[#lines + 1] = "function response(status, headers, body) end" end
    return table.concat(lines, "\n") .. "\n"
  end
  local method, path = head:match("^(%S+) (%S+)")
  local lines = { "wrk.method = " .. string.format("%q", method),
    "wrk.path = " .. string.format("%q", path), "wrk.body = " .. string.format("%q", body) }
  for name, value in head:gmatch("\r\n([^:]+): ([^\r]*)") do
    if name ~= "Host" and name ~= "Content-Length" then -- wrk adds both itself
      lines[#lines + 1] = string.format("wrk.headers[%q] = %q", name, value)
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

local mode = arg[1]
if mode == "prompt" and tonumber(arg[2]) then
  io.write(prompt_for(tonumber(arg[2])))
elseif (mode == "static" or mode == "request" or mode == "response") and arg[4] then
  local f = io.open(arg[4], "rb") or fail("cannot read " .. arg[4])
  local prompt = f:read("*a")
  f:close()
  io.write(wrk_script(mode, signed(arg[2], arg[3], prompt)))
else
  fail("usage: luajit client.lua prompt BODY_BYTES | static|request|response HOST ENDPOINT PROMPT_FILE")
end
