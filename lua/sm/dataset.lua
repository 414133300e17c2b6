-- sm.dataset: the prompt files --dataset reads, told apart by their first byte
-- that is not white space:
--   '['   ShareGPT JSON: a list of {"conversations": [{"from": "human" | "gpt" |
--         ..., "value": TEXT}, ...]} ("user"/"assistant" taken for human/gpt);
--   '{'   JSON lines: {"prompt": TEXT}, {"messages": [{role, content}, ...]}
--         (OpenAI chat) or {"conversations": [...]} (ShareGPT), with
--         "max_tokens" and "answer" optional;
--   else  a plain text corpus to cut prompts from (--input-tokens words each,
--         from a seeded place).
-- An entry is {prompt = TEXT} or {messages = LIST}, with max_tokens, answer,
-- turns (its user texts in order: a multi-turn entry's conversation) and reply
-- (the text of the first gpt or assistant turn after the first user turn, when
-- there is one: what --dataset-output-tokens takes its length from).
local sm = require "sm.plugin"

local M = {}

M.MAX_BYTES = 256 * 1024 * 1024

-- An entry's user texts of an OpenAI messages list (string contents only), and
-- the first assistant text after the first of them.
local function user_texts(messages)
  local turns, reply = {}, nil
  for _, m in ipairs(messages) do
    if type(m) == "table" and m.role == "user" and type(m.content) == "string" then
      turns[#turns + 1] = m.content
    elseif type(m) == "table" and m.role == "assistant" and type(m.content) == "string"
      and #turns > 0 and not reply then
      reply = m.content
    end
  end
  return turns, reply
end

-- A ShareGPT conversation as an entry (its first human text the prompt), or nil and why.
local function sharegpt(conv)
  local turns, reply = {}, nil
  for _, m in ipairs(conv) do
    if type(m) ~= "table" or type(m.value) ~= "string" or type(m.from) ~= "string" then
      return nil, "a \"conversations\" item without a \"from\" and a \"value\" string"
    end
    if m.from == "human" or m.from == "user" then
      turns[#turns + 1] = m.value
    elseif (m.from == "gpt" or m.from == "assistant") and #turns > 0 and not reply then
      reply = m.value
    end
  end
  if #turns == 0 then return nil, "a conversation without a \"human\" turn" end
  return { prompt = turns[1], turns = turns, reply = reply }
end

-- One JSON object of a dataset as an entry, or nil and why.
function M.entry(obj)
  if type(obj) ~= "table" then return nil, "is not a JSON object" end
  local e, why
  if type(obj.prompt) == "string" then
    e = { prompt = obj.prompt, turns = { obj.prompt } }
  elseif type(obj.messages) == "table" and #obj.messages > 0 then
    e = { messages = obj.messages }
    e.turns, e.reply = user_texts(obj.messages)
  elseif type(obj.conversations) == "table" then
    e, why = sharegpt(obj.conversations)
    if not e then return nil, why end
  else
    return nil, "needs a \"prompt\" string, a non-empty \"messages\" list or \"conversations\""
  end
  if obj.max_tokens ~= nil then
    local n = obj.max_tokens
    if type(n) ~= "number" or n < 1 or n ~= math.floor(n) then
      return nil, "\"max_tokens\" must be a whole number from 1"
    end
    e.max_tokens = n
  end
  if obj.answer ~= nil and type(obj.answer) ~= "string" then
    return nil, "\"answer\" must be a string"
  end
  e.answer = obj.answer
  return e
end

-- The words of a plain text corpus, or nil and why.
local function corpus(path, text)
  local words = {}
  for w in text:gmatch("%S+") do words[#words + 1] = w end
  if #words == 0 then return nil, path .. ": no words (a plain text corpus)" end
  return words
end

-- What path holds: entries (a list), or {corpus = WORDS}; or nil and a one-line
-- message naming the file and the line or item.
function M.load(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, "cannot read the dataset: " .. err end
  local size = f:seek("end")
  f:seek("set")
  if size > M.MAX_BYTES then
    f:close()
    return nil, string.format("%s: %d bytes, more than a dataset may have (256 MiB)", path, size)
  end
  local text = f:read("*a")
  f:close()
  local first = text:match("^%s*(.)")
  local entries = {}
  if first == "[" then
    local list = sm.json_decode(text)
    if type(list) ~= "table" then return nil, path .. ": not a JSON list (ShareGPT)" end
    for i, obj in ipairs(list) do
      local e, why = M.entry(obj)
      if not e then return nil, string.format("%s: item %d: %s", path, i, why) end
      entries[#entries + 1] = e
    end
  elseif first == "{" then
    local n = 0
    for line in (text:sub(-1) == "\n" and text or text .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      if line:match("%S") then
        local e, why = M.entry(sm.json_decode(line))
        if not e then return nil, string.format("%s:%d: %s", path, n, why) end
        entries[#entries + 1] = e
      end
    end
  else
    local words, why = corpus(path, text)
    if not words then return nil, why end
    return { corpus = words }
  end
  if #entries == 0 then return nil, path .. ": no prompts" end
  return entries
end

-- n words of a corpus from a place drawn from seed (round the end to the start).
function M.cut(words, n, seed)
  local at = assert(sm.sample(#words, 1, seed, true))[1]
  local out = {}
  for i = 0, n - 1 do out[i + 1] = words[(at - 1 + i) % #words + 1] end
  return table.concat(out, " ")
end

return M
