-- olparse: the lexer and parser of `luaprof -x` programs (no public
-- module; the front end is oneliner.lua, its planner olplan.lua).
--
--   local P = require "olparse"
--   local prog = P.program(src)      -- the clauses, each with its trees
--   local expr = P.expression(src)   -- one Lua expression (tests)
--   local block = P.chunk(src)       -- a Lua chunk (tests)
--   local refs = P.free_names(block) -- the global names a tree reads/writes
--   local line, col = P.where(src, pos)
--
-- The program:
--
--   PROGRAM := CLAUSE...
--   CLAUSE  := SPECS [/COND/] { BLOCK }
--   SPECS   := SPEC [, SPEC]...     (a SPEC is written without spaces: an
--                                    event as -e takes it, a bpftrace probe,
--                                    BEGIN, END)
--
-- COND is a Lua 5.4 expression, BLOCK a Lua 5.4 block: both are parsed
-- whole into trees (the whole Lua 5.4 grammar, by recursive descent as
-- Lua's own lparser.c does), every node with pos, the byte offset of its
-- first character in the program, and epos, that of its last.  COND ends
-- at a '/' followed by '{' (so a division may appear in it), BLOCK at the
-- '}' that no table constructor of its own opens.
--
-- Errors are raised as tables { pos = BYTE, msg = TEXT } (P.is_error), so
-- that the caller says where: "-x:LINE:COL: TEXT".  The tokens people
-- bring from bpftrace (!= ! && || -> ++ += -= *= @ $) are lexed as
-- tokens of their own, which no rule takes: the parser's message says
-- how Lua (or luaprof) spells them.

local M = {}

local sub, byte, find, match, char = string.sub, string.byte, string.find, string.match, string.char

---------------------------------------------------------------------------
-- errors and positions

local Error = {}
Error.__index = Error
Error.__tostring = function(e) return "at byte " .. e.pos .. ": " .. e.msg end

-- fix (optional): { from =, to =, text = }, the bytes from..to of the
-- program replaced by text make what the user meant (a token of
-- bpftrace's in Lua's spelling).
local function raise(pos, msg, fix)
  error(setmetatable({ pos = pos, msg = msg, fix = fix }, Error), 0)
end
M.raise = raise

function M.is_error(e)
  return getmetatable(e) == Error
end

-- The line and column (both from 1; the column counts characters) of
-- byte pos of src.
function M.where(src, pos)
  local line, start = 1, 1
  for nl in src:sub(1, pos - 1):gmatch("()\n") do
    line, start = line + 1, nl + 1
  end
  local prefix = src:sub(start, pos - 1)
  return line, (utf8.len(prefix) or #prefix) + 1
end

---------------------------------------------------------------------------
-- the lexer

local KEYWORDS = {}
for w in ([[and break do else elseif end false for function goto if in
            local nil not or repeat return then true until while]]):gmatch("%a+") do
  KEYWORDS[w] = true
end
M.KEYWORDS = KEYWORDS

-- Symbols, longest first within each leading character.  The bpftrace
-- (and C) ones are tokens too, never valid Lua where they stand.
local SYMBOLS = {
  ["."] = { "...", "..", "." }, ["="] = { "==", "=" }, ["~"] = { "~=", "~" },
  ["<"] = { "<<", "<=", "<" }, [">"] = { ">>", ">=", ">" }, ["/"] = { "//", "/" },
  [":"] = { "::", ":" }, ["!"] = { "!=", "!" }, ["&"] = { "&&", "&" }, ["|"] = { "||", "|" },
  ["-"] = { "->", "-=", "-" }, ["+"] = { "++", "+=", "+" }, ["*"] = { "*=", "*" },
}
for c in ("%^#()[]{};,@$"):gmatch(".") do SYMBOLS[c] = { c } end

-- What Lua (or luaprof) writes for a token of bpftrace's.
local FOREIGN = {
  ["!="] = "~=", ["!"] = "not", ["&&"] = "and", ["||"] = "or", ["->"] = ".",
  ["++"] = true, ["+="] = true, ["-="] = true, ["*="] = true, ["@"] = true, ["$"] = true,
}
M.FOREIGN = FOREIGN

local ESCAPES = { a = "\a", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", v = "\v",
                  ["\\"] = "\\", ['"'] = '"', ["'"] = "'", ["\n"] = "\n" }

-- The index just past a long bracket's closing ]=*] for level eq (its
-- opening's = signs), from i; raises what at pos when there is none.
local function long_end(src, i, eq, pos, what)
  local _, e = find(src, "]" .. eq .. "]", i, true)
  if not e then raise(pos, what .. " is not closed") end
  return e
end

-- A quoted string from i (its quote): its value and last byte.
local function quoted(src, i)
  local q = sub(src, i, i)
  local out, j = {}, i + 1
  while true do
    local k = find(src, "[\\\n" .. q .. "]", j)
    if not k then raise(i, "the string opened here is not closed") end
    out[#out + 1] = sub(src, j, k - 1)
    local c = sub(src, k, k)
    if c == q then return table.concat(out), k end
    if c == "\n" then raise(i, "the string opened here is not closed on its line") end
    local e = sub(src, k + 1, k + 1)
    if ESCAPES[e] then
      out[#out + 1] = ESCAPES[e]
      j = k + 2
    elseif e == "x" then
      local h = match(src, "^%x%x", k + 2)
      if not h then raise(k, "\\x takes two hexadecimal digits") end
      out[#out + 1] = char(tonumber(h, 16))
      j = k + 4
    elseif e == "z" then
      j = find(src, "[^%s]", k + 2) or #src + 1
    elseif e == "u" then
      local h = match(src, "^{(%x+)}", k + 2)
      local v = h and tonumber(h, 16)
      if not v or v >= 2 ^ 31 then raise(k, "\\u takes {hexadecimal digits} below 2^31") end
      out[#out + 1] = utf8.char(v)
      j = k + 4 + #h
    elseif match(e, "%d") then
      local d = match(src, "^%d%d?%d?", k + 1)
      if tonumber(d) > 255 then raise(k, "the escape \\" .. d .. " is above 255") end
      out[#out + 1] = char(tonumber(d))
      j = k + 1 + #d
    elseif e == "\r" then
      out[#out + 1] = "\n"
      j = k + 2
    else
      raise(k, "invalid escape '\\" .. e .. "' in a string")
    end
  end
end

-- The token starting at or after i (blanks and comments skipped):
-- { t = TYPE, v = VALUE, pos =, epos = }.  TYPE is "name", "number",
-- "string", "eof", a keyword, or a symbol.
local function lex(src, i)
  while true do
    i = find(src, "[^ \t\r\n\f\v]", i)
    if not i then return { t = "eof", pos = #src + 1, epos = #src } end
    if sub(src, i, i + 1) ~= "--" then break end
    local eq = match(src, "^%-%-%[(=*)%[", i)
    if eq then
      i = long_end(src, i + 4 + #eq, eq, i, "the comment opened here") + 1
    else
      i = (find(src, "\n", i, true) or #src) + 1
    end
  end
  local c = sub(src, i, i)
  local word = match(src, "^[%a_][%w_]*", i)
  if word then
    return { t = KEYWORDS[word] and word or "name", v = word, pos = i, epos = i + #word - 1 }
  end
  if match(c, "%d") or (c == "." and match(src, "^%.%d", i)) then
    local text = match(src, "^0[xX]%x*%.?%x*", i)
    if text then
      text = text .. (match(src, "^[pP][+-]?%d+", i + #text) or "")
    else
      text = match(src, "^%d*%.?%d*", i)
      text = text .. (match(src, "^[eE][+-]?%d+", i + #text) or "")
    end
    local after = i + #text
    local v = tonumber(text)
    if v == nil or match(src, "^[%w_.]", after) then
      raise(i, "malformed number '" .. (match(src, "^[%w_.]+", i) or text) .. "'")
    end
    return { t = "number", v = v, pos = i, epos = after - 1 }
  end
  if c == '"' or c == "'" then
    local v, e = quoted(src, i)
    return { t = "string", v = v, pos = i, epos = e }
  end
  if c == "[" then
    local eq = match(src, "^%[(=*)%[", i)
    if eq then
      local s = i + 2 + #eq
      local e = long_end(src, s, eq, i, "the long string opened here")
      local v = sub(src, s, e - #eq - 2)
      if sub(v, 1, 2) == "\r\n" or sub(v, 1, 2) == "\n\r" then v = sub(v, 3)
      elseif sub(v, 1, 1) == "\n" or sub(v, 1, 1) == "\r" then v = sub(v, 2) end
      return { t = "string", v = v, pos = i, epos = e }
    end
  end
  for _, s in ipairs(SYMBOLS[c] or {}) do
    if sub(src, i, i + #s - 1) == s then
      return { t = s, pos = i, epos = i + #s - 1 }
    end
  end
  if c == "`" then raise(i, "'`' is no Lua: a string is \"...\" or '...'") end
  local shown = byte(c) >= 32 and byte(c) < 127 and c or match(src, "^[\194-\244][\128-\191]+", i) or
                string.format("\\%d", byte(c))
  raise(i, string.format("unexpected character '%s'", shown))
end
M.lex = lex

-- Every token of src, for tests: { {t =, v =, pos =, epos =}, ... }
-- without the final eof.
function M.tokens(src)
  local out, i = {}, 1
  while true do
    local tok = lex(src, i)
    if tok.t == "eof" then return out end
    out[#out + 1] = tok
    i = tok.epos + 1
  end
end

---------------------------------------------------------------------------
-- the parser

local Parser = {}
Parser.__index = Parser

-- How deep expressions and blocks may nest (Lua's own parser stops at
-- 200 levels, LUAI_MAXCCALLS: a program past it would not compile).
local MAX_DEPTH = 200

local function new_parser(src, i)
  local p = setmetatable({ src = src, loops = 0, vararg = false, depth = 0 }, Parser)
  p.tok = lex(src, i)
  p.prev = nil
  return p
end

function Parser:peek()
  if not self.ahead then self.ahead = lex(self.src, self.tok.epos + 1) end
  return self.ahead
end

function Parser:next()
  self.prev = self.tok
  self.tok = self.ahead or lex(self.src, self.tok.epos + 1)
  self.ahead = nil
end

-- The text of the token tok for messages.
local function shown(tok)
  if tok.t == "eof" then return "the end of the program" end
  if tok.t == "string" then return "a string" end
  return "'" .. (tok.v or tok.t) .. "'"
end

-- text, with a blank added on a side where the program has none, so
-- that it can replace bytes pos..epos of src ("a&&b": "a and b").
local function spaced(src, pos, epos, text, left, right)
  if left and not match(sub(src, pos - 1, pos - 1), "^[%s(]?$") then text = " " .. text end
  if right and not match(sub(src, epos + 1, epos + 1), "^[%s)]?$") then text = text .. " " end
  return text
end

-- Raises the error for an unexpected token: a bpftrace token gets how
-- Lua spells it, as a fix.
function Parser:unexpected(what)
  local tok = self.tok
  local f = FOREIGN[tok.t]
  if type(f) == "string" then
    local words = f == "and" or f == "or" or f == "not"
    raise(tok.pos, string.format("'%s' is Lua's '%s' here", tok.t, f),
          { from = tok.pos, to = tok.epos, text = spaced(self.src, tok.pos, tok.epos, f, words and f ~= "not", words) })
  elseif tok.t == "@" then
    raise(tok.pos, "luaprof has no @ variables: count(k...), sum(v, k...), hist(v, k...), ... aggregate, " ..
                   "and their maps print at the end; other values go in t (t[k] = v)")
  elseif tok.t == "$" then
    local n = self:peek()
    if n.t == "name" and n.pos == tok.epos + 1 then
      raise(tok.pos, string.format("'$%s' is bpftrace's: a Lua variable is a plain name ('local %s = ...')",
                                   n.v, n.v), { from = tok.pos, to = tok.epos, text = "" })
    end
    raise(tok.pos, "'$' is not Lua")
  elseif f then
    raise(tok.pos, string.format("'%s' is not Lua", tok.t))
  end
  raise(tok.pos, what .. " expected near " .. shown(tok))
end

local AGG_OPS = { count = true, sum = true, min = true, max = true, avg = true, hist = true, stats = true,
                  lhist = true }

-- A statement of bpftrace's map syntax, "@NAME[KEYS] = AGG(ARGS)":
-- raises the error, with luaprof's spelling as the fix when it has one.
function Parser:map_statement()
  local at = self.tok
  self:next()
  local name = ""
  if self.tok.t == "name" and self.tok.pos == at.epos + 1 then
    name = self.tok.v
    self:next()
  end
  local keys = {}
  if self.tok.t == "[" then
    self:next()
    keys = self:exprlist()
    self:expect("]")
  end
  if self.tok.t == "=" then
    self:next()
    local v = self:expr()
    if v.tag == "Call" and v.fn.tag == "Name" and AGG_OPS[v.fn.name] then
      local parts = {}
      if name ~= "" then parts[1] = '"@' .. name .. '"' end
      for _, a in ipairs(v.args) do parts[#parts + 1] = self.src:sub(a.pos, a.epos) end
      for _, k in ipairs(keys) do parts[#parts + 1] = self.src:sub(k.pos, k.epos) end
      local text = v.fn.name .. "(" .. table.concat(parts, ", ") .. ")"
      raise(at.pos, string.format("bpftrace's '%s' is luaprof's '%s'", self.src:sub(at.pos, v.epos), text),
            { from = at.pos, to = v.epos, text = text })
    end
  end
  self.tok = at
  self:unexpected()
end

function Parser:check(t, what)
  if self.tok.t ~= t then self:unexpected(what or ("'" .. t .. "'")) end
end

function Parser:accept(t)
  if self.tok.t == t then
    self:next()
    return true
  end
  return false
end

function Parser:expect(t, what)
  self:check(t, what)
  self:next()
end

-- Closes what opened at tok: t expected, else an error naming both ends.
function Parser:close(t, open_tok, open_t)
  if self.tok.t == t then
    self:next()
    return
  end
  if FOREIGN[self.tok.t] then self:unexpected("'" .. t .. "'") end
  local l, c = M.where(self.src, open_tok.pos)
  raise(self.tok.pos, string.format("'%s' expected (to close '%s' at %d:%d) near %s", t, open_t, l, c,
                                    shown(self.tok)))
end

function Parser:name()
  self:check("name", "a name")
  local tok = self.tok
  self:next()
  return tok.v, tok.pos
end

local function node(tag, pos, fields)
  fields.tag, fields.pos = tag, pos
  return fields
end

-- Sets n.epos to the last token's end and returns n.
function Parser:done(n)
  n.epos = self.prev.epos
  return n
end

-- Binary operators: left and right priority, as lparser.c's.
local BINARY = {
  ["or"] = { 1, 1 }, ["and"] = { 2, 2 },
  ["<"] = { 3, 3 }, [">"] = { 3, 3 }, ["<="] = { 3, 3 }, [">="] = { 3, 3 }, ["~="] = { 3, 3 }, ["=="] = { 3, 3 },
  ["|"] = { 4, 4 }, ["~"] = { 5, 5 }, ["&"] = { 6, 6 }, ["<<"] = { 7, 7 }, [">>"] = { 7, 7 },
  [".."] = { 9, 8 }, ["+"] = { 10, 10 }, ["-"] = { 10, 10 },
  ["*"] = { 11, 11 }, ["/"] = { 11, 11 }, ["//"] = { 11, 11 }, ["%"] = { 11, 11 },
  ["^"] = { 14, 13 },
}
local UNARY = { ["not"] = true, ["-"] = true, ["#"] = true, ["~"] = true }
local UNARY_PRIORITY = 12

local BLOCK_END = { ["else"] = true, ["elseif"] = true, ["end"] = true, ["until"] = true, eof = true }

function Parser:funcbody(pos, is_method)
  local params, vararg = {}, false
  if is_method then params[1] = { name = "self", pos = pos } end
  local open = self.tok
  self:expect("(")
  if self.tok.t ~= ")" then
    repeat
      if self.tok.t == "..." then
        self:next()
        vararg = true
        break
      end
      local n, p = self:name()
      params[#params + 1] = { name = n, pos = p }
    until not self:accept(",")
  end
  self:close(")", open, "(")
  local loops, outer = self.loops, self.vararg
  self.loops, self.vararg = 0, vararg
  local body = self:block()
  self.loops, self.vararg = loops, outer
  self:close("end", self.fn_tok or open, "function")
  return self:done(node("Function", pos, { params = params, vararg = vararg, body = body }))
end

function Parser:table_constructor()
  local open = self.tok
  local t = node("Table", open.pos, { fields = {} })
  self:expect("{")
  while self.tok.t ~= "}" do
    local f
    if self.tok.t == "[" then
      local fpos = self.tok.pos
      self:next()
      local k = self:expr()
      self:expect("]")
      self:expect("=")
      f = { kind = "key", key = k, value = self:expr(), pos = fpos }
    elseif self.tok.t == "name" and self:peek().t == "=" then
      local n, npos = self:name()
      self:next()
      f = { kind = "name", key = n, value = self:expr(), pos = npos }
    else
      local v = self:expr()
      f = { kind = "item", value = v, pos = v.pos }
    end
    t.fields[#t.fields + 1] = f
    if not (self:accept(",") or self:accept(";")) then break end
  end
  self:close("}", open, "{")
  return self:done(t)
end

function Parser:args()
  local tok = self.tok
  if tok.t == "string" then
    self:next()
    return { self:done(node("String", tok.pos, { value = tok.v })) }
  elseif tok.t == "{" then
    return { self:table_constructor() }
  end
  self:expect("(")
  local list = {}
  if self.tok.t ~= ")" then list = self:exprlist() end
  self:close(")", tok, "(")
  return list
end

function Parser:primary()
  local tok = self.tok
  if tok.t == "name" then
    self:next()
    return self:done(node("Name", tok.pos, { name = tok.v }))
  elseif tok.t == "(" then
    self:next()
    local e = self:expr()
    self:close(")", tok, "(")
    return self:done(node("Paren", tok.pos, { expr = e }))
  end
  self:unexpected("an expression")
end

function Parser:suffixed()
  local e = self:primary()
  while true do
    local t = self.tok.t
    if t == "." then
      self:next()
      local n, npos = self:name()
      e = self:done(node("Index", e.pos, { obj = e, dot = true,
                                           key = node("String", npos, { value = n, epos = npos + #n - 1 }) }))
    elseif t == "[" then
      self:next()
      local k = self:expr()
      self:expect("]")
      e = self:done(node("Index", e.pos, { obj = e, key = k }))
    elseif t == ":" then
      self:next()
      local n, npos = self:name()
      e = self:done(node("Invoke", e.pos, { obj = e, name = n, name_pos = npos, args = self:args() }))
    elseif t == "(" or t == "string" or t == "{" then
      e = self:done(node("Call", e.pos, { fn = e, args = self:args() }))
    else
      return e
    end
  end
end

function Parser:simple()
  local tok = self.tok
  local t = tok.t
  if t == "number" then
    self:next()
    return self:done(node("Number", tok.pos, { value = tok.v }))
  elseif t == "string" then
    self:next()
    return self:done(node("String", tok.pos, { value = tok.v }))
  elseif t == "nil" or t == "true" or t == "false" then
    self:next()
    return self:done(node(t == "nil" and "Nil" or t == "true" and "True" or "False", tok.pos, {}))
  elseif t == "..." then
    if not self.vararg then raise(tok.pos, "'...' is used outside a vararg function") end
    self:next()
    return self:done(node("Vararg", tok.pos, {}))
  elseif t == "{" then
    return self:table_constructor()
  elseif t == "function" then
    self:next()
    local outer = self.fn_tok
    self.fn_tok = tok
    local f = self:funcbody(tok.pos)
    self.fn_tok = outer
    return f
  end
  return self:suffixed()
end

-- subexpr of lparser.c: an expression whose binary operators bind
-- tighter than limit.
function Parser:enter()
  self.depth = self.depth + 1
  if self.depth > MAX_DEPTH then raise(self.tok.pos, "the program nests deeper than " .. MAX_DEPTH .. " levels") end
end

function Parser:subexpr(limit)
  local e
  local tok = self.tok
  self:enter()
  if UNARY[tok.t] then
    self:next()
    local operand = self:subexpr(UNARY_PRIORITY)
    e = self:done(node("Unop", tok.pos, { op = tok.t, expr = operand }))
  else
    e = self:simple()
  end
  while true do
    local op = self.tok.t
    local prio = BINARY[op]
    if not prio or prio[1] <= limit then break end
    -- a condition's closing '/': the one a '{' follows
    if op == "/" and self.in_cond and self:peek().t == "{" then break end
    local optok = self.tok
    self:next()
    local right = self:subexpr(prio[2])
    e = self:done(node("Binop", e.pos, { op = op, left = e, right = right, op_pos = optok.pos }))
  end
  self.depth = self.depth - 1
  return e
end

function Parser:expr()
  return self:subexpr(0)
end

function Parser:exprlist()
  local list = { self:expr() }
  while self:accept(",") do list[#list + 1] = self:expr() end
  return list
end

function Parser:block()
  local pos = self.tok.pos
  local stats = {}
  self:enter()
  while not BLOCK_END[self.tok.t] and not (self.in_body and self.tok.t == "}") do
    if self.tok.t == "return" then
      stats[#stats + 1] = self:retstat()
      break
    end
    local s = self:statement()
    if s then stats[#stats + 1] = s end
  end
  self.depth = self.depth - 1
  return { tag = "Block", pos = pos, stats = stats, epos = self.prev and self.prev.epos or pos - 1 }
end

function Parser:retstat()
  local tok = self.tok
  self:next()
  local exprs = {}
  if not BLOCK_END[self.tok.t] and self.tok.t ~= ";" and not (self.in_body and self.tok.t == "}") then
    exprs = self:exprlist()
  end
  self:accept(";")
  return self:done(node("Return", tok.pos, { exprs = exprs }))
end

function Parser:local_attrib()
  if not self:accept("<") then return nil end
  local a, apos = self:name()
  if a ~= "const" and a ~= "close" then raise(apos, "unknown attribute '" .. a .. "'") end
  self:expect(">")
  return a
end

function Parser:forstat(tok)
  self:next()
  local n1, p1 = self:name()
  local s
  if self.tok.t == "=" then
    self:next()
    local start = self:expr()
    self:expect(",")
    local stop = self:expr()
    local step = self:accept(",") and self:expr() or nil
    s = node("Fornum", tok.pos, { var = { name = n1, pos = p1 }, start = start, stop = stop, step = step })
  else
    local names = { { name = n1, pos = p1 } }
    while self:accept(",") do
      local n, p = self:name()
      names[#names + 1] = { name = n, pos = p }
    end
    if self.tok.t ~= "in" then self:unexpected("'=' or 'in'") end
    self:next()
    s = node("Forin", tok.pos, { names = names, exprs = self:exprlist() })
  end
  self:expect("do")
  self.loops = self.loops + 1
  s.body = self:block()
  self.loops = self.loops - 1
  self:close("end", tok, "for")
  return self:done(s)
end

function Parser:statement()
  local tok = self.tok
  local t = tok.t
  if t == ";" then
    self:next()
    return nil
  elseif t == "if" then
    local s = node("If", tok.pos, { conds = {}, blocks = {} })
    repeat
      self:next()
      local cond = self:expr()
      s.conds[#s.conds + 1] = cond
      -- bpftrace's "if (x) { ... }" reads as a call, (x){...}
      local brace = self.tok.t == "{" and self.tok or
                    cond.tag == "Call" and cond.fn.tag == "Paren" and cond.args[1] and cond.args[1].tag == "Table" and
                    self.src:sub(cond.args[1].pos, cond.args[1].pos) == "{" and self.tok.t ~= "then" and cond.args[1]
      if brace then
        raise(brace.pos, "Lua's if is 'if COND then ... end', not 'if (COND) { ... }'")
      end
      self:expect("then")
      s.blocks[#s.blocks + 1] = self:block()
    until self.tok.t ~= "elseif"
    if self:accept("else") then s.orelse = self:block() end
    self:close("end", tok, "if")
    return self:done(s)
  elseif t == "while" then
    self:next()
    local cond = self:expr()
    self:expect("do")
    self.loops = self.loops + 1
    local body = self:block()
    self.loops = self.loops - 1
    self:close("end", tok, "while")
    return self:done(node("While", tok.pos, { cond = cond, body = body }))
  elseif t == "do" then
    self:next()
    local body = self:block()
    self:close("end", tok, "do")
    return self:done(node("Do", tok.pos, { body = body }))
  elseif t == "for" then
    return self:forstat(tok)
  elseif t == "repeat" then
    self:next()
    self.loops = self.loops + 1
    local body = self:block()
    self.loops = self.loops - 1
    self:close("until", tok, "repeat")
    return self:done(node("Repeat", tok.pos, { body = body, cond = self:expr() }))
  elseif t == "function" then
    self:next()
    local n, npos = self:name()
    local target = node("Name", npos, { name = n, epos = npos + #n - 1 })
    local method
    while self.tok.t == "." do
      self:next()
      local k, kpos = self:name()
      target = node("Index", target.pos, { obj = target, dot = true, epos = kpos + #k - 1,
                                           key = node("String", kpos, { value = k, epos = kpos + #k - 1 }) })
    end
    if self:accept(":") then method = self:name() end
    local outer = self.fn_tok
    self.fn_tok = tok
    local f = self:funcbody(tok.pos, method ~= nil)
    self.fn_tok = outer
    return self:done(node("FunctionStat", tok.pos, { target = target, method = method, func = f }))
  elseif t == "local" then
    self:next()
    if self.tok.t == "function" then
      local ftok = self.tok
      self:next()
      local n, npos = self:name()
      local outer = self.fn_tok
      self.fn_tok = ftok
      local f = self:funcbody(ftok.pos)
      self.fn_tok = outer
      return self:done(node("LocalFunction", tok.pos, { name = { name = n, pos = npos }, func = f }))
    end
    local names = {}
    repeat
      local n, npos = self:name()
      names[#names + 1] = { name = n, pos = npos, attrib = self:local_attrib() }
    until not self:accept(",")
    local exprs = self:accept("=") and self:exprlist() or {}
    return self:done(node("Local", tok.pos, { names = names, exprs = exprs }))
  elseif t == "::" then
    self:next()
    local n = self:name()
    self:expect("::")
    return self:done(node("Label", tok.pos, { name = n }))
  elseif t == "return" then
    return self:retstat()
  elseif t == "break" then
    if self.loops == 0 then raise(tok.pos, "'break' is outside a loop") end
    self:next()
    return self:done(node("Break", tok.pos, {}))
  elseif t == "goto" then
    self:next()
    return self:done(node("Goto", tok.pos, { label = self:name() }))
  elseif t == "@" then
    return self:map_statement()
  end
  -- an expression statement: a call, or an assignment
  local e = self:suffixed()
  if self.tok.t == "=" or self.tok.t == "," then
    local targets = { e }
    while self:accept(",") do targets[#targets + 1] = self:suffixed() end
    for _, x in ipairs(targets) do
      if x.tag ~= "Name" and x.tag ~= "Index" then raise(x.pos, "cannot assign to this expression") end
    end
    self:expect("=")
    return self:done(node("Assign", tok.pos, { targets = targets, exprs = self:exprlist() }))
  end
  local op = self.tok.t
  if op == "++" or op == "+=" or op == "-=" or op == "*=" then
    local target = self.src:sub(e.pos, e.epos)
    local optok = self.tok
    local text, to = target .. " = " .. target .. " + 1", optok.epos
    if op ~= "++" then
      self:next()
      local v = self:expr()
      local vt = self.src:sub(v.pos, v.epos)
      if v.tag == "Binop" then vt = "(" .. vt .. ")" end
      text, to = target .. " = " .. target .. " " .. op:sub(1, 1) .. " " .. vt, v.epos
    end
    raise(optok.pos, string.format("'%s' is not Lua: write %s", op, text), { from = e.pos, to = to, text = text })
  end
  if e.tag ~= "Call" and e.tag ~= "Invoke" then
    if FOREIGN[self.tok.t] then self:unexpected("'='") end
    raise(self.tok.pos, string.format("a statement is expected: '=' or a call after '%s'",
                                      self.src:sub(e.pos, e.epos)))
  end
  return self:done(node("CallStat", tok.pos, { call = e }))
end

-- Parsers for tests and tools: the whole of src as one expression or
-- one chunk.
function M.expression(src)
  local p = new_parser(src, 1)
  local e = p:expr()
  if p.tok.t ~= "eof" then p:unexpected("the end of the expression") end
  return e
end

function M.chunk(src)
  local p = new_parser(src, 1)
  p.vararg = true
  local b = p:block()
  if p.tok.t ~= "eof" then p:unexpected("the end of the chunk") end
  return b
end

---------------------------------------------------------------------------
-- the program

-- The forms of an event that take a path (whose '/' are the path's):
-- -e's probes, and bpftrace's.
local PATH_FORMS = { "uprobe:", "uretprobe:", "usdt:", "kprobe:", "kretprobe:", "mem:", "u:", "ur:", "U:",
                     "k:", "kr:" }

local function takes_path(s)
  for _, f in ipairs(PATH_FORMS) do
    if sub(s, 1, #f) == f then return true end
  end
  return false
end

-- The events of one word of specs ("a,b/x=1,y=2/,c") split at its commas
-- outside term lists, as -e splits them: { {text =, pos =}, ... }.
local function split_specs(word, pos, out)
  local start, terms = 1, false
  local paths = takes_path(word)
  for i = 1, #word + 1 do
    local c = sub(word, i, i)
    if c == "/" and not paths and (terms or (i > 1 and match(sub(word, i - 1, i - 1), "[%w_%-]"))) then
      terms = not terms
    elseif (c == "," and not terms) or c == "" then
      if i > start then
        out[#out + 1] = { text = sub(word, start, i - 1), pos = pos + start - 1 }
        paths = takes_path(sub(word, i + 1))
      elseif c == "," or #out == 0 then
        raise(pos + i - 1, "an event is missing before this ','")
      end
      start = i + 1
    end
  end
end

-- The specs of a clause from i: the list and the index after them.
local function read_specs(src, i)
  local specs = {}
  while true do
    local word = match(src, "^[^%s{]+", i)
    if not word then raise(i, "an event is expected here") end
    split_specs(word, i, specs)
    i = i + #word
    local j = find(src, "[^%s]", i) or #src + 1
    if sub(word, -1) == "," then
      i = j
    elseif sub(src, j, j) == "," then
      i = find(src, "[^%s]", j + 1) or #src + 1
    else
      return specs, j
    end
    if i > #src then raise(#src + 1, "an event is expected after ','") end
  end
end

-- The clause whose specs start at i: its table and the index after it.
local function clause(src, i)
  local c = { pos = i }
  local c1 = sub(src, i, i)
  if c1 == "{" then raise(i, "a clause starts with its event: EVENT { LUA }") end
  if c1 == "/" then raise(i, "a /condition/ follows the clause's event: EVENT /COND/ { LUA }") end
  c.specs, i = read_specs(src, i)
  if sub(src, i, i) == "/" then
    c.cond_open = i
    local p = new_parser(src, i + 1)
    p.in_cond = true
    if p.tok.t == "/" or p.tok.t == "//" then
      raise(c.cond_open, "the condition is empty: /COND/ needs an expression")
    end
    c.cond = p:expr()
    if p.tok.t ~= "/" then
      if p.tok.t == "{" or p.tok.t == "eof" then
        raise(c.cond_open, "the condition opened here has no closing '/' before its { LUA }")
      end
      p:unexpected("'/' (the end of the condition)")
    end
    c.cond_close = p.tok.pos
    if p:peek().t ~= "{" then
      raise(p.tok.pos, "a { LUA } must follow the condition")
    end
    i = p:peek().pos
  end
  if sub(src, i, i) ~= "{" then
    local text = c.specs[#c.specs].text
    if i > #src then
      raise(c.specs[#c.specs].pos, "'" .. text .. "' needs a { LUA } after it")
    end
    raise(i, "'" .. text .. "' needs a { LUA } after it, not " .. shown(lex(src, i)))
  end
  c.open = i
  local p = new_parser(src, i + 1)
  p.in_body = true
  c.body = p:block()
  if p.tok.t ~= "}" then
    if p.tok.t == "eof" then
      raise(i, "the '{' opened here is not closed: every clause is EVENT { LUA }")
    end
    p:unexpected("'}'")
  end
  c.close = p.tok.pos
  return c, c.close + 1
end

-- The clauses of the program src: { clauses = { { pos =, specs = {{text =,
-- pos =}}, cond = EXPR or nil, cond_open =, cond_close =, body = BLOCK,
-- open =, close = }, ... } }.
function M.program(src)
  local prog = { src = src, clauses = {} }
  local i = 1
  while true do
    i = find(src, "[^%s]", i)
    if not i then break end
    if sub(src, i, i + 1) == "//" or sub(src, i, i + 1) == "--" then
      raise(i, "a comment belongs inside a clause's { LUA }")
    end
    local c
    c, i = clause(src, i)
    c.n = #prog.clauses + 1
    prog.clauses[c.n] = c
  end
  if #prog.clauses == 0 then
    raise(1, "the program is empty: give EVENT { LUA }, e.g. 'raw_syscalls:sys_enter { count(comm) }'")
  end
  return prog
end

---------------------------------------------------------------------------
-- free names

-- Walks tree, calling visit(node, parent) before each node's children
-- (expressions and statements alike).
local CHILDREN = {
  Function = function(n, f) f(n.body) end,
  Table = function(n, f)
    for _, x in ipairs(n.fields) do
      if x.kind == "key" then f(x.key) end
      f(x.value)
    end
  end,
  Binop = function(n, f) f(n.left); f(n.right) end,
  Unop = function(n, f) f(n.expr) end,
  Paren = function(n, f) f(n.expr) end,
  Index = function(n, f) f(n.obj); f(n.key) end,
  Call = function(n, f) f(n.fn); for _, a in ipairs(n.args) do f(a) end end,
  Invoke = function(n, f) f(n.obj); for _, a in ipairs(n.args) do f(a) end end,
  Block = function(n, f) for _, s in ipairs(n.stats) do f(s) end end,
  Local = function(n, f) for _, e in ipairs(n.exprs) do f(e) end end,
  Assign = function(n, f)
    for _, e in ipairs(n.targets) do f(e) end
    for _, e in ipairs(n.exprs) do f(e) end
  end,
  CallStat = function(n, f) f(n.call) end,
  Do = function(n, f) f(n.body) end,
  While = function(n, f) f(n.cond); f(n.body) end,
  Repeat = function(n, f) f(n.body); f(n.cond) end,
  If = function(n, f)
    for i, c in ipairs(n.conds) do f(c); f(n.blocks[i]) end
    if n.orelse then f(n.orelse) end
  end,
  Fornum = function(n, f) f(n.start); f(n.stop); if n.step then f(n.step) end; f(n.body) end,
  Forin = function(n, f) for _, e in ipairs(n.exprs) do f(e) end; f(n.body) end,
  FunctionStat = function(n, f) f(n.target); f(n.func) end,
  LocalFunction = function(n, f) f(n.func) end,
  Return = function(n, f) for _, e in ipairs(n.exprs) do f(e) end end,
}

function M.walk(tree, visit)
  local function go(n, parent)
    if visit(n, parent) == false then return end
    local ch = CHILDREN[n.tag]
    if ch then ch(n, function(c) go(c, n) end) end
  end
  go(tree, nil)
end

-- The global (free) names tree uses, in source order: { {name =, pos =,
-- node =, write = bool}, ... }.  bound: names already local around tree
-- (a set), e.g. the sample's names a clause declares.  Scopes follow
-- Lua's: a local is visible after its statement, a repeat's body in its
-- until, a local function in its own body.
function M.free_names(tree, bound)
  local refs = {}
  local scope = { names = {}, up = nil }
  for k in pairs(bound or {}) do scope.names[k] = true end
  local function visible(name)
    local s = scope
    while s do
      if s.names[name] then return true end
      s = s.up
    end
    return false
  end
  local function open() scope = { names = {}, up = scope } end
  local function close() scope = scope.up end
  local function declare(name) scope.names[name] = true end
  local expr, block, stat
  local function exprs(list) for _, e in ipairs(list) do expr(e) end end
  local function target(e)
    if e.tag == "Name" then
      if not visible(e.name) then refs[#refs + 1] = { name = e.name, pos = e.pos, node = e, write = true } end
    else
      expr(e)
    end
  end
  local function funcbody(f)
    open()
    for _, prm in ipairs(f.params) do declare(prm.name) end
    block(f.body, true)
    close()
  end
  function expr(e)
    local tag = e.tag
    if tag == "Name" then
      if not visible(e.name) then refs[#refs + 1] = { name = e.name, pos = e.pos, node = e } end
    elseif tag == "Function" then
      funcbody(e)
    else
      local ch = CHILDREN[tag]
      if ch then ch(e, expr) end
    end
  end
  function block(b, same_scope, extra)
    if not same_scope then open() end
    if extra then extra() end
    for _, s in ipairs(b.stats) do stat(s) end
    if not same_scope then close() end
  end
  function stat(s)
    local tag = s.tag
    if tag == "Local" then
      exprs(s.exprs)
      for _, n in ipairs(s.names) do declare(n.name) end
    elseif tag == "LocalFunction" then
      declare(s.name.name)
      funcbody(s.func)
    elseif tag == "Assign" then
      exprs(s.exprs)
      for _, t in ipairs(s.targets) do target(t) end
    elseif tag == "FunctionStat" then
      if s.method then expr(s.target) else target(s.target) end   -- function t:m(): t.m =
      funcbody(s.func)
    elseif tag == "Fornum" then
      expr(s.start); expr(s.stop)
      if s.step then expr(s.step) end
      block(s.body, false, function() declare(s.var.name) end)
    elseif tag == "Forin" then
      exprs(s.exprs)
      block(s.body, false, function() for _, n in ipairs(s.names) do declare(n.name) end end)
    elseif tag == "Repeat" then
      open()
      for _, x in ipairs(s.body.stats) do stat(x) end
      expr(s.cond)
      close()
    elseif tag == "Do" then
      block(s.body)
    elseif tag == "While" then
      expr(s.cond)
      block(s.body)
    elseif tag == "If" then
      for i, c in ipairs(s.conds) do
        expr(c)
        block(s.blocks[i])
      end
      if s.orelse then block(s.orelse) end
    else
      local ch = CHILDREN[tag]
      if ch then ch(s, expr) end
    end
  end
  if tree.tag == "Block" then block(tree, true) else expr(tree) end
  return refs
end

return M
