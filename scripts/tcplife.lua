-- tcplife.lua: TCP connections as they close, with their ends, the data
-- sent and received and their lifespan, one line each: bpftrace's
-- tcplife.bt (and BCC's tcplife).
--
--   luaprof run tcplife -a                      (every connection, until Ctrl-C)
--   luaprof run tcplife -- curl -s example.com  (while curl runs)
--
-- From sock:inet_sock_set_state, the tracepoint at each TCP state change,
-- which holds the socket's address and both ends (bpftrace's tool takes
-- them from the socket with a kprobe on tcp_set_state): a connection is
-- born at its first state before FIN_WAIT1 (SYN_SENT, SYN_RECV or
-- ESTABLISHED) and printed at CLOSE.  The pid and command are those that
-- moved it to SYN_SENT (the client that connected) or LAST_ACK (a server
-- that closed), else those running when it closed, as in bpftrace's tool:
-- best effort, since TCP changes state in softirq context too.  The events
-- are system-wide; following a command (-- CMD, -p) keeps the connections
-- whose process is one of its own.
--
-- TX_KB and RX_KB are the data the process sent and received on the
-- socket (sock:sock_send_length and sock_recv_length, Linux 6.4 and later:
-- what send/write and recv/read moved), in whole KiB.  bpftrace's tool
-- reads the socket's bytes_acked and bytes_received, kernel memory a
-- script does not read: the same for a connection whose data was all
-- acknowledged and read, but not what sendfile or splice moved (they do
-- not pass through those tracepoints), nor data left unacknowledged or
-- unread.  A process may read what came before the close after it: the
-- line is printed when the socket is freed (tcp:tcp_destroy_sock, once
-- the process closed it too), the lifespan still ending at CLOSE; a
-- socket the process still holds when the run ends is printed then.

luaprof.options{
  description = "TCP connections as they close: ends, KiB sent and received, lifespan (bpftrace's tcplife)",
  help = [[One line per TCP connection as it closes: the pid and command that
owned it, the local and remote addresses and ports, the KiB the process
sent and received on it, and its lifespan in milliseconds.]],
}
luaprof.setup{ events = { "sock:inet_sock_set_state", "sock:sock_send_length", "sock:sock_recv_length",
                          "tcp:tcp_destroy_sock" }, all_cpus = true }

local bpftools = require "bpftools"
bpftools.snoop()
local IPPROTO_TCP, AF_INET = 6, 2
local SYN_SENT, FIN_WAIT1, CLOSE, LAST_ACK = 2, 4, 7, 9
local MSG_PEEK = 2
local socks = {}                        -- skaddr -> { birth =, pid =, comm =, tx =, rx =, closed =, line = }

-- An IPv6 address (16 bytes) as inet_ntop writes it: the longest run of
-- two or more zero groups as "::", IPv4-mapped ones as ::ffff:a.b.c.d.
local function ntop6(b)
  local g = {}
  for i = 1, 16, 2 do g[#g + 1] = b[i] * 256 + b[i + 1] end
  if g[1] == 0 and g[2] == 0 and g[3] == 0 and g[4] == 0 and g[5] == 0 and g[6] == 0xffff then
    return string.format("::ffff:%d.%d.%d.%d", b[13], b[14], b[15], b[16])
  end
  local best, len, i = nil, 1, 1
  while i <= 8 do
    if g[i] == 0 then
      local j = i
      while j < 8 and g[j + 1] == 0 do j = j + 1 end
      if j - i + 1 > len then best, len = i, j - i + 1 end
      i = j + 1
    else
      i = i + 1
    end
  end
  local parts = {}
  for k = 1, 8 do parts[k] = string.format("%x", g[k]) end
  if not best then return table.concat(parts, ":") end
  return table.concat(parts, ":", 1, best - 1) .. "::" .. table.concat(parts, ":", best + len, 8)
end

local function addr(f, which)
  if f.family == AF_INET then
    local b = f[which]
    return string.format("%d.%d.%d.%d", b[1], b[2], b[3], b[4])
  end
  return ntop6(f[which .. "_v6"])
end

function on_start()
  print(string.format("%-5s %-10s %-15s %-5s %-15s %-5s %5s %5s %s", "PID", "COMM", "LADDR", "LPORT", "RADDR",
                      "RPORT", "TX_KB", "RX_KB", "MS"))
end

on_event = {}

on_event["sock:inet_sock_set_state"] = function(s)
  local f = s.args
  if f.protocol ~= IPPROTO_TCP then return end
  local sk, new = f.skaddr, f.newstate
  local c = socks[sk]
  if new < FIN_WAIT1 and not c then
    c = { birth = s.time, tx = 0, rx = 0 }
    socks[sk] = c
  end
  if not c then return end
  if new == SYN_SENT or new == LAST_ACK then c.pid, c.comm = s.pid, s.comm end
  if new ~= CLOSE then return end
  local pid, comm = c.pid or s.pid, c.comm or s.comm
  if not luaprof.is_target(pid) then
    socks[sk] = nil
    return
  end
  c.closed = true
  -- s.args is valid during this call only: the line is made when the
  -- socket is freed, from the values read now and the counts then
  local a, b = addr(f, "saddr"), addr(f, "daddr")
  local sport, dport, ms = f.sport, f.dport, (s.time - c.birth) // 1000000
  c.line = function()
    return string.format("%-5d %-10.10s %-15s %-5d %-15s %-6d %5d %5d %d", pid, comm, a, sport, b, dport,
                         c.tx // 1024, c.rx // 1024, ms)
  end
end

on_event["tcp:tcp_destroy_sock"] = function(s)
  local sk = s.args.skaddr
  local c = socks[sk]
  if not c then return end
  socks[sk] = nil
  if c.closed then print(c.line()) end
end

function on_end()
  for _, c in pairs(socks) do
    if c.closed then print(c.line()) end
  end
end

on_event["sock:sock_send_length"] = function(s)
  local f = s.args
  local c = socks[f.sk]
  if c and f.ret > 0 then c.tx = c.tx + f.ret end
end

on_event["sock:sock_recv_length"] = function(s)
  local f = s.args
  local c = socks[f.sk]
  if c and f.ret > 0 and f.flags & MSG_PEEK == 0 then c.rx = c.rx + f.ret end
end
