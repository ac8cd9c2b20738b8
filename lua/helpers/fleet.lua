-- fleet, a helper of the shipped pprof script (require "fleet"; no public
-- module): sending each profile to a continuous-profiling server, Grafana
-- Pyroscope (its /ingest HTTP API) or Parca (its profile store's WriteRaw,
-- through Parca's HTTP gateway), with luaprof.push's sender thread.
--
--   fleet.OPTIONS                          -- --push, --server, --app, --label, --push-backlog, ...
--   local f = fleet.new(opt)               -- nil without --push; usage errors at the top level
--   f:start(info)                          -- on_start: the labels that need the run
--   f:send(body, from_ns, to_ns)           -- a gzip'd profile.proto of that period
--   f:finish()                             -- on_end: waits for the backlog, one line of counts;
--                                          -- false when profiles were left unsent
--
-- Pyroscope (https://grafana.com/docs/pyroscope/latest/configure-server/about-server-api/):
-- POST URL/ingest?name=APP{k=v,...}&from=S&until=S&format=pprof&spyName=luaprof,
-- the profile as the body (Content-Type binary/octet-stream), times in unix
-- seconds.  Parca (parca/profilestore/v1alpha1/profilestore.proto, WriteRaw,
-- which Parca's gateway serves at /api/profiles/writeraw): POST JSON
-- {"series": [{"labels": {"labels": [{"name": "__name__", "value": APP}, ...]},
-- "samples": [{"rawProfile": BASE64}]}]}.
--
-- Labels: host (the host name), command (the profiled command's name; none
-- with -a) and each --label=k=v.  Lines go to stderr as the sender reports
-- a change (unreachable, refused, back, dropping): one line per change, not
-- per period.
--
-- The URL: taken apart by libcurl's URL parser (luaprof.url) at the start,
-- so that a malformed one is refused at once, and each request's URL is
-- put together from its parts: the server's path with /ingest (or
-- Parca's path) after it, the server's own query (a token, say) then the
-- request's.  It may carry credentials (http://USER:TOKEN@HOST, a token in
-- its query): every line shows it without them (luaprof.url.shown), and a
-- server's answer or libcurl's error quoting them has them replaced by ***.

local M = {}

M.OPTIONS = {
  { "push", "string", nil, "send each profile to this server (http://host:4040 for Pyroscope, "
    .. "http://host:7070 for Parca); the files are then written only with --out" },
  { "server", "string", "pyroscope", "the server's kind", choices = { "pyroscope", "parca" } },
  { "app", "string", nil, "the application's name (Pyroscope's name, Parca's __name__; "
    .. "default: the command's name, or luaprof with -a)" },
  { "label", "list", {}, "a label K=V of every profile sent (repeatable)" },
  { "push-backlog", "integer", 100, "profiles waiting to be sent, at most, while the server "
    .. "is slow or down (the newer are dropped)", min = 1, max = 1000000 },
  { "push-timeout", "number", 10, "seconds for one attempt to send, and to wait for the "
    .. "backlog at the end", min = 0.001, max = 86400 },
}

local F = {}
F.__index = F

local function read_line(path)
  local f = io.open(path)
  local s = f and f:read("l")
  if f then f:close() end
  return s
end

-- A label value both servers take: no , { } = " or control characters.
local function clean(v)
  return (tostring(v):gsub("[,{}=\"%c%s]", "_"))
end

local function url_escape(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

-- The secrets of URL u (its parts), to hide in what is printed: the user
-- and password, the query and its values.
local function secrets_of(u)
  local s = {}
  local function add(v) if v and #v >= 3 then s[#s + 1] = v end end
  add(u.password)
  add(u.user)
  add(u.query)
  for kv in (u.query or ""):gmatch("[^&]+") do add(kv:match("=(.*)$")) end
  return s
end

function M.new(opt)
  if not opt.push then return nil end
  local u, why = luaprof.url.parse(opt.push)
  if u and u.scheme ~= "http" and u.scheme ~= "https" then why = "not http:// or https://" end
  if not u or why then
    luaprof.usage_error("--push=" .. luaprof.url.shown(opt.push) .. ": " .. why
                        .. "; give the server's URL, http://HOST:PORT or https://...")
  end
  local labels = {}
  for _, kv in ipairs(opt.label) do
    local k, v = kv:match("^([%a_][%w_]*)=(.+)$")
    if not k then
      luaprof.usage_error("--label=" .. luaprof.shown(kv) .. ": a label is NAME=VALUE, NAME of letters, digits and _")
    end
    if v:find("[,{}=\"]") then
      luaprof.usage_error("--label=" .. luaprof.shown(kv) .. ": a label's value cannot hold , { } = or \"")
    end
    labels[#labels + 1] = { k, v }
  end
  local self = setmetatable({ opt = opt, user = labels, periods = 0, secrets = secrets_of(u) }, F)
  local path = u.path:gsub("/+$", "")
  if opt.server == "parca" then
    path = path:match("/api$") and path .. "/profiles/writeraw" or path .. "/api/profiles/writeraw"
  else
    path = path:match("/ingest$") and path or path .. "/ingest"
  end
  u.path, u.fragment = path, nil
  self.base = u
  self.url = luaprof.url.build(u)
  self.shown = luaprof.url.shown(self.url)
  self.sender = luaprof.push{ backlog = opt["push-backlog"], timeout = opt["push-timeout"] }
  return self
end

-- The labels, host and command first, then the user's (which may replace them).
function F:start(info)
  local cmd = info.command and info.command[1]:match("([^/]*)$")
  if not cmd and info.pids and info.pids[1] then
    cmd = read_line("/proc/" .. info.pids[1] .. "/comm")
  end
  local all, at = {}, {}
  local function set(k, v)
    if v == nil then return end
    if not at[k] then all[#all + 1] = { k }; at[k] = #all end
    all[at[k]][2] = clean(v)
  end
  set("host", read_line("/proc/sys/kernel/hostname") or "unknown")
  set("command", cmd)
  for _, kv in ipairs(self.user) do set(kv[1], kv[2]) end
  self.labels = all
  self.app = self.opt.app or cmd or "luaprof"
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = { (n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63 }
    out[#out + 1] = B64:sub(q[1] + 1, q[1] + 1) .. B64:sub(q[2] + 1, q[2] + 1)
      .. (b and B64:sub(q[3] + 1, q[3] + 1) or "=") .. (c and B64:sub(q[4] + 1, q[4] + 1) or "=")
  end
  return table.concat(out)
end

function F:pyroscope(body, from, to)
  local l = {}
  for i, kv in ipairs(self.labels) do l[i] = kv[1] .. "=" .. kv[2] end
  local name = clean(self.app) .. "{" .. table.concat(l, ",") .. "}"
  local q = string.format("name=%s&from=%d&until=%d&format=pprof&spyName=luaprof", url_escape(name),
                          from // 1000000000, (to + 999999999) // 1000000000)
  local u = {}
  for k, v in pairs(self.base) do u[k] = v end
  u.query = self.base.query and self.base.query .. "&" .. q or q
  return luaprof.url.build(u), body, "binary/octet-stream"
end

function F:parca(body)
  local l = { { name = "__name__", value = (self.app:gsub("[^%w_]", "_")) } }
  for _, kv in ipairs(self.labels) do l[#l + 1] = { name = kv[1], value = kv[2] } end
  local req = { series = { { labels = { labels = l }, samples = { { rawProfile = base64(body) } } } } }
  return self.url, luaprof.json.encode(req), "application/json"
end

-- text with the URL's secrets replaced by ***.
function F:hide(text)
  for _, secret in ipairs(self.secrets) do
    local at, to = text:find(secret, 1, true)
    while at do
      text = text:sub(1, at - 1) .. "***" .. text:sub(to + 1)
      at, to = text:find(secret, at + 3, true)
    end
  end
  return text
end

-- One line per event of the sender: what changed, and what it means.
function F:say()
  for _, e in ipairs(self.sender:events()) do
    e.text = self:hide(e.text)
    local line
    if e.kind == "unreachable" then
      line = string.format("cannot reach %s: %s; keeping up to %d profiles until it answers",
                           e.url, e.text, self.opt["push-backlog"])
    elseif e.kind == "refused" then
      line = string.format("%s refused a profile: HTTP %d%s%s", e.url, e.status,
                           e.text ~= "" and ": " .. e.text or "",
                           e.retry and " (trying it again)" or " (it is dropped)")
    elseif e.kind == "back" then
      line = string.format("%s takes profiles again", e.url)
    else
      line = string.format("the backlog of %d profiles (--push-backlog) is full: dropping the new "
                           .. "ones until %s takes them", self.opt["push-backlog"], e.url)
    end
    io.stderr:write("luaprof: push: ", line, "\n")
  end
end

function F:send(body, from, to)
  self.periods = self.periods + 1
  local url, data, ct
  if self.opt.server == "parca" then url, data, ct = self:parca(body)
  else url, data, ct = self:pyroscope(body, from, to) end
  self.sender:post(url, data, ct)
  self:say()
end

function F:finish()
  local done, why = self.sender:flush(self.opt["push-timeout"])
  self:say()
  local st = self.sender:stats()
  io.stderr:write(string.format("luaprof: push: sent %d of %d profiles to %s%s%s%s\n", st.sent,
                                st.posted, self.shown,
                                st.dropped > 0 and string.format("; %d dropped (the backlog of %d was full)",
                                                                 st.dropped, self.opt["push-backlog"]) or "",
                                st.refused > 0 and string.format("; %d refused", st.refused) or "",
                                done and "" or why == "interrupted" and
                                  string.format("; %d unsent (the wait was interrupted)", st.waiting) or
                                  string.format("; %d unsent after waiting %gs", st.waiting,
                                                self.opt["push-timeout"])))
  self.sender:close()
  return done
end

return M
