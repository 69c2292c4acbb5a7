-- wrk-report.lua: print wrk's results in lines mtebench parses
-- (loadgen/adapt.c, mtl_adapt_wrk): percentile points, totals, errors.
done = function(summary, latency, requests)
   local pts = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5,
                 99.9, 99.95, 99.99, 99.999, 100 }
   for _, p in ipairs(pts) do
      io.write(string.format("P %g %d\n", p, latency:percentile(p)))
   end
   io.write(string.format("REQ %d\n", summary.requests))
   io.write(string.format("DUR %d\n", summary.duration))
   io.write(string.format("ERR connect %d\n", summary.errors.connect))
   io.write(string.format("ERR read %d\n", summary.errors.read))
   io.write(string.format("ERR write %d\n", summary.errors.write))
   io.write(string.format("ERR status %d\n", summary.errors.status))
   io.write(string.format("ERR timeout %d\n", summary.errors.timeout))
end
