-- Prints "IP SYM" (hex ip, "[unknown]" when unnamed) per sample, as
-- perf script -F ip,sym does.
function on_sample(s)
  print(string.format("%x %s", s.ip, s.sym or "[unknown]"))
end
