-- wrk script: visible-rect queries for random viewports (1920×1080 points, random offsets and zooms) of one image.
-- Configured by environment variables: NAME, WIDTH, HEIGHT (the image's size in pixels), and TOKEN (sent as
-- `Authorization: Bearer`, for a private image).
--
-- Like random-tiles.lua, each thread draws its requests once, at start (65,536, cycled), so that wrk makes no
-- garbage (and takes no collection pauses) while measuring.
local name = os.getenv("NAME")
local width = tonumber(os.getenv("WIDTH"))
local height = tonumber(os.getenv("HEIGHT"))
local token = os.getenv("TOKEN")
local headers = (token and token ~= "") and { ["Authorization"] = "Bearer " .. token } or nil
local count = 65536
local counter = 0
local requests = {}
local index = 0

function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end

function init(args)
    math.randomseed(seed * 104729)
    for i = 1, count do
        local zoom = 2 ^ (math.random() * 8 - 7)  -- 1/128 … 2
        local x = math.floor((math.random() * width * zoom) - 960)
        local y = math.floor((math.random() * height * zoom) - 540)
        local path = string.format("/api/images/%s/visible?x=%d&y=%d&width=1920&height=1080&zoomScale=%.6f&contentScale=%d",
            name, x, y, zoom, math.random(1, 2))
        requests[i] = wrk.format("GET", path, headers)
    end
end

function request()
    index = index % count + 1
    return requests[index]
end
