/* lua_trace: the Lua binding of trace.h (a production trace's replay schedule).
 *
 * sagemaker.trace(path, {speed, from_s, to_s, cap}) -> the schedule as a table
 * | nil, message:
 *   { format = "mooncake"|"azure"|"burstgpt"|"capture", read = N (requests in
 *     the file), requests = { { at_us, t_us, line, input_tokens, output_tokens
 *     (nil when the trace has none), hash_ids = {...} (Mooncake), body = TEXT
 *     (Data Capture) }, ... } } */
#ifndef SM_LUA_TRACE_H
#define SM_LUA_TRACE_H

#include <lua.h>

int lua_trace_load(lua_State *L);

#endif
