-- The template engine of tmcml's kernel generator (docs/templates.md).
--
-- A template is text, read line by line:
--   * a line whose first non-blank character is '%' is Lua code;
--   * a line whose first non-blank characters are '%%' is output, with the
--     first '%' removed (for the rare output line that starts with '%');
--   * every other line is output, with each {{expr}} replaced by the value
--     of the Lua expression expr.
--
-- A template compiles to one Lua chunk with exactly one line of Lua per line
-- of template, so Lua's own line numbers in syntax and runtime errors are the
-- template's.  Chunks are named "=template NAME", so those errors read
-- "template NAME:LINE: message".  Errors the engine raises itself (a nil
-- substitution, a missing include) carry no position: the generator's
-- message handler (gen/render.c) prefixes them with the innermost template
-- line on the stack, which is where the template called into the engine.
--
-- The engine runs in a Lua state made for one render; templates run in a
-- separate environment (new_env) that holds the spec, the helpers and pure
-- libraries only: no files, no process environment, no loading of code.

local M = {}

-- The engine keeps its own references, so a template that changes a library
-- table of its environment cannot change how the engine works.
local concat = table.concat
local format, sub, find, match, gmatch = string.format, string.sub, string.find, string.match,
    string.gmatch
local pack, unpack = string.pack, string.unpack
local mathtype, huge = math.type, math.huge
local error, load, pairs, ipairs, select, setmetatable, tostring, type =
    error, load, pairs, ipairs, select, setmetatable, tostring, type

-- Includes nested deeper than this are almost certainly a template that
-- includes itself.
local MAX_INCLUDE_DEPTH = 32

-- Smallest double that rounds to infinity as a float: halfway between
-- FLT_MAX and 2^128 (round-to-nearest-even sends the midpoint up).
local FLOAT_LIMIT = 0x1.ffffffp127

------------------------------------------------------------------------------
-- Literal helpers
------------------------------------------------------------------------------

local function check_number(x, helper)
    if type(x) ~= "number" then
        error(format("%s(): expected a number, got %s", helper, type(x)), 0)
    end
    if x ~= x or x == huge or x == -huge then
        error(format("%s(): %s is not finite", helper, tostring(x)), 0)
    end
end

-- "%g" writes integral values without a point ("1", "-0", "1e+30" is
-- fine); C would read "1" as an integer literal.
local function ensure_point(text)
    if find(text, "[.e]") then
        return text
    end
    return text .. ".0"
end

-- f(x): a float literal for the float nearest to x.  Nine significant
-- digits identify every float, so strtof (and NVRTC) read the literal back
-- as exactly that float.
local function float_literal(x)
    check_number(x, "f")
    if x >= FLOAT_LIMIT or x <= -FLOAT_LIMIT then
        error(format("f(): %.17g is outside the range of float", x), 0)
    end
    local nearest = unpack("f", pack("f", x))
    return ensure_point(format("%.9g", nearest)) .. "f"
end

-- d(x): a double literal; seventeen significant digits round-trip a double.
local function double_literal(x)
    check_number(x, "d")
    return ensure_point(format("%.17g", x))
end

------------------------------------------------------------------------------
-- A read-only, strict view of the spec
------------------------------------------------------------------------------

-- Reading a field the spec does not have is an error rather than nil, so a
-- misspelt `% if spec.score_absorbtion then` fails loudly instead of quietly
-- generating the other variant.  `optional` names the fields that may be
-- nil (spec.layers when the layers are not baked in).
local function strict_view(t, what, optional)
    local function path(k)
        return what .. (type(k) == "string" and "." .. k or "[" .. tostring(k) .. "]")
    end
    for k, v in pairs(t) do
        if type(v) == "table" then
            t[k] = strict_view(v, path(k), nil)
        end
    end
    return setmetatable({}, {
        __index = function(_, k)
            local v = t[k]
            if v == nil and not (optional and optional[k]) then
                error(format("%s does not exist", path(k)), 0)
            end
            return v
        end,
        __newindex = function(_, k)
            error(format("%s is read-only", path(k)), 0)
        end,
        __len = function() return #t end,
        __pairs = function() return next, t, nil end,
        __metatable = false,
    })
end

------------------------------------------------------------------------------
-- Compiling a template to Lua
------------------------------------------------------------------------------

