-- sm.workload: what a scenario sends besides one fixed prompt. Either prompts
-- from a dataset (sm.dataset: JSON lines of {"prompt": TEXT | "messages": [{role,
-- content}, ...] | "conversations": [...], "max_tokens": N?, "answer": TEXT?}, a
-- ShareGPT JSON list, or a plain text corpus cut into prompts of --input-tokens
-- words), sampled with a seed, with or without replacement; or synthetic prompts whose lengths in tokens are drawn
-- from a distribution (sm.lengths: N, uniform:A:B, normal:MEAN:SD[:MIN:MAX],
-- lognormal:MEAN:SD[:MIN:MAX]), the first --prefix-tokens of them shared within
-- each of --prefix-groups groups (what a prefix cache can reuse). Reply lengths
-- may be drawn the same way (sent as max_tokens with ignore_eos).
--
-- Conversations (--turns T > 1, or --sessions): each item is a conversation of
-- T turns whose bodies carry the history, the earlier user prompts and the
-- replies the server returned (vllm-chat); turn k + 1 leaves --think-time
-- seconds after turn k's reply, on the sender that holds the conversation; with
-- --sessions it is a SageMaker sticky session (NEW_SESSION first, every turn
-- with X-Amzn-SageMaker-Session-Id, CLOSE last). In an open loop the
-- conversations' starts follow the arrivals. Each turn's prompt is drawn as a
-- single request's would be (the dataset's "prompt", or synthetic).
--
-- A synthetic prompt is made of common English words, one token each by the
-- emulator's count and for most tokenizers; a real server adds its chat
-- template's tokens (about 10 for Gemma's): the records' prompt_tokens say what
-- the server counted. With --tokenizer FILE (the model's tokenizer.model or
-- tokenizer.json) a synthetic prompt is exactly --input-tokens tokens by the
-- model's own tokenizer (sm.tokenizer); the template's overhead is then
-- measured from usage.prompt_tokens on the first reply, every later reply is
-- checked against it, and each reply's text is counted against
-- usage.completion_tokens: the run ends with a note saying what was found. A
-- corpus prompt is then cut to exactly --input-tokens tokens, and a dataset's
-- prompts are counted (the note gives their lengths; a one-message prompt's
-- count is what the overhead is measured against). --dataset-output-tokens
-- sends each entry's reply turn's length (ShareGPT's gpt, OpenAI's assistant)
-- as max_tokens with ignore_eos.
local sm = require "sm.plugin"
local run = require "sm.run"
local dataset = require "sm.dataset"

local M = {}

