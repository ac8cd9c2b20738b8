-- luaprof.map: a counting map.
--
--   local m = luaprof.map()
--   m:add(key [, n])     key: a string, a number, or a tuple {a, b, ...}
--   m:get(key)           its count, 0 when absent
--   m:sum()              the sum of every count (added up when asked)
--   #m                   the number of keys
--   m:clear()
--   for key, n in m:sorted([by [, limit]]) do ... end
--                        by "value" (default: largest first, ties by key)
--                        or "key" (numbers, then strings, then tuples)
--   m:top(n)             { {key, n}, ... }: the n largest, largest first
--   pairs(m)             the same order as m:sorted()
--
-- Plain Lua tables underneath, because they are faster than a map
-- written in C (a hash table of byte keys behind a userdata): the C call
-- and a second cache miss cost more than Lua's lookup of an interned
-- string saves.  Tuples are nested tables, one level per element, which
-- costs far less than keys joined into one string.

local M = {}
local Map = {}
Map.__index = Map

local type, next, setmetatable, sort = type, next, setmetatable, table.sort

-- luaprof.map() makes a map: the module is called, as every constructor
-- of the library is (it is a table for key_less and Map below).
setmetatable(M, { __call = function()
  return setmetatable({ counts = {}, tuples = {}, arity = nil, size = 0 }, Map)
end })

local function check_scalar(k)
  local t = type(k)
  if t ~= "string" and t ~= "number" and t ~= "boolean" then
    error("map key: expected a string, a number or a tuple of them, got " .. t, 3)
  end
end

-- The table holding the last element of tuple k, created when create.
local function leaf_table(self, k, create)
  local n = #k
  if n == 0 then error("map key: a tuple has at least one element", 3) end
  if self.arity and self.arity ~= n then
    error(string.format("map key: tuples of this map have %d elements, not %d", self.arity, n), 3)
  end
  local t = self.tuples
  for i = 1, n - 1 do
    local e = k[i]
    check_scalar(e)
    local u = t[e]
    if not u then
      if not create then return nil end
      u = {}
      t[e] = u
    end
    t = u
  end
  check_scalar(k[n])
  self.arity = n
  return t, k[n]
end

-- A key seen before costs two table accesses; the rest is add_new's.
local function add_new(self, k, n)
  local c, key = self.counts, k
  if type(k) == "table" then
    c, key = leaf_table(self, k, true)
  elseif k == nil then
    error("map key: nil", 3)
  end
  local v = c[key]
  if v then
    c[key] = v + n
  else
    c[key] = n
    self.size = self.size + 1
  end
end

function Map:add(k, n)
  local c = self.counts
  local v = c[k]
  if v then
    c[k] = v + (n or 1)
  else
    add_new(self, k, n or 1)
  end
end

function Map:get(k)
  if type(k) == "table" then
    local t, key = leaf_table(self, k, false)
    return t and t[key] or 0
  end
  return self.counts[k] or 0
end

function Map:sum()
  local sum = 0
  for _, v in next, self.counts do sum = sum + v end
  local function walk(t, depth)
    for _, v in next, t do
      if depth == self.arity then sum = sum + v else walk(v, depth + 1) end
    end
  end
  if self.arity then walk(self.tuples, 1) end
  return sum
end
function Map:__len() return self.size end

function Map:clear()
  self.counts, self.tuples, self.arity, self.size = {}, {}, nil, 0
end

-- Every (key, count) into two arrays; tuple keys rebuilt as tables.
local function collect(self)
  local keys, vals, n = {}, {}, 0
  for k, v in next, self.counts do
    n = n + 1
    keys[n], vals[n] = k, v
  end
  local function walk(t, depth, prefix)
    for k, v in next, t do
      prefix[depth] = k
      if depth == self.arity then
        n = n + 1
        keys[n], vals[n] = { table.unpack(prefix, 1, depth) }, v
      else
        walk(v, depth + 1, prefix)
      end
    end
  end
  if self.arity then walk(self.tuples, 1, {}) end
  return keys, vals, n
end

local rank = { number = 1, boolean = 1, string = 2, table = 3 }

local function scalar_less(a, b)
  local ta, tb = type(a), type(b)
  if ta == "boolean" then a = a and 1 or 0 end
  if tb == "boolean" then b = b and 1 or 0 end
  if ta == tb or rank[ta] == rank[tb] then return a < b end
  return rank[ta] < rank[tb]
end

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= "table" or tb ~= "table" then
    if ta == "table" or tb == "table" then return tb == "table" end
    return scalar_less(a, b)
  end
  for i = 1, math.min(#a, #b) do
    if a[i] ~= b[i] then return scalar_less(a[i], b[i]) end
  end
  return #a < #b
end
M.key_less = key_less

-- The entries' positions in the requested order.
local function order(self, by)
  if by ~= nil and by ~= "value" and by ~= "key" then
    error("map:sorted: order is \"value\" or \"key\", not " .. tostring(by), 3)
  end
  local keys, vals, n = collect(self)
  local idx = {}
  for i = 1, n do idx[i] = i end
  if by == "key" then
    sort(idx, function(a, b) return key_less(keys[a], keys[b]) end)
  else
    sort(idx, function(a, b)
      local va, vb = vals[a], vals[b]
      if va ~= vb then return va > vb end
      return key_less(keys[a], keys[b])
    end)
  end
  return idx, keys, vals, n
end

function Map:sorted(by, limit)
  local idx, keys, vals, n = order(self, by)
  if limit and limit < n then n = limit end
  local i = 0
  return function()
    i = i + 1
    if i > n then return nil end
    return keys[idx[i]], vals[idx[i]]
  end
end

function Map:__pairs() return self:sorted() end

function Map:top(limit)
  local rows = {}
  for k, v in self:sorted("value", limit) do rows[#rows + 1] = { k, v } end
  return rows
end

function Map:__tostring()
  return string.format("luaprof.map (%d keys)", self.size)
end

M.Map = Map
return M
