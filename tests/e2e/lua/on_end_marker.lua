local n = 0
function on_start(info) print("start " .. info.pid .. " " .. table.concat(info.command, " ")) io.stdout:flush() end
function on_sample() n = n + 1 end
function on_end(info)
  print("on_end samples " .. info.samples .. " counted " .. n .. " status " .. tostring(info.status))
  print("complete")
end
