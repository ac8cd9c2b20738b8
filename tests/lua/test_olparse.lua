-- olparse (lua/helpers/olparse.lua), the one-liners' lexer and parser:
-- tokens, positions, the Lua 5.4 grammar, the program's clauses, free
-- names, the errors and their fixes, and garbled programs.
local T = require "harness"

local root = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
package.path = root .. "/lua/helpers/?.lua;" .. package.path
local P = require "olparse"

-- "LINE:COL: MSG" of the error f(src) raises, and the fixed source when
-- it has a fix; "no error" when it raises none.
local function err_of(f, src)
  local ok, e = pcall(f, src)
  if ok then return "no error" end
  if not P.is_error(e) then error(e, 0) end
  local l, c = P.where(src, e.pos)
  local s = string.format("%d:%d: %s", l, c, e.msg)
  if e.fix then s = s .. " => " .. src:sub(1, e.fix.from - 1) .. e.fix.text .. src:sub(e.fix.to + 1) end
  return s
end

-- The tokens of src as "type=value@pos" strings.
local function toks(src)
  local out = {}
  for i, t in ipairs(P.tokens(src)) do
    out[i] = t.t .. (t.v ~= nil and t.t ~= t.v and "=" .. tostring(t.v) or "") .. "@" .. t.pos
  end
  return table.concat(out, " ")
end