M.options = {
  { name = "--dataset", arg = "FILE", type = "string",
    help = "prompts from FILE: JSON lines of {\"prompt\": TEXT}, {\"messages\": [...]} (OpenAI "
      .. "chat) or {\"conversations\": [...]} (with \"max_tokens\" and \"answer\" optional), "
      .. "a ShareGPT JSON list, or a plain text corpus that --input-tokens words (with "
      .. "--tokenizer: tokens) are cut from" },
  { name = "--dataset-sampling", arg = "with|without", type = "string", default = "with",
    help = "draw the dataset's prompts with or without replacement" },
  { name = "--input-tokens", arg = "DIST", type = "string",
    help = "synthetic prompts of this many tokens: N, uniform:A:B, normal:MEAN:SD[:MIN:MAX] "
      .. "or lognormal:MEAN:SD[:MIN:MAX]" },
  { name = "--output-tokens", arg = "DIST", type = "string",
    help = "reply lengths drawn the same way (max_tokens, sent with ignore_eos)" },
  { name = "--prefix-tokens", arg = "N", type = "int", min = 0, default = 0,
    help = "synthetic prompts: the first N tokens are shared within a group" },
  { name = "--prefix-groups", arg = "G", type = "int", min = 1, default = 1,
    help = "synthetic prompts: the number of groups that share a prefix" },
  { name = "--turns", arg = "T", type = "int", min = 1, default = 1,
    help = "turns per conversation: each turn's body carries the earlier prompts and the "
      .. "replies the server gave (vllm-chat); 1: single requests" },
  { name = "--think-time", arg = "DIST", type = "string", default = "0",
    help = "seconds between a reply and the conversation's next turn: S, uniform:A:B, "
      .. "normal:MEAN:SD[:MIN:MAX] or lognormal:MEAN:SD[:MIN:MAX] (divided by --time-scale)" },
  { name = "--sessions", type = "bool", default = false,
    help = "each conversation is a sticky session (X-Amzn-SageMaker-Session-Id: NEW_SESSION "
      .. "first, CLOSE last); InvokeEndpoint and its stream route" },
  { name = "--tokenizer", arg = "FILE", type = "string",
    help = "the model's tokenizer (SentencePiece tokenizer.model or Hugging Face byte-level BPE "
      .. "tokenizer.json): --input-tokens are exact (a corpus's prompts cut to the token), a "
      .. "--dataset's prompts are counted, the template's overhead is measured from "
      .. "usage.prompt_tokens and reply lengths are checked against usage" },
  { name = "--dataset-output-tokens", type = "bool", default = false,
    help = "each dataset prompt's reply as long as its entry's first gpt (ShareGPT) or "
      .. "assistant (OpenAI chat) turn: its tokens by --tokenizer, else its words, sent as "
      .. "max_tokens with ignore_eos (an entry without one keeps its max_tokens)" },
  { name = "--workload-seed", arg = "N", type = "int", default = 1,
    help = "the seed of the sampling and the lengths" },
}

local WORDS = {
  "the", "of", "and", "to", "in", "is", "was", "for", "on", "that", "with", "as", "at",
  "by", "from", "his", "her", "they", "we", "you", "it", "this", "not", "but", "or",
  "an", "be", "are", "had", "have", "one", "all", "new", "more", "time", "day", "year",
  "people", "city", "water", "light", "house", "road", "world", "small", "long", "old",
  "good", "first", "last", "great", "little", "own", "other", "right", "high", "life",
  "work", "part", "place", "case", "week", "hand", "night",
}


