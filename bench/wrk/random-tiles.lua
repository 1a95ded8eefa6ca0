-- wrk script: GET random tiles of one level of one pyramid, seeded for repeatability.
-- Configured by environment variables: PREFIX (e.g. /images/img_files), LEVEL, COLS, ROWS, EXT, and QUERY (appended
-- after `?`: a private image's signed-URL query).
--
-- Each thread draws its requests once, at start (65,536 of them, then cycled). Building every request in Lua as it
-- was sent made garbage whose collection paused wrk's threads for milliseconds; on two cores shared with the server
-- those pauses showed up as server latency (p99), more so the faster the server answered.
local prefix = os.getenv("PREFIX")
local level = os.getenv("LEVEL")
local cols = tonumber(os.getenv("COLS"))
local rows = tonumber(os.getenv("ROWS"))
local ext = os.getenv("EXT") or "jpg"
local query = os.getenv("QUERY")
local count = 65536
local counter = 0
local requests = {}
local index = 0

function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end

function init(args)
    math.randomseed(seed * 7919)
    for i = 1, count do
        local path = prefix .. "/" .. level .. "/" .. math.random(0, cols - 1) .. "_" .. math.random(0, rows - 1) .. "." .. ext
        if query and query ~= "" then path = path .. "?" .. query end
        requests[i] = wrk.format("GET", path)
    end
end

function request()
    index = index % count + 1
    return requests[index]
end
