-- example.lua: a complete scenario in a page, to copy. It asks each endpoint
-- for a short story --count times and records every reply; add an option, a
-- plan and (optionally) a check of your own.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"

run.scenario({
  name = "example",
  summary = "a short story from each endpoint, --count times",
  usage = "wrk -t1 -c1 -d1h --timeout 60s -s scenarios/example.lua URL -- --endpoint NAME",
  options = {
    { name = "--count", arg = "N", type = "int", min = 1, default = 3, help = "stories per endpoint" },
    { name = "--words", arg = "N", type = "int", min = 1, default = 50, help = "words per story" },
  },
  settings = function(o)
    return { { "count", o.count }, { "words", o.words } }
  end,
  plan = function(o, ctx)
    local items = {}
    for i = 0, o.count - 1 do
      for _, side in ipairs(run.order(ctx.sides, i)) do
        items[#items + 1] = { side = side, batch = i, max_tokens = 2 * o.words,
          prompt = string.format("Tell a story of %d words about a lighthouse.", o.words) }
      end
    end
    return { { items = items } }
  end,
  -- A reply that ran out of tokens is recorded, but not counted as a measurement.
  check = function(item, reply, rec)
    if rec.ok and reply.finish_reason == "length" then
      rec.ok, rec.error_code = false, "too_long"
      rec.error_message = "the story did not end within max_tokens"
    end
  end,
})
