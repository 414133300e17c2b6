-- sm.plugin: finds and loads the C module (sagemaker.so). wrk sets no
-- package.cpath, so the places are, in order: $SM_PLUGIN_PATH (the .so itself or
-- its folder), LUA_CPATH (LuaJIT reads it), then, for an installed copy, the folder
-- sm/where.lua names (written by the install), else build/plugin/ of the project
-- this file belongs to.
local here = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") or "./"
local root = here .. "../../"

-- An install's sm/where.lua, read from this folder only (never from package.path).
local function installed()
  local f = io.open(here .. "where.lua")
  if not f then return nil end
  f:close()
  local ok, where = pcall(dofile, here .. "where.lua")
  if not ok or type(where) ~= "string" then return nil end
  return (where:sub(1, 1) == "/" and where or root .. where) .. "/?.so"
end

local paths = {}
local env = os.getenv("SM_PLUGIN_PATH")
if env and env ~= "" then
  paths[#paths + 1] = env:match("%.so$") and env or (env:gsub("/$", "") .. "/?.so")
end
paths[#paths + 1] = package.cpath
local inst = installed()
paths[#paths + 1] = inst or root .. "build/plugin/?.so"
package.cpath = table.concat(paths, ";")

local ok, sm = pcall(require, "sagemaker")
if not ok then
  local why = tostring(sm)
  if why:find("module 'sagemaker' not found", 1, true) then
    why = "not found in $SM_PLUGIN_PATH, $LUA_CPATH or " .. (inst or root .. "build/plugin/")
  end
  io.stderr:write("wrk-sagemaker: cannot load the C module sagemaker.so: ", (why:gsub("\n.*", "")),
    " (build it with 'cmake --build build', or point SM_PLUGIN_PATH at it)\n")
  os.exit(2)
end
return sm
