-- wrk script for gateway-bench: POSTs device registrations over keep-alive connections, each with a token no other
-- request uses, for a user picked at random from the tokens listed (one JWT per line) in the file $HERALD_BENCH_TOKENS. Tokens
-- carry the number in $HERALD_BENCH_ROUND, so a later run registers new devices too rather than re-registering.

local threads = 0

function setup(thread)
   thread:set("thread_id", threads)
   threads = threads + 1
end

function init(args)
   tokens = {}
   for line in io.lines(os.getenv("HERALD_BENCH_TOKENS")) do
      tokens[#tokens + 1] = line
   end
   counter = 0
   round = tonumber(os.getenv("HERALD_BENCH_ROUND") or "0")
end

function request()
   counter = counter + 1
   local token = string.format("%08x%08x%048x", round, thread_id, counter)
   -- A user at random, as registrations come in: walking the list in step, both threads would register for the
   -- same user at the same moment, and wait for each other's lock on that user's devices.
   local jwt = tokens[math.random(#tokens)]
   local body = '{"token":"' .. token .. '","platform":"iOS","appVersion":"1.0","osVersion":"18.0"}'
   return wrk.format("POST", "/api/v1/devices/register",
      { ["Authorization"] = "Bearer " .. jwt, ["Content-Type"] = "application/json" }, body)
end
