-- wrk script: GET the URLs listed in a file (URLS, one path per line), each thread in its own seeded random order,
-- cycled. Like random-tiles.lua, requests are built once at start so that wrk makes no garbage while measuring.
-- Prints, at the end, every status other than 200 with its count (wrk's own summary counts them only as "Non-2xx").
local file = os.getenv("URLS")
local counter = 0
local requests = {}
local index = 0
local threads = {}
local statuses = {}

function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
    table.insert(threads, thread)
end

function init(args)
    local paths = {}
    for line in io.lines(file) do
        if #line > 0 then table.insert(paths, line) end
    end
    math.randomseed(seed * 7919)
    for i = #paths, 2, -1 do
        local j = math.random(1, i)
        paths[i], paths[j] = paths[j], paths[i]
    end
    for i, path in ipairs(paths) do requests[i] = wrk.format("GET", path) end
    bad = {}
end

function request()
    index = index % #requests + 1
    return requests[index]
end

function response(status, headers, body)
    if status ~= 200 then bad[status] = (bad[status] or 0) + 1 end
end

function done(summary, latency, requests)
    for _, thread in ipairs(threads) do
        local counts = thread:get("bad")
        for status, count in pairs(counts or {}) do statuses[status] = (statuses[status] or 0) + count end
    end
    for status, count in pairs(statuses) do io.write(string.format("status %d: %d\n", status, count)) end
end
