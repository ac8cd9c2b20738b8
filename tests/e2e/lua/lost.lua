-- Prints the number of samples the run says were lost.
function on_end(info) print(info.lost) end
