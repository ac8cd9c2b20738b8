-- Prints the recording's build-id table from on_start's info.build_ids as
-- perf buildid-list prints it: "HEX PATH" per object, sorted.
function on_start(info)
  local lines = {}
  for path, hex in pairs(info.build_ids or {}) do lines[#lines + 1] = hex .. " " .. path end
  table.sort(lines)
  for _, l in ipairs(lines) do print(l) end
end
