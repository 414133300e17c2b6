-- sm.target: where requests go. The URL wrk was given, the region, and the
-- run's sides: each (endpoint, variant, inference component) measured, with
-- the label that names its result file. The naming rules are the C module's
-- (common/smname.h), the same for every program.
local sm = require "sm.plugin"

local M = {}

-- Splits "scheme://host[:port][/path]" into {scheme, host, port, path, origin,
-- host_header}; nil and a message when it is not such a URL.
function M.parse_url(url)
  local scheme, rest = url:match("^(https?)://(.*)$")
  if not scheme then return nil, "wants an http:// or https:// URL, got '" .. url .. "'" end
  local authority, path = rest:match("^([^/]*)(.*)$")
  local host, port = authority:match("^(%[[^%]]+%]):?(%d*)$")
  if not host then host, port = authority:match("^([^:]+):?(%d*)$") end
  if not host or host == "" then return nil, "has no host: '" .. url .. "'" end
  if port == "" then port = nil end
  local host_header = port and (host .. ":" .. port) or host
  return {
    scheme = scheme,
    host = host,
    port = port,
    path = path ~= "" and path or "/",
    origin = scheme .. "://" .. host_header,
    host_header = host_header,
  }
end

-- The region of a SageMaker Runtime host (runtime.sagemaker.REGION.amazonaws.com,
-- runtime-fips.sagemaker..., .amazonaws.com.cn), or nil.
M.region_of = sm.region_of

-- The region to sign for: the host's, or --region (which must then agree).
function M.region(url, given)
  local from_host = M.region_of(url.host)
  if given and from_host and given ~= from_host then
    return nil, string.format("--region %s does not match the URL's region %s", given, from_host)
  end
  if given or from_host then return given or from_host end
  return nil, string.format("%s is not a SageMaker Runtime URL "
    .. "(https://runtime.sagemaker.REGION.amazonaws.com): pass --region", url.origin)
end

-- SageMaker's rule for endpoint names: ^[a-zA-Z0-9](-*[a-zA-Z0-9])*, at most 63.
M.valid_endpoint = sm.endpoint_ok

local function split_label(text)
  local name, label = text:match("^(.-)=(.*)$")
  if name then return name, label end
  return text, nil
end

local function spread(list, n, what)
  if #list == 0 or #list == 1 or #list == n then return true end
  return nil, string.format("%s is given %d times for %d sides: give it once (for all) "
    .. "or once per side", what, #list, n)
end

local function pick(list, i)
  if #list == 0 then return nil end
  return list[#list == 1 and 1 or i]
end

local function differ(sides, field)
  for i = 2, #sides do
    if sides[i][field] ~= sides[1][field] then return true end
  end
  return false
end

-- The sides of a run from the options (endpoint, variant, inference_component,
-- label: lists of strings, each given once or once per side; a component "-"
-- is none, for a side beside one with a component) and the URL's path
-- (/endpoints/NAME/invocations names the endpoint when no --endpoint does).
-- Returns a list of {name, variant, component, label}, or nil and a message.
function M.sides(o, url)
  local endpoints, variants, components = {}, {}, {}
  local labels = {}
  for _, e in ipairs(o.endpoint) do endpoints[#endpoints + 1] = { split_label(e) } end
  for _, v in ipairs(o.variant) do variants[#variants + 1] = { split_label(v) } end
  for _, c in ipairs(o.inference_component) do components[#components + 1] = { split_label(c) } end
  if #endpoints == 0 then
    local from_path = url.path:match("^/endpoints/([^/]+)/invocations$")
    if not from_path then
      return nil, "no endpoint: pass --endpoint NAME (the SageMaker endpoint to call)"
    end
    endpoints[1] = { from_path }
  end
  local n = math.max(#endpoints, #variants, #components)
  for _, check in ipairs({ { endpoints, "--endpoint" }, { variants, "--variant" },
    { components, "--inference-component" }, { o.label, "--label" } }) do
    local ok, err = spread(check[1], n, check[2])
    if not ok then return nil, err end
  end
  local sides = {}
  for i = 1, n do
    local e, v, c = pick(endpoints, i), pick(variants, i), pick(components, i)
    -- "-" names no component: the side of a run whose other side has one
    local side = { index = i, name = e[1], variant = v and v[1],
      component = c and c[1] ~= "-" and c[1] or nil }
    if not M.valid_endpoint(side.name) then
      return nil, string.format("'%s' is not a SageMaker endpoint name "
        .. "(letters, digits and '-', at most 63)", side.name)
    end
    labels[i] = (#o.label > 0 and pick(o.label, i)) or (#endpoints > 1 and e[2])
      or (#variants > 1 and v[2]) or (#components > 1 and c[2]) or e[2] or (v and v[2])
      or (c and c[2])
    sides[i] = side
  end
  for i, side in ipairs(sides) do
    side.label = labels[i] or (differ(sides, "name") and side.name)
      or (differ(sides, "variant") and side.variant) or (differ(sides, "component") and side.component)
      or side.name
    if not sm.label_ok(side.label) then
      return nil, string.format("the label '%s' may hold only letters, digits, '.', '_' and '-', "
        .. "not start with '.' and be 64 characters at most", side.label)
    end
    for j = 1, i - 1 do
      if sides[j].label == side.label then
        return nil, string.format("two sides share the label '%s': name them with "
          .. "--endpoint NAME=LABEL or --label", side.label)
      end
    end
  end
  return sides
end

-- The result path of a side: {label}, {scenario} and {shard} (the shard's
-- index, 0 when the run is not sharded) replaced. With several sides the
-- pattern must hold {label}.
-- The folder of --out the user named: the pattern's folders before its first
-- placeholder ("." when it starts with one; nil when it has none: the result
-- file's own folder). The folders below it, made from labels, are never
-- reached through a symbolic link (README, The result files).
function M.out_root(pattern)
  local brace = pattern:find("{", 1, true)
  if not brace then return nil end
  local slash = pattern:sub(1, brace - 1):match(".*()/")
  if not slash then return "." end
  if slash == 1 then return nil end
  return pattern:sub(1, slash - 1)
end

function M.out_path(pattern, scenario, label, n_sides, shard)
  if n_sides > 1 and not pattern:find("{label}", 1, true) then
    return nil, "--out must contain {label} when the run has several endpoints"
  end
  return (pattern:gsub("{label}", label):gsub("{scenario}", scenario)
    :gsub("{shard}", tostring(shard or 0)))
end

return M
