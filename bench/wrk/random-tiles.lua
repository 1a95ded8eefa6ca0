-- wrk script: GET random tiles of one level (or of several levels) of one pyramid, seeded for repeatability.
-- Configured by environment variables: PREFIX (e.g. /images/img_files), LEVEL, COLS, ROWS, EXT.
local prefix = os.getenv("PREFIX")
local level = os.getenv("LEVEL")
local cols = tonumber(os.getenv("COLS"))
local rows = tonumber(os.getenv("ROWS"))
local ext = os.getenv("EXT") or "jpg"
local counter = 0

function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end

function init(args)
    math.randomseed(seed * 7919)
end

function request()
    local path = prefix .. "/" .. level .. "/" .. math.random(0, cols - 1) .. "_" .. math.random(0, rows - 1) .. "." .. ext
    return wrk.format("GET", path)
end
