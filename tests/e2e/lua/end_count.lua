-- Prints "on_end samples N" when on_end runs (replay of a recording).
function on_end(info)
  print("on_end samples " .. info.samples)
end
