-- sm.plugin: finds and loads the C module (sagemaker.so). wrk sets no
-- package.cpath, so the places are, in order: $SM_PLUGIN_PATH (the .so itself or
-- its folder), LUA_CPATH (LuaJIT reads it), then build/plugin/ of the project
-- this file belongs to.
local here = debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") or "./"
local root = here .. "../../"

local paths = {}
local env = os.getenv("SM_PLUGIN_PATH")
if env and env ~= "" then
  paths[#paths + 1] = env:match("%.so$") and env or (env:gsub("/$", "") .. "/?.so")
end
paths[#paths + 1] = package.cpath
paths[#paths + 1] = root .. "build/plugin/?.so"
package.cpath = table.concat(paths, ";")

local ok, sm = pcall(require, "sagemaker")
if not ok then
  local why = tostring(sm)
  if why:find("module 'sagemaker' not found", 1, true) then
    why = "not found in $SM_PLUGIN_PATH, $LUA_CPATH or " .. root .. "build/plugin/"
  end
  io.stderr:write("wrk-sagemaker: cannot load the C module sagemaker.so: ", (why:gsub("\n.*", "")),
    " (build it with 'cmake --build build', or point SM_PLUGIN_PATH at it)\n")
  os.exit(2)
end
return sm
