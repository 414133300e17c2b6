-- quiz.lua: the exact-answer quiz of the reference method. Each question is
-- asked at temperature 0; the reply, stripped of surrounding white space, is
-- correct when the question's pattern (Python-style regular expression) is
-- found in it.
local dir = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$")
package.path = dir .. "../lua/?.lua;" .. package.path
local run = require "sm.run"
local sm = run.sm

local quiz -- the loaded quiz: {path, sha256, questions}

local function load_quiz(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, "cannot read the quiz: " .. err end
  local text = f:read("*a")
  f:close()
  local data = sm.json_decode(text)
  if type(data) ~= "table" or type(data.questions) ~= "table" or #data.questions == 0 then
    return nil, path .. " is not a quiz file (an object with a non-empty \"questions\" list)"
  end
  for i, q in ipairs(data.questions) do
    for _, field in ipairs({ "id", "prompt", "answer", "pattern" }) do
      if type(q[field]) ~= "string" then
        return nil, string.format("%s: question %d has no string \"%s\"", path, i, field)
      end
    end
  end
  return { path = path, sha256 = sm.sha256_hex(text), questions = data.questions }
end

run.scenario({
  name = "quiz",
  summary = "exact-answer quiz: each question once per endpoint, scored by regular expression",
  usage = "wrk -t1 -c1 -d1h --timeout 60s -s scenarios/quiz.lua URL -- --endpoint NAME [options]",
  options = {
    { name = "--quiz", arg = "FILE", type = "string",
      default = dir .. "quiz-compare-py-40.json",
      help = "the quiz file: {\"questions\": [{id, kind, prompt, answer, pattern}, ...]}" },
    run.max_tokens_option(64),
    run.temperature_option,
  },
  validate = function(o)
    local err
    quiz, err = load_quiz(o.quiz)
    return err
  end,
  settings = function(o)
    return { { "quiz", o.quiz:match("[^/]*$") }, { "quiz_sha256", quiz.sha256 },
      { "questions", #quiz.questions }, { "max_tokens", o.max_tokens },
      { "temperature", o.temperature } }
  end,
  plan = function(o, ctx)
    local items = {}
    for k, q in ipairs(quiz.questions) do
      for _, side in ipairs(run.order(ctx.sides, k - 1)) do
        items[#items + 1] = { side = side, question = q.id, kind = q.kind, prompt = q.prompt,
          answer = q.answer, pattern = q.pattern, max_tokens = o.max_tokens,
          temperature = o.temperature }
      end
    end
    return { { items = items } }
  end,
})
