function on_sample(s)
  local x = = 1
end
