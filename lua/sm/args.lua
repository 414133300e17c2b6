-- sm.args: the scenarios' command-line options (the words after wrk's "--").
--
-- A spec is a list of options: { name = "--repeats", type = "int", default = 5,
-- arg = "N", help = "..." }. Types: "string", "int" (a whole number >= min, 0 by
-- default), "number" (> 0 unless min is given), "bool" (a flag; "--no-NAME"
-- turns it off), "ints" (a comma-separated list of whole numbers >= 1). many =
-- true collects every use into a list. The value lands in the result under the
-- name without dashes, '-' becoming '_'.
local M = {}

local function key(name)
  return (name:gsub("^%-%-", ""):gsub("%-", "_"))
end

local function convert(opt, text)
  if opt.type == "string" then
    if text == "" then return nil, "wants a value" end
    return text
  elseif opt.type == "int" then
    local n = tonumber(text)
    local min = opt.min or 0
    if not n or n ~= math.floor(n) or n < min then
      return nil, string.format("wants a whole number >= %d, got '%s'", min, text)
    end
    return n
  elseif opt.type == "number" then
    local n = tonumber(text)
    if not n or n ~= n or (opt.min and n < opt.min) or (not opt.min and n <= 0) then
      return nil, string.format("wants a number %s, got '%s'",
        opt.min and (">= " .. opt.min) or "> 0", text)
    end
    return n
  elseif opt.type == "numbers" then
    local list = {}
    for part in (text .. ","):gmatch("([^,]*),") do
      local n = tonumber(part)
      if not n or n ~= n or n <= 0 or n == math.huge then
        return nil, string.format("wants numbers > 0 separated by commas, got '%s'", text)
      end
      list[#list + 1] = n
    end
    return list
  elseif opt.type == "ints" then
    local list = {}
    for part in (text .. ","):gmatch("([^,]*),") do
      local n = tonumber(part)
      if not n or n ~= math.floor(n) or n < 1 then
        return nil, string.format("wants whole numbers >= 1 separated by commas, got '%s'", text)
      end
      list[#list + 1] = n
    end
    return list
  end
  error("unknown option type " .. tostring(opt.type))
end

-- Parses words (a list of strings) against spec. Returns the options table, or
-- nil and a one-line message naming the option at fault.
function M.parse(spec, words)
  local by_name, out = {}, {}
  for _, opt in ipairs(spec) do
    by_name[opt.name] = opt
    if opt.many then
      out[key(opt.name)] = {}
    else
      out[key(opt.name)] = opt.default
    end
  end
  local i = 1
  while i <= #words do
    local word = words[i]
    local name, inline = word:match("^(%-%-[^=]+)=(.*)$")
    name = name or word
    local opt, negated = by_name[name], false
    if not opt and name:match("^%-%-no%-") then
      opt = by_name["--" .. name:sub(6)]
      negated = opt ~= nil and opt.type == "bool"
      if not negated then opt = nil end
    end
    if not opt then
      if not word:match("^%-") then
        return nil, string.format("unexpected word '%s' (options start with --; see --help)", word)
      end
      return nil, string.format("unknown option %s (see --help)", name)
    end
    local value
    if opt.type == "bool" then
      if inline then return nil, opt.name .. " takes no value" end
      value = not negated
    else
      local text = inline
      if not text then
        i = i + 1
        text = words[i]
        if not text then return nil, opt.name .. " wants a value" end
      end
      local err
      value, err = convert(opt, text)
      if value == nil then return nil, opt.name .. " " .. err end
    end
    if opt.many then
      table.insert(out[key(opt.name)], value)
    else
      out[key(opt.name)] = value
    end
    i = i + 1
  end
  return out
end

local function default_text(opt)
  local d = opt.default
  if d == nil or opt.many then return "" end
  if opt.type == "bool" then return d and " (default: on)" or " (default: off)" end
  if type(d) == "table" then return " (default: " .. table.concat(d, ",") .. ")" end
  return " (default: " .. tostring(d) .. ")"
end

-- text as lines of at most width characters, each after indent.
local function wrap(text, indent, width)
  local lines, line = {}, indent
  for word in text:gmatch("%S+") do
    if #line > #indent and #line + 1 + #word > width then
      lines[#lines + 1] = line
      line = indent
    end
    line = line .. (#line > #indent and " " or "") .. word
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

-- The help text of spec's options, one block per option.
function M.help(spec)
  local lines = {}
  for _, opt in ipairs(spec) do
    local head = "  " .. opt.name
    if opt.type == "bool" then
      head = "  " .. opt.name .. ", --no-" .. opt.name:sub(3)
    elseif opt.arg then
      head = head .. " " .. opt.arg
    end
    lines[#lines + 1] = head
    lines[#lines + 1] = wrap(opt.help .. default_text(opt), "      ", 90)
  end
  return table.concat(lines, "\n")
end

return M
