#!/usr/bin/env python3
"""Queueing arithmetic for a capacity search of memcached's spinning plants
(capacity-md1.t, tests/bench/capacity-md1.sh), independent of the harness.

    md1.py CAPACITY_JSON   -> a JSON list, one entry per configuration

One worker thread, a fixed time per request, Poisson arrivals: an M/D/1
queue. The service time D is memcached's own CPU time per command in the
search's open-loop runs at half its saturation or more (its rusage through
the recipe's counters); the fixed delay c every request also sees
(loopback, the client) is the median latency at the lowest probed rate
less D. The M/D/1 capacity for the bound is computed with Erlang's
waiting-time formula in exact decimal arithmetic for a response time
W + D + c; the M/M/1 capacity (exponential service times of the same mean:
p99 = ln 100 / (mu - lambda)) is the jittery end. A real server's jitter
puts its capacity between the two. Every figure is null where the search
gave none (no point at half saturation, a bound at or under D + c)."""
import json
import math
import sys
from decimal import Decimal as D, getcontext

getcontext().prec = 80


def cdf(lam, d, t):
    """P(response <= t) of M/D/1, Erlang's formula for the wait"""
    w = t - d
    if w < 0:
        return 0.0
    s = D(0)
    for k in range(int(math.floor(w / d)) + 1):
        x = D(lam) * (D(k) * D(d) - D(w))
        s += x ** k / math.factorial(k) * (-x).exp()
    return float((1 - D(lam * d)) * s)


def capacity(d, bound, q=0.99):
    if bound <= d:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(40):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if cdf(m / d, d, bound) >= q else (lo, m)
    return lo / d


def main(path):
    r = json.load(open(path))
    bound = r["slo"]["bounds"][0]["bound_us"] * 1e-6
    out = []
    for c in r["configs"]:
        sat = c["closed_loop_ops"]
        e = c["capacity"][0]
        row = dict(variant=c["variant"], sat=sat, bound_us=bound * 1e6,
                   **{k: e.get(k) for k in ("status", "capacity", "lo", "hi")})
        per = []
        for p in c["points"]:
            if p["rate"] < 0.5 * sat:
                continue
            for f in p["records"]:
                dl = json.load(open(f)).get("service_counters", {}).get("delta", {})
                cmds = dl.get("cmd_get", 0) + dl.get("cmd_set", 0)
                if cmds:
                    per.append((dl["rusage_user_us"] + dl["rusage_system_us"]) / cmds * 1e-6)
        pts = [p for p in c["points"] if (p.get("corrected") or {}).get("p50") is not None]
        if not per or not pts:
            out.append(dict(row, pred=None, mm1=None, d_us=None, fixed_us=None, of_pred=None))
            continue
        per.sort()
        d = per[len(per) // 2]
        low = min(pts, key=lambda p: p["rate"])
        fixed = max(0.0, low["corrected"]["p50"] * 1e-6 - d)
        pred = capacity(d, bound - fixed)
        mm1 = max(0.0, 1 / d - math.log(100) / (bound - fixed)) if bound > fixed else 0.0
        row.update(d_us=d * 1e6, d_pilot_us=1e6 / sat if sat else None, fixed_us=fixed * 1e6, pred=pred, mm1=mm1,
                   rho=pred * d if pred else None,
                   of_pred=e["capacity"] / pred if pred and e.get("capacity") else None)
        out.append(row)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