T.case("lexer: names, keywords, numbers, strings, symbols", function()
  T.eq(toks("local x = 0x1F + 3.5e2 .. 'a' // y ~= z"),
       "local@1 name=x@7 =@9 number=31@11 +@16 number=350.0@18 ..@24 string=a@27 //@31 name=y@34 ~=@36 name=z@39")
  T.eq(toks("a.b:c(...)[1]::l::#t"), "name=a@1 .@2 name=b@3 :@4 name=c@5 (@6 ...@7 )@10 [@11 number=1@12 ]@13 " ..
                                      "::@14 name=l@16 ::@17 #@19 name=t@20")
  T.eq(toks("0xA .5 3. 1e-2 0x.8p1"), "number=10@1 number=0.5@5 number=3.0@8 number=0.01@11 number=1.0@16")
  T.eq(toks("x -- comment }\ny --[[ long\n}]] z"), "name=x@1 name=y@16 name=z@32")
  T.eq(P.tokens([["a\tb\65\x41\u{263A}\z
       c"]])[1].v, "a\tbAA\226\152\186c")
  T.eq(P.tokens("[==[\nx]]y]==]")[1].v, "x]]y")
  T.eq(P.tokens("'it''s'")[2].v, "s")
end)

T.case("lexer: bpftrace's tokens are tokens", function()
  T.eq(toks("a != b && !c || d->e ++ += -= *= @x $y"),
       "name=a@1 !=@3 name=b@6 &&@8 !@11 name=c@12 ||@14 name=d@17 ->@18 name=e@20 ++@22 +=@25 -=@28 *=@31 " ..
       "@@34 name=x@35 $@37 name=y@38")
end)

T.case("lexer: errors at their place", function()
  T.eq(err_of(P.tokens, 'x = "abc'), "1:5: the string opened here is not closed")
  T.eq(err_of(P.tokens, 'x = "a\nb"'), "1:5: the string opened here is not closed on its line")
  T.eq(err_of(P.tokens, "x = 3x"), "1:5: malformed number '3x'")
  T.eq(err_of(P.tokens, 'x = "\\q"'), "1:6: invalid escape '\\q' in a string")
  T.eq(err_of(P.tokens, "x = [[abc"), "1:5: the long string opened here is not closed")
  T.eq(err_of(P.tokens, "a\n--[[ x"), "2:1: the comment opened here is not closed")
  T.eq(err_of(P.tokens, "x = `y`"), "1:5: '`' is no Lua: a string is \"...\" or '...'")
  T.eq(err_of(P.tokens, "x = \"\\300\""), "1:6: the escape \\300 is above 255")
  T.eq(err_of(P.tokens, "x = \128"), "1:5: unexpected character '\\128'")
  T.eq(err_of(P.tokens, "x = \xc3\xa9"), "1:5: unexpected character '\xc3\xa9'")
end)

T.case("where: lines and columns (characters)", function()
  local src = "ab\ncd\n\xc3\xa9x"
  T.eq({ P.where(src, 1) }, { 1, 1 })
  T.eq({ P.where(src, 4) }, { 2, 1 })
  T.eq({ P.where(src, 5) }, { 2, 2 })
  T.eq({ P.where(src, 9) }, { 3, 2 })
end)

-- The expression's tree as prefix text: (op a b), names and values.
local function show(e)
  local t = e.tag
  if t == "Name" then return e.name end
  if t == "Number" then return tostring(e.value) end
  if t == "String" then return string.format("%q", e.value) end
  if t == "Binop" then return "(" .. e.op .. " " .. show(e.left) .. " " .. show(e.right) .. ")" end
  if t == "Unop" then return "(" .. e.op .. " " .. show(e.expr) .. ")" end
  if t == "Paren" then return "[" .. show(e.expr) .. "]" end
  if t == "Index" then return show(e.obj) .. (e.dot and "." .. e.key.value or "[" .. show(e.key) .. "]") end
  if t == "Call" then
    local a = {}
    for i, x in ipairs(e.args) do a[i] = show(x) end
    return show(e.fn) .. "(" .. table.concat(a, ", ") .. ")"
  end
  return t
end

T.case("parser: precedence and associativity, as Lua's", function()
  local function p(s) return show(P.expression(s)) end
  T.eq(p("a + b * c"), "(+ a (* b c))")
  T.eq(p("a - b - c"), "(- (- a b) c)")
  T.eq(p("2 ^ 3 ^ 2"), "(^ 2 (^ 3 2))")
  T.eq(p("-x ^ 2"), "(- (^ x 2))")
  T.eq(p("a .. b .. c"), "(.. a (.. b c))")
  T.eq(p("not a == b"), "(== (not a) b)")
  T.eq(p("a or b and c"), "(or a (and b c))")
  T.eq(p("a < b == c"), "(== (< a b) c)")
  T.eq(p("a | b ~ c & d << 1"), "(| a (~ b (& c (<< d 1))))")
  T.eq(p("#t + ~x"), "(+ (# t) (~ x))")
  T.eq(p("a // b % c"), "(% (// a b) c)")
  T.eq(p("f(x)(y).z[1]"), "f(x)(y).z[1]")
  T.eq(p("f'x'"), 'f("x")')
  T.eq(p("(a)"), "[a]")
end)

T.case("parser: positions of nodes", function()
  local src = "count(args.ret, comm)"
  local e = P.expression(src)
  T.eq({ e.pos, e.epos }, { 1, 21 })
  T.eq({ e.args[1].pos, e.args[1].epos }, { 7, 14 })
  T.eq({ e.args[1].key.pos, e.args[1].key.epos }, { 12, 14 })
  T.eq({ e.args[2].pos, e.args[2].epos }, { 17, 20 })
  local b = P.chunk("x = 1\n  if x then\n    y()\n  end")
  T.eq({ P.where("x = 1\n  if x then\n    y()\n  end", b.stats[2].pos) }, { 2, 3 })
  T.eq(b.stats[2].blocks[1].stats[1].pos, 23)
end)

T.case("parser: every statement of Lua 5.4", function()
  local b = P.chunk([[
    local a <const>, b <close> = 1, nil
    local function f(x, ...) return x, ... end
    function t.a.b:c(y) return self, y end
    function g() end
    x, y.z, w[1] = 1, 2, 3
    f(1); f"s"; f{1, [2] = 3, k = 4; 5}; obj:m(1)
    do local q = 1 end
    while x do break end
    repeat local r = 1 until r
    if a then elseif b then else end
    for i = 1, 10, 2 do end
    for k, v in pairs(t) do end
    goto done
    ::done::
    return 1, 2
  ]])
  local tags = {}
  for i, s in ipairs(b.stats) do tags[i] = s.tag end
  T.eq(table.concat(tags, " "), "Local LocalFunction FunctionStat FunctionStat Assign CallStat CallStat CallStat " ..
       "CallStat Do While Repeat If Fornum Forin Goto Label Return")
  T.eq(b.stats[1].names[1].attrib, "const")
  T.eq(b.stats[3].method, "c")
  T.eq(b.stats[3].func.params[1].name, "self")
end)

T.case("parser: syntax errors at their place", function()
  T.eq(err_of(P.chunk, "x = = 1"), "1:5: an expression expected near '='")
  T.eq(err_of(P.chunk, "if x then y()"), "1:14: 'end' expected (to close 'if' at 1:1) near the end of the program")
  T.eq(err_of(P.chunk, "f(a, b"), "1:7: ')' expected (to close '(' at 1:2) near the end of the program")
  T.eq(err_of(P.chunk, "x"), "1:2: a statement is expected: '=' or a call after 'x'")
  T.eq(err_of(P.chunk, "break"), "1:1: 'break' is outside a loop")
  T.eq(err_of(P.chunk, "function f() return ... end"), "1:21: '...' is used outside a vararg function")
  T.eq(err_of(P.chunk, "local x <bogus> = 1"), "1:10: unknown attribute 'bogus'")
  T.eq(err_of(P.chunk, "(f)() = 1"), "1:1: cannot assign to this expression")
  T.eq(err_of(P.chunk, "for i do end"), "1:7: '=' or 'in' expected near 'do'")
  -- nesting as deep as Lua's own parser takes, no deeper
  T.eq(err_of(P.chunk, "x = " .. ("("):rep(150) .. "1" .. (")"):rep(150)), "no error")
  T.eq(err_of(P.chunk, "x = " .. ("("):rep(300) .. "1" .. (")"):rep(300)),
       "1:204: the program nests deeper than 200 levels")
  T.eq(err_of(P.chunk, ("do "):rep(300) .. ("end "):rep(300)), "1:601: the program nests deeper than 200 levels")
end)

T.case("program: clauses, events, conditions, bodies", function()
  local src = 'sched:sched_switch /args.prev_state == 1/ { count(comm) }\n' ..
              'a:b,c:d/x=1,y=2/ , uprobe:/bin/x,y:f { local t = {x = "}"} -- }\n }\n' ..
              'BEGIN{ t.n = 0 } e /x / 2 > 1/ { }'
  local prog = P.program(src)
  T.eq(#prog.clauses, 4)
  local c1, c2, c3, c4 = table.unpack(prog.clauses)
  T.eq(c1.specs, { { text = "sched:sched_switch", pos = 1 } })
  T.eq(show(c1.cond), "(== args.prev_state 1)")
  T.eq({ c1.cond_open, c1.cond_close, c1.open, c1.close }, { 20, 41, 43, 57 })
  -- a probe's path ends at a comma, as -e splits it
  T.eq(c2.specs, { { text = "a:b", pos = 59 }, { text = "c:d/x=1,y=2/", pos = 63 },
                   { text = "uprobe:/bin/x", pos = 78 }, { text = "y:f", pos = 92 } })
  T.eq(#c2.body.stats, 1)
  T.eq(c3.specs[1].text, "BEGIN")
  T.eq(show(c4.cond), "(> (/ x 2) 1)")
end)

T.case("program: mistakes at their place", function()
  T.eq(err_of(P.program, ""), "1:1: the program is empty: give EVENT { LUA }, e.g. " ..
                               "'raw_syscalls:sys_enter { count(comm) }'")
  T.eq(err_of(P.program, "  sched:sched_switch count()"), "1:22: 'sched:sched_switch' needs a { LUA } after it, " ..
                                                         "not 'count'")
  T.eq(err_of(P.program, "a"), "1:1: 'a' needs a { LUA } after it")
  T.eq(err_of(P.program, "a { count( }"), "1:12: an expression expected near '}'")
  T.eq(err_of(P.program, "a {\n x = 1"), "1:3: the '{' opened here is not closed: every clause is EVENT { LUA }")
  T.eq(err_of(P.program, "a /x { }"), "1:3: the condition opened here has no closing '/' before its { LUA }")
  T.eq(err_of(P.program, "a // { }"), "1:3: the condition is empty: /COND/ needs an expression")
  T.eq(err_of(P.program, "{ x() }"), "1:1: a clause starts with its event: EVENT { LUA }")
  T.eq(err_of(P.program, "/x/ { }"), "1:1: a /condition/ follows the clause's event: EVENT /COND/ { LUA }")
  T.eq(err_of(P.program, "a,,b { }"), "1:3: an event is missing before this ','")
  T.eq(err_of(P.program, "a { } -- x"), "1:7: a comment belongs inside a clause's { LUA }")
  T.eq(err_of(P.program, 'a { print("x) }'), "1:11: the string opened here is not closed")
  T.eq(err_of(P.program, "a { if (x) { y() } }"), "1:12: Lua's if is 'if COND then ... end', not 'if (COND) { ... }'")
end)

T.case("program: bpftrace's spellings get Lua's, as a fix", function()
  T.eq(err_of(P.program, "a /args.ret != 0/ { }"), "1:13: '!=' is Lua's '~=' here => a /args.ret ~= 0/ { }")
  T.eq(err_of(P.program, "a /x&&y/ { }"), "1:5: '&&' is Lua's 'and' here => a /x and y/ { }")
  T.eq(err_of(P.program, "a /x || y/ { }"), "1:6: '||' is Lua's 'or' here => a /x or y/ { }")
  T.eq(err_of(P.program, "a /!x/ { }"), "1:4: '!' is Lua's 'not' here => a /not x/ { }")
  T.eq(err_of(P.program, "a { sum(args->ret) }"), "1:13: '->' is Lua's '.' here => a { sum(args.ret) }")
  T.eq(err_of(P.program, "a { @[comm] = count(); }"),
       "1:5: bpftrace's '@[comm] = count()' is luaprof's 'count(comm)' => a { count(comm); }")
  T.eq(err_of(P.program, "a { @ = count() }"), "1:5: bpftrace's '@ = count()' is luaprof's 'count()' => a { count() }")
  T.eq(err_of(P.program, "a { @bytes[pid, comm] = hist(args.ret) }"),
       "1:5: bpftrace's '@bytes[pid, comm] = hist(args.ret)' is luaprof's 'hist(\"@bytes\", args.ret, pid, comm)' " ..
       "=> a { hist(\"@bytes\", args.ret, pid, comm) }")
  T.eq(err_of(P.program, "a { @x = 1 }"), "1:5: luaprof has no @ variables: count(k...), sum(v, k...), " ..
       "hist(v, k...), ... aggregate, and their maps print at the end; other values go in t (t[k] = v)")
  T.eq(err_of(P.program, "a { n++ }"), "1:6: '++' is not Lua: write n = n + 1 => a { n = n + 1 }")
  T.eq(err_of(P.program, "a { t[tid] += x * 2 }"),
       "1:12: '+=' is not Lua: write t[tid] = t[tid] + (x * 2) => a { t[tid] = t[tid] + (x * 2) }")
  T.eq(err_of(P.program, "a { $x = 1 }"),
       "1:5: '$x' is bpftrace's: a Lua variable is a plain name ('local x = ...') => a { x = 1 }")
end)

-- The free names of a chunk as "name" (read) or "name=" (written).
local function free(src)
  local out = {}
  for i, r in ipairs(P.free_names(P.chunk(src))) do out[i] = r.name .. (r.write and "=" or "") end
  return table.concat(out, " ")
end

T.case("free names: Lua's scopes", function()
  T.eq(free("x = y"), "y x=")
  T.eq(free("local a = a; print(a)"), "a print")
  T.eq(free("local function f(n) return f(n - 1) end"), "")
  T.eq(free("local f = function(n) return f(n) end"), "f")
  T.eq(free("for i = 1, n do s = s + i end print(i)"), "n s s= print i")
  T.eq(free("for k, v in pairs(t) do use(k, v) end"), "pairs t use")
  T.eq(free("repeat local z = f() until z"), "f")
  T.eq(free("do local q = 1 end q = 2"), "q=")
  T.eq(free("function obj.m(self) return self end function g() end"), "obj g=")
  T.eq(free("function t:m() return self, x end"), "t x")
  T.eq(free("if a then local b = 1 else c = b end"), "a b c=")
  T.eq(free("count(comm, s.pid, t[tid])"), "count comm s t tid")
  T.eq(#P.free_names(P.chunk("x = pid"), { pid = true }), 1)
end)

-- Garbled programs (cut, bytes changed, deterministic): the parser
-- returns or raises its own error, at a byte inside the program, never a
-- Lua error of its own (a bug).
T.case("program: garbled programs fail cleanly", function()
  local bases = {
    'sched:sched_switch /args.prev_state == 1/ { count(comm, args.next_pid) }',
    'BEGIN { t.n = 0 } sched:sched_switch { t.n = t.n + 1; hist(args.prev_prio) } END { print(t.n) }',
    'syscalls:sys_exit_read { sum(args.ret, comm) } a { printf("%s\\n", [[x}]]) --[==[ c ]==] }',
    'a /x // 2 ~= 0x1p4 and not y/ { local f = function(...) return ... end; for i = 1, 3 do f(i) end }',
    'tracepoint:a:b /args->x != 0 && !y/ { @[comm] = count(); n++ }',
  }
  local pieces = { "{", "}", "/", '"', "'", "[", "]", "(", ")", "=", ",", ".", "\\", "x", " ", "-", "--", "[[",
                   "]]", "@", "!", "::", "..." }
  local seed = 22
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local bad = 0
  for _ = 1, 3000 do
    local s = bases[rand(#bases)]
    for _ = 1, rand(3) do
      local k = rand(#s)
      local op = rand(3)
      if op == 1 then s = s:sub(1, k - 1) .. pieces[rand(#pieces)] .. s:sub(k + 1)
      elseif op == 2 then s = s:sub(1, k - 1) .. s:sub(k + rand(5))
      else s = s:sub(1, k - 1) .. pieces[rand(#pieces)] .. s:sub(k) end
    end
    local ok, e = pcall(P.program, s)
    if not ok and not (P.is_error(e) and e.pos >= 1 and e.pos <= #s + 1) then
      bad = bad + 1
      if bad <= 3 then T.eq(tostring(e), "an olparse error", s) end
    end
  end
  T.eq(bad, 0, "garbled programs that failed otherwise")
end)

T.done()