-- Splits text into lines (without their "\n" or a trailing "\r"); a final
-- newline does not start another, empty line.
local function split_lines(text)
    local lines = {}
    if text ~= "" and sub(text, -1) ~= "\n" then
        text = text .. "\n"
    end
    for line in gmatch(text, "(.-)\r?\n") do
        lines[#lines + 1] = line
    end
    return lines
end

-- One output line as one Lua statement: _emit(literal, _sub((expr), "expr"),
-- ...).  The parentheses make a call that returns several values substitute
-- its first one.
local function compile_output(line)
    local parts, pos = {}, 1
    while true do
        local open, stop, expr = find(line, "{{(.-)}}", pos)
        if not open then
            break
        end
        if open > pos then
            parts[#parts + 1] = format("%q", sub(line, pos, open - 1))
        end
        parts[#parts + 1] = format("_sub((%s), %q)", expr, expr)
        pos = stop + 1
    end
    if pos <= #line then
        parts[#parts + 1] = format("%q", sub(line, pos))
    end
    -- Written as an escape: "%q" would continue the string on a new line of
    -- the chunk and shift every later line number.
    parts[#parts + 1] = '"\\n"'
    return "_emit(" .. concat(parts, ", ") .. ")"
end

-- Template text -> Lua source with exactly one line per template line.
local function compile(text)
    local out = {}
    for lineno, line in ipairs(split_lines(text)) do
        local indent, code = match(line, "^(%s*)%%(.*)$")
        if code and sub(code, 1, 1) == "%" then
            out[lineno] = compile_output(indent .. code)
        elseif code then
            out[lineno] = code
        else
            out[lineno] = compile_output(line)
        end
    end
    return concat(out, "\n")
end

------------------------------------------------------------------------------
-- Rendering
------------------------------------------------------------------------------

local function copy(t)
    local c = {}
    for k, v in pairs(t) do
        c[k] = v
    end
    return c
end

-- Base functions a template may use: pure computation only (no load,
-- require, io, os, debug, print, metatables).
local SAFE_BASE = {
    "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber", "tostring",
    "type",
}

-- A value as it appears in the output: strings as they are, integers and
-- booleans in C spelling.  A non-integer number is refused because its C
-- spelling has to be chosen: f() for float, d() for double, // for an
-- integer quotient.
local function substitute(value, expr)
    local kind = type(value)
    if kind == "string" then
        return value
    elseif (kind == "number" and mathtype(value) == "integer") or kind == "boolean" then
        return tostring(value)
    elseif value == nil then
        error(format("{{%s}} is nil", expr), 0)
    elseif kind == "number" then
        error(format("{{%s}} is the non-integer number %s: write f(...) or d(...)", expr,
            tostring(value)), 0)
    end
    error(format("{{%s}} is a %s, not a string or number", expr, kind), 0)
end

-- The environment of one render, shared by every template it includes.
local function new_env(spec, key, optional, emit, include)
    local env = {}
    for _, k in ipairs(SAFE_BASE) do
        env[k] = _G[k]
    end
    env.string, env.table, env.math = copy(string), copy(table), copy(math)
    env.spec = strict_view(spec, "spec", optional)
    env.key = key
    env.f = float_literal
    env.d = double_literal
    env.include = include
    env._emit = emit
    env._sub = substitute
    return env
end

-- Renders template `name` and returns the text.
--   loader(name) -> text | nil, why   reads a template (given by the generator)
--   spec                              the KernelSpec as a table
--   key                               the spec's canonical key
--   optional                          set of spec fields that may be nil
function M.render(loader, name, spec, key, optional)
    local out, chunks, depth, env = {}, {}, 0, nil

    local function emit(...)
        for i = 1, select("#", ...) do
            out[#out + 1] = (select(i, ...))
        end
    end

    -- Each template is compiled once per render, however often included.
    local function chunk(tname)
        if not chunks[tname] then
            local text, why = loader(tname)
            if not text then
                error(format("cannot load template %s: %s", tname, why or "not found"), 0)
            end
            local fn, err = load(compile(text), "=template " .. tname, "t", env)
            if not fn then
                error(err, 0)
            end
            chunks[tname] = fn
        end
        return chunks[tname]
    end

    local function include(tname)
        if type(tname) ~= "string" then
            error("include(): expected a template name", 0)
        end
        if depth >= MAX_INCLUDE_DEPTH then
            error(format("include(%q): nested deeper than %d (a template including itself?)",
                tname, MAX_INCLUDE_DEPTH), 0)
        end
        local fn = chunk(tname)
        depth = depth + 1
        fn()
        depth = depth - 1
    end

    env = new_env(spec, key, optional or {}, emit, include)
    include(name)
    return concat(out)
end

-- For tests and for readers who want to see what a template becomes.
M.compile = compile
M.float_literal = float_literal
M.double_literal = double_literal

return M