-- The tokenizers this Lua state loaded, by path (one state cannot use another's).
local tokenizers = {}

-- The tokenizer at path, loaded once per state, or nil and a one-line message.
function M.tokenizer(path)
  if not tokenizers[path] then
    local tok, err = sm.tokenizer(path)
    if not tok then return nil, "--tokenizer: " .. err end
    tokenizers[path] = tok
  end
  return tokenizers[path]
end

-- The entries of a dataset file ({corpus = WORDS} for plain text), or nil and
-- a one-line message naming the line or item (sm.dataset).
function M.load(path)
  return dataset.load(path)
end

-- The think-time distribution in seconds as dist.h's words in milliseconds
-- ("1.5" -> "1500", "uniform:0.5:2" -> "uniform:500:2000"), or nil and why.
function M.think_ms_spec(text)
  local head, rest = text:match("^(%a+):(.*)$")
  local parts = {}
  for w in ((head and rest or text) .. ":"):gmatch("([^:]*):") do
    local v = tonumber(w)
    if not v or v < 0 or v > 1000 then
      return nil, "--think-time wants seconds from 0 to 1000 (S, uniform:A:B, normal:MEAN:SD"
        .. "[:MIN:MAX] or lognormal:...), got '" .. text .. "'"
    end
    parts[#parts + 1] = string.format("%d", math.floor(v * 1000 + 0.5))
  end
  return (head and head .. ":" or "") .. table.concat(parts, ":")
end

-- n think times in seconds drawn from the --think-time text with seed, each
-- divided by time_scale; all 0 for "0".
function M.think_times(text, n, seed, time_scale)
  local out = {}
  if tonumber(text) == 0 or n == 0 then
    for k = 1, n do out[k] = 0 end
    return out
  end
  local ms = assert(sm.lengths(assert(M.think_ms_spec(text)), n, seed))
  for k = 1, n do out[k] = ms[k] / 1000 / (time_scale or 1) end
  return out
end

-- Whether a dataset's entries are conversations (one has two user turns or more).
function M.multiturn(data)
  for _, e in ipairs(data) do
    if #e.turns >= 2 then return true end
  end
  return false
end

-- Whether the options ask for conversations.
function M.conversations(o)
  return (o.turns or 1) > 1 or o.sessions == true
end

-- The options of an open loop's arrival process (rate.lua's, chat.lua's).
M.arrival_options = {
  { name = "--arrivals", arg = "constant|poisson|gamma", type = "string", default = "poisson",
    help = "the arrival process" },
  { name = "--burstiness", arg = "B", type = "number", default = 1,
    help = "gamma arrivals: the gaps' shape; below 1 burstier than Poisson, above 1 steadier" },
  { name = "--arrival-seed", arg = "N", type = "int", default = 1,
    help = "the seed the arrival times are drawn from (the same seed, the same schedule)" },
}

-- An open loop's options (rate.lua's, ramp.lua's): the scenario's own, then the
-- arrival process, the reply's length, the prompt, the temperature,
-- end-of-sequence and a workload.
function M.open_loop_options(own)
  local out = {}
  for _, list in ipairs({ own, { M.arrival_options[1], M.arrival_options[2],
    M.arrival_options[3], run.max_tokens_option(128, "tokens per reply"),
    run.prompt_option(run.STORY_PROMPT), run.temperature_option, run.ignore_eos_option },
    M.options }) do
    for _, opt in ipairs(list) do out[#out + 1] = opt end
  end
  return out
end

-- An open loop's settings: the scenario's own (s, appended to), then the arrival
-- process's, the requests' and the workload's.
function M.open_loop_settings(o, ctx, s)
  for _, kv in ipairs({ { "burstiness", o.arrivals == "gamma" and o.burstiness or nil },
    { "arrival_seed", o.arrival_seed }, { "max_concurrency", ctx.threads },
    { "max_tokens", o.max_tokens }, { "prompt", o.prompt }, { "temperature", o.temperature },
    { "ignore_eos", o.ignore_eos } }) do
    s[#s + 1] = kv
  end
  for _, kv in ipairs(M.settings(o)) do s[#s + 1] = kv end
  return s
end

-- An open-loop round of side at arrivals: the workload's items (n of them, drawn
-- from seed) when one is given, else one template sent again and again.
function M.open_loop_rounds(o, ctx, arrivals_of, batch, n, seed)
  local base = { batch = batch, prompt = o.prompt, max_tokens = o.max_tokens,
    temperature = o.temperature, ignore_eos = o.ignore_eos }
  local items = M.given(o) and M.items(o, math.max(1, math.ceil(n)), seed, base)
  local rounds = {}
  for _, side in ipairs(run.order(ctx.sides, batch)) do
    local round = { arrivals = arrivals_of() }
    if items then
      round.items = {}
      for k, item in ipairs(items) do round.items[k] = run.with(item, { side = side }) end
    else
      round.template = run.with(base, { side = side })
    end
    rounds[#rounds + 1] = round
  end
  return rounds
end

-- Checks the arrival options. Returns nil or a message.
function M.validate_arrivals(o)
  if not ({ constant = 1, poisson = 1, gamma = 1 })[o.arrivals] then
    return "--arrivals must be constant, poisson or gamma, got '" .. o.arrivals .. "'"
  end
end

-- Checks the workload options; loads the dataset into o. Returns nil or a message.
function M.validate(o)
  if M.conversations(o) and (o.format or "vllm-chat") ~= "vllm-chat" then
    return "--turns and --sessions need --format vllm-chat (the history is chat messages)"
  end
  if o.think_time and tonumber(o.think_time) ~= 0 then
    local spec, why = M.think_ms_spec(o.think_time)
    if not spec then return why end
    local ok, err = sm.lengths(spec, 0, 0)
    if not ok then return "--think-time: " .. err end
  end
  if o.dataset_sampling ~= "with" and o.dataset_sampling ~= "without" then
    return "--dataset-sampling must be with or without, got '" .. o.dataset_sampling .. "'"
  end
  if o.tokenizer then
    if not o.input_tokens and not o.dataset then
      return "--tokenizer goes with --input-tokens or --dataset"
    end
    local tok, err = M.tokenizer(o.tokenizer)
    if not tok then return err end
  end
  if o.prefix_tokens > 0 and not o.input_tokens then
    return "--prefix-tokens goes with --input-tokens"
  end
  for _, name in ipairs({ "input_tokens", "output_tokens" }) do
    if o[name] then
      local ok, err = sm.lengths(o[name], 0, 0)
      if not ok then return "--" .. name:gsub("_", "-") .. ": " .. err end
    end
  end
  if o.dataset_output_tokens and not o.dataset then
    return "--dataset-output-tokens goes with --dataset"
  end
  if o.dataset_output_tokens and o.output_tokens then
    return "--dataset-output-tokens and --output-tokens exclude each other"
  end
  if o.dataset then
    local data, err = M.load(o.dataset)
    if not data then return err end
    if data.corpus and o.dataset_output_tokens then
      return o.dataset .. ": a plain text corpus has no replies (--dataset-output-tokens takes "
        .. "ShareGPT gpt turns or OpenAI chat assistant messages)"
    end
    if data.corpus then
      if not o.input_tokens or o.prefix_tokens > 0 then
        return o.dataset .. ": a plain text corpus: give --input-tokens (the words of each "
          .. "prompt cut from it), without --prefix-tokens"
      end
      o.workload_corpus = data.corpus
      return nil
    end
    if o.input_tokens then return "--dataset and --input-tokens exclude each other" end
    if o.dataset_output_tokens then
      local any = false
      for _, e in ipairs(data) do any = any or e.reply ~= nil end
      if not any then
        return o.dataset .. ": no entry has a gpt or assistant turn after its first user turn "
          .. "(--dataset-output-tokens)"
      end
    end
    o.workload_data = data
    if M.conversations(o) and M.multiturn(data) then
      local pool = {}
      for _, e in ipairs(data) do
        if #e.turns >= o.turns then pool[#pool + 1] = e end
      end
      if #pool == 0 then
        return string.format("%s: no conversation has %d user turns (--turns)", o.dataset, o.turns)
      end
      o.workload_multiturn = pool
    elseif M.conversations(o) then
      for i, e in ipairs(data) do
        if not e.prompt then
          return string.format("%s: entry %d: --turns takes \"prompt\" entries (each one turn), "
            .. "not \"messages\"", o.dataset, i)
        end
      end
    end
  end
end

-- The settings the result files record.
function M.settings(o)
  return { { "dataset", o.dataset }, { "dataset_sampling", o.dataset and o.dataset_sampling },
    { "input_tokens", o.input_tokens }, { "output_tokens", o.output_tokens },
    { "tokenizer", o.tokenizer },
    { "dataset_output_tokens", o.dataset_output_tokens or nil },
    { "prefix_tokens", o.input_tokens and o.prefix_tokens or nil },
    { "prefix_groups", o.input_tokens and o.prefix_tokens > 0 and o.prefix_groups or nil },
    { "workload_seed", (o.dataset or o.input_tokens or o.output_tokens) and o.workload_seed },
    { "turns", M.conversations(o) and o.turns or nil },
    { "think_time", M.conversations(o) and o.turns > 1 and o.think_time or nil },
    { "sessions", M.conversations(o) and o.sessions or nil } }
end

-- Whether the options ask for a workload at all.
function M.given(o)
  return o.dataset ~= nil or o.input_tokens ~= nil or o.output_tokens ~= nil
    or M.conversations(o)
end

-- n indices of 1..size drawn from seed: with replacement, or without it pass
-- after pass (each entry once before any comes again).
function M.picks(size, n, seed, replace)
  if replace then return assert(sm.sample(size, n, seed, true)) end
  local out, pass = {}, 0
  while #out < n do
    for _, k in ipairs(assert(sm.sample(size, math.min(size, n - #out), seed + pass, false))) do
      out[#out + 1] = k
    end
    pass = pass + 1
  end
  return out
end

-- The words of a synthetic prompt of n tokens drawn from seed, as a list: the one
-- place that says what a token is ("about one token a word"; a tokenizer can
-- later make it exact).
function M.synthetic_words(n, seed)
  local out = {}
  if n <= 0 then return out end
  for i, k in ipairs(sm.sample(#WORDS, n, seed, true)) do out[i] = WORDS[k] end
  return out
end

-- n words drawn from seed, as text.
local function words(n, seed)
  return table.concat(M.synthetic_words(n, seed), " ")
end

-- A prompt of exactly n tokens by tok cut from a corpus's words at a place
-- drawn from seed: the most words from there that are at most n tokens
-- (found by halving), then the tokenizer's single-token words to make up the
-- rest (tokz.h: joined by a space, the counts add up). Checked by counting;
-- when a cut word's end and the filler would merge, fewer words are kept
-- (none at the last: all filler, exact by construction).
function M.cut_exact(tok, corpus, n, seed)
  local text = dataset.cut(corpus, n, seed) -- n words are n tokens at least
  local cut = {}
  for w in text:gmatch("%S+") do cut[#cut + 1] = w end
  local function count(text) return tok:count(text) or math.huge end -- refused: never fits
  local lo, hi = 0, #cut -- lo words fit
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if count(table.concat(cut, " ", 1, mid)) <= n then lo = mid else hi = mid - 1 end
  end
  for k = lo, 0, -1 do
    local head = table.concat(cut, " ", 1, k)
    local got = k > 0 and count(head) or 0
    local fill = n - got > 0 and tok:prompt(n - got, seed + 1) or ""
    local prompt = head .. ((k > 0 and fill ~= "") and " " or "") .. fill
    if k == 0 or (got <= n and count(prompt) == n) then return prompt end
  end
end

-- The tokens of a dataset entry's prompt by tok (an entry of one user message:
-- its text), kept in the entry; nil for a list of messages (its template is
-- more than one message's).
local function entry_tokens(tok, e)
  if e.tokens == nil then
    local m = e.messages
    local text = e.prompt or (m and #m == 1 and type(m[1]) == "table" and m[1].role == "user"
      and type(m[1].content) == "string" and m[1].content)
    e.tokens = text and tok:count(text) or false
  end
  return e.tokens or nil
end

-- The reply length of entry e for --dataset-output-tokens: its reply's tokens
-- by tok, else its words (at least 1), or nil when it has no reply.
local function reply_tokens(tok, e)
  if not e.reply then return nil end
  if e.reply_tokens == nil then
    local n = 0
    if tok then
      n = tok:count(e.reply)
    else
      for _ in e.reply:gmatch("%S+") do n = n + 1 end
    end
    e.reply_tokens = math.max(n, 1)
  end
  return e.reply_tokens
end

-- Adds a prompt of n tokens to the lengths this state counted (o.workload_counted).
local function counted(o, n)
  local c = o.workload_counted or { n = 0, sum = 0 }
  o.workload_counted = c
  c.n, c.sum = c.n + 1, c.sum + n
  c.min, c.max = math.min(c.min or n, n), math.max(c.max or n, n)
end

-- n items' fields (prompt or messages, max_tokens, ignore_eos, answer), the k-th
-- of a round drawn with seed + k; base holds the fields of an item without a
-- workload (prompt, max_tokens, ...), which the workload's replace.
function M.items(o, n, seed, base)
  if M.conversations(o) then return M.conversation_items(o, n, seed, base) end
  local items = {}
  local picks = o.workload_data and M.picks(#o.workload_data, n, seed,
    o.dataset_sampling == "with")
  local inputs = o.input_tokens and assert(sm.lengths(o.input_tokens, n, seed))
  local outputs = o.output_tokens and assert(sm.lengths(o.output_tokens, n, seed + 1))
  local tok = o.tokenizer and assert(M.tokenizer(o.tokenizer))
  for k = 1, n do
    local item = run.with(base, {})
    if picks then
      local e = o.workload_data[picks[k]]
      item.prompt, item.messages, item.answer = e.prompt, e.messages, e.answer
      item.max_tokens = e.max_tokens or item.max_tokens
      item.input_tokens = tok and entry_tokens(tok, e)
      if item.input_tokens then counted(o, item.input_tokens) end
      local reply = o.dataset_output_tokens and reply_tokens(tok, e)
      if reply then item.max_tokens, item.ignore_eos = reply, true end
    elseif inputs and o.workload_corpus and tok then
      item.prompt = M.cut_exact(tok, o.workload_corpus, inputs[k], seed * 1000003 + k)
      item.input_tokens = inputs[k]
    elseif inputs and o.workload_corpus then
      item.prompt = dataset.cut(o.workload_corpus, inputs[k], seed * 1000003 + k)
    elseif inputs then
      local prefix = math.min(o.prefix_tokens, inputs[k])
      local group = (k - 1) % o.prefix_groups
      if tok then
        -- Exact: both parts are single-token words, and a space before a
        -- word keeps it one token (tokz.h).
        item.prompt = tok:prompt(prefix, o.workload_seed * 1000003 + group)
          .. ((prefix > 0 and inputs[k] > prefix) and " " or "")
          .. tok:prompt(inputs[k] - prefix, seed * 1000003 + k)
        item.input_tokens = inputs[k]
      else
        item.prompt = words(prefix, o.workload_seed * 1000003 + group)
          .. (prefix > 0 and " " or "") .. words(inputs[k] - prefix, seed * 1000003 + k)
      end
    end
    if outputs then item.max_tokens, item.ignore_eos = outputs[k], true end
    items[k] = item
  end
  return items
end

-- n conversations of o.turns turns (see above): each the fields of its first
-- turn's item plus turns (the prompts), think_s and session.
function M.conversation_items(o, n, seed, base)
  local single = setmetatable({ turns = 1, sessions = false }, { __index = o })
  local flat = M.items(single, n * o.turns, seed, base)
  local think = M.think_times(o.think_time, n * math.max(o.turns - 1, 0), seed + 2, o.time_scale)
  local multi = o.workload_multiturn and M.picks(#o.workload_multiturn, n, seed + 3,
    o.dataset_sampling == "with")
  local out = {}
  for k = 1, n do
    local item = run.with(flat[(k - 1) * o.turns + 1], { prompt = false })
    item.prompt, item.input_tokens = nil, nil -- the history's template is not one overhead
    item.turns, item.think_s, item.session = {}, {}, o.sessions
    for t = 1, o.turns do item.turns[t] = flat[(k - 1) * o.turns + t].prompt end
    if multi then -- a multi-turn dataset: one conversation's own user turns
      local e = o.workload_multiturn[multi[k]]
      for t = 1, o.turns do item.turns[t] = e.turns[t] end
      item.messages, item.answer = nil, nil
    end
    for t = 1, o.turns - 1 do item.think_s[t] = think[(k - 1) * (o.turns - 1) + t] end
    out[k] = item
  end
  return out
end

-- The check a scenario runs on each reply when a tokenizer makes the prompts
-- exact (nil otherwise): the first reply's usage.prompt_tokens minus the
-- prompt's tokens is the template's overhead; the replies whose overhead
-- differs and whose text is not usage.completion_tokens long are counted, per
-- side (the suffix _S of each global, S the side's index), in globals that
-- finish() reads with thread:get.
-- A conversation's turn (rec.turn) is checked against its own overhead, which
-- grows with the history: its prompt_tokens minus the tokens of the user
-- prompts so far and of the replies before it (each counted by the tokenizer,
-- as the server counts each message) is turn T's overhead, in the globals
-- with the suffix _S_T.
local conv_sums = setmetatable({}, { __mode = "k" }) -- a conversation's item: its tokens so far

local function check_turn(o, item, reply, rec)
  local tok, t, g = M.tokenizer(o.tokenizer), rec.turn, _G
  if t == 1 then conv_sums[item] = 0 end
  local sum = conv_sums[item]
  local user = item.turns and item.turns[t] and tok and tok:count(item.turns[t])
  if not sum or not user or not rec.ok then
    conv_sums[item] = nil -- a turn lost: the rest of this conversation is not measured
    return
  end
  local s = "_" .. item.side.index .. "_" .. t
  if reply.prompt_tokens then
    local over = reply.prompt_tokens - sum - user
    if not g["sm_tok_turn_over" .. s] then g["sm_tok_turn_over" .. s] = over end
    g["sm_tok_turn_replies" .. s] = (g["sm_tok_turn_replies" .. s] or 0) + 1
    if over ~= g["sm_tok_turn_over" .. s] then
      g["sm_tok_turn_differ" .. s] = (g["sm_tok_turn_differ" .. s] or 0) + 1
    end
  end
  local said = reply.text and tok:count(reply.text)
  conv_sums[item] = said and sum + user + said or nil
end

function M.check_of(o)
  if not o.tokenizer then return nil end
  return function(item, reply, rec)
    if rec.turn and M.conversations(o) then check_turn(o, item, reply, rec) end
    if not item.input_tokens or not rec.ok then return end
    local s, g = "_" .. item.side.index, _G
    if reply.prompt_tokens then
      local over = reply.prompt_tokens - item.input_tokens
      if not g["sm_tok_overhead" .. s] then
        g["sm_tok_overhead" .. s], g["sm_tok_first" .. s] = over, reply.prompt_tokens
        g["sm_tok_first_input" .. s] = item.input_tokens
      end
      g["sm_tok_replies" .. s] = (g["sm_tok_replies" .. s] or 0) + 1
      if over ~= g["sm_tok_overhead" .. s] then
        g["sm_tok_differ" .. s] = (g["sm_tok_differ" .. s] or 0) + 1
      end
    end
    local tok = reply.completion_tokens and reply.text and M.tokenizer(o.tokenizer)
    if tok then
      local n = tok:count(reply.text)
      g["sm_tok_outputs" .. s] = (g["sm_tok_outputs" .. s] or 0) + 1
      if n ~= reply.completion_tokens then
        g["sm_tok_out_differ" .. s] = (g["sm_tok_out_differ" .. s] or 0) + 1
      end
    end
  end
end

-- What the threads' checks found for side index (1-based): the first thread's
-- overhead with its reply and prompt, and the counts; nil when no reply said
-- usage.prompt_tokens.
local function found(threads, index)
  local s = "_" .. index
  local f = { replies = 0, differ = 0, outputs = 0, out_differ = 0 }
  for _, t in ipairs(threads) do
    local v = t:get("sm_tok_overhead" .. s)
    if v and not f.over then
      f.over, f.first, f.input = v, t:get("sm_tok_first" .. s), t:get("sm_tok_first_input" .. s)
    elseif v and v ~= f.over then
      f.differ = f.differ + 1 -- another thread's first reply
    end
    f.replies = f.replies + (t:get("sm_tok_replies" .. s) or 0)
    f.differ = f.differ + (t:get("sm_tok_differ" .. s) or 0)
    f.outputs = f.outputs + (t:get("sm_tok_outputs" .. s) or 0)
    f.out_differ = f.out_differ + (t:get("sm_tok_out_differ" .. s) or 0)
  end
  return f.over and f or nil
end

-- A conversation's overhead per turn for side index: a list of {tokens,
-- replies, replies_differing} (tokens nil where no reply of that turn said
-- usage.prompt_tokens), or nil for single requests.
local function per_turn(o, threads, index)
  if not M.conversations(o) then return nil end
  local out = {}
  for turn = 1, o.turns do
    local s = "_" .. index .. "_" .. turn
    local f = { replies = 0, replies_differing = 0 }
    for _, t in ipairs(threads) do
      local v = t:get("sm_tok_turn_over" .. s)
      if v and not f.tokens then
        f.tokens = v
      elseif v and v ~= f.tokens then
        f.replies_differing = f.replies_differing + 1
      end
      f.replies = f.replies + (t:get("sm_tok_turn_replies" .. s) or 0)
      f.replies_differing = f.replies_differing + (t:get("sm_tok_turn_differ" .. s) or 0)
    end
    out[turn] = f
  end
  return out
end

-- Before the result files are written: each side's measured overhead into its
-- file's head (template_overhead, docs/result-format.md). Returns nil or a message.
function M.record(ctx, threads)
  if not ctx.o.tokenizer then return nil end
  for i in ipairs(ctx.sides) do
    local f, turns = found(threads, i), per_turn(ctx.o, threads, i)
    local v = f and { tokens = f.over, first_prompt_tokens = f.first,
      exact_tokens = f.input, replies = f.replies, replies_differing = f.differ,
      reply_texts = f.outputs, reply_texts_differing = f.out_differ } or {}
    v.per_turn = turns
    if f or turns then
      v.tokenizer = ctx.o.tokenizer:match("[^/]*$")
      local ok, err = sm.set_template(i, v)
      if not ok then return err end
    end
  end
end

-- What the checks found, as notes on stderr (name: the scenario's).
function M.finish(name, o, threads, sides)
  if not o.tokenizer then return end
  local c = o.workload_counted
  if c and o.dataset and not o.workload_corpus then
    io.stderr:write(string.format("%s: note: dataset prompts by %s: %d of them, %d to %d tokens "
      .. "(mean %.1f) before the template\n", name, o.tokenizer, c.n, c.min, c.max, c.sum / c.n))
  end
  for i, side in ipairs(sides) do
    local f = found(threads, i)
    local who = #sides > 1 and " (" .. side.label .. ")" or ""
    for turn, t in ipairs(per_turn(o, threads, i) or {}) do
      io.stderr:write(string.format("%s: note: template overhead%s, turn %d: %s; %d of %d "
        .. "replies differ from it\n", name, who, turn,
        t.tokens and t.tokens .. " tokens" or "not measured", t.replies_differing, t.replies))
    end
    if not f and M.conversations(o) then
      -- a conversation's first turn is in its per-turn line
    elseif not f then
      io.stderr:write(name, ": note: template overhead", who, " not measured: no reply said "
        .. "usage.prompt_tokens\n")
    else
      io.stderr:write(string.format("%s: note: template overhead%s: %d tokens "
        .. "(usage.prompt_tokens %d for a prompt of exactly %d by %s); %d of %d replies differ "
        .. "from it\n", name, who, f.over, f.first, f.input, o.tokenizer, f.differ, f.replies))
      if f.outputs > 0 then
        io.stderr:write(string.format("%s: note: reply lengths%s: %d of %d replies' texts are "
          .. "not usage.completion_tokens long by the tokenizer\n", name, who, f.out_differ,
          f.outputs))
      end
    end
  end
end

return M
