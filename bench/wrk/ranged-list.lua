-- wrk script: ranged GETs of one object, the ranges listed in a file (RANGES, lines "PATH FIRST LAST": the path, and
-- the inclusive byte range as in an HTTP Range header), each thread in its own seeded random order, cycled. What a
-- client reading tiles straight from a store sends. Requests are built once at start, as in random-tiles.lua.
local file = os.getenv("RANGES")
local counter = 0
local requests = {}
local index = 0

function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end

function init(args)
    local lines = {}
    for line in io.lines(file) do
        if #line > 0 then table.insert(lines, line) end
    end
    math.randomseed(seed * 7919)
    for i = #lines, 2, -1 do
        local j = math.random(1, i)
        lines[i], lines[j] = lines[j], lines[i]
    end
    for i, line in ipairs(lines) do
        local path, first, last = line:match("^(%S+) (%d+) (%d+)$")
        requests[i] = wrk.format("GET", path, { ["Range"] = "bytes=" .. first .. "-" .. last })
    end
end

function request()
    index = index % #requests + 1
    return requests[index]
end
