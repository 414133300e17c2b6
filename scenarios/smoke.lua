-- smoke.lua: one request per endpoint, and its reply printed: the first thing
-- to run against a new endpoint.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local sm = require "sm.plugin"

run.scenario({
  name = "smoke",
  summary = "one request per endpoint; prints each reply",
  usage = "wrk -t1 -c1 -d1m --timeout 60s -s scenarios/smoke.lua URL -- --endpoint NAME [options]",
  options = {
    run.prompt_option("What is the capital of Australia? Answer in one word."),
    run.max_tokens_option(64),
    run.temperature_option,
  },
  settings = function(o)
    return { { "prompt", o.prompt }, { "max_tokens", o.max_tokens },
      { "temperature", o.temperature } }
  end,
  plan = function(o, ctx)
    local items = {}
    for _, side in ipairs(ctx.sides) do
      items[#items + 1] = { side = side, prompt = o.prompt, max_tokens = o.max_tokens,
        temperature = o.temperature }
    end
    return { { items = items } }
  end,
  -- Keeps each side's reply where done() can fetch it (thread:get).
  check = function(item, reply, rec)
    local line = string.format("%s: %d %s, %.3f s", item.side.label, rec.status,
      rec.ok and string.format("%s prompt + %s completion tokens, %s",
        tostring(reply.prompt_tokens), tostring(reply.completion_tokens),
        tostring(reply.finish_reason)) or (rec.error_code .. ": " .. rec.error_message),
      (rec.t_end_us - rec.t_start_us) / 1e6)
    sm_smoke = (sm_smoke or "") .. line .. "\n" .. (reply.text or "") .. "\n"
  end,
  finish = function(outcome, ctx, threads)
    for _, thread in ipairs(threads) do
      local text = thread:get("sm_smoke")
      if text then io.stdout:write(sm.tty_text(text)) end -- a server's text, escaped
    end
  end,
})
