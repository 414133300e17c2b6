#!/usr/bin/python3
"""Long runs and credentials: temporary credentials from a credential_process that
expire during a steady run (time-scaled: a set lasts seconds, not an hour).

The process hands out a new set at each call (set 0, 1, 2, ...), each with its own
Expiration (JSON Version 1). The client must refresh a set 5 minutes before its
Expiration (signer/creds.h), so set i's Expiration is 300 s after its switch point
(start + (i + 1) W): the client must leave set i there. The emulator is given every
set with its own expiry GRACE seconds after that switch point (--credentials-file)
and answers a request signed with a stale set 403 ExpiredTokenException, as SageMaker
does; the last set does not expire.

refresh: the run crosses the switch points of sets 0 and 1 and must not fail one
    request; the emulator's request log shows every set signing accepted requests,
    none before its switch point or after its expiry, and the process ran once per
    set (no refresh storm).
no_refresh (the control): a process that always returns set 0; the same run gets
    ExpiredTokenException failures once set 0 expires at the emulator, which shows
    the first case would fail if the client did not refresh.
No secret of any set or Authorization header in anything written.

usage: test_credentials.py CASE...   (refresh, no_refresh, all)"""
import collections
import datetime
import json
import os
import sys
import time

import harness
from harness import check

W = 3  # seconds each set is used for
SETS = 3  # the run crosses the switch points of sets 0 and 1
AHEAD = 300  # the client refreshes this long before Expiration (CREDS_REFRESH_AHEAD)
# The emulator's expiry of set i is this long after the switch point: a thread that
# took set i from the cache while another was refreshing it keeps it for the rest of
# that second (the plugin fetches credentials once a second per thread).
GRACE = 2

SCRIPT = """#!/bin/sh
# credential_process of the test: set N at the Nth call (the last one after that).
d='{dir}'
n=$(cat "$d/calls" 2>/dev/null || echo 0)
echo $((n + 1)) > "$d/calls"
[ -f "$d/set$n.json" ] || n={last}
cat "$d/set$n.json"
"""


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def setup(work, always_first):
    """Writes the sets, the process and its AWS config; returns (keys, switch times, env)."""
    t0 = int(time.time()) + 1
    # the client must leave set i at switch[i]; the last set lasts the run out
    switch = [t0 + (i + 1) * W for i in range(SETS - 1)] + [t0 + 3600]
    keys = []
    for i in range(SETS):
        k = work.new_keys(expiration=switch[i] + GRACE)
        keys.append(k)
        with open(os.path.join(work.inputs, "set%d.json" % i), "w") as f:
            json.dump({"Version": 1, "AccessKeyId": k.akid, "SecretAccessKey": k.secret,
                       "SessionToken": k.token, "Expiration": iso(switch[i] + AHEAD)}, f)
    script = os.path.join(work.inputs, "credproc.sh")
    with open(script, "w") as f:
        f.write(SCRIPT.format(dir=work.inputs, last=0 if always_first else SETS - 1))
    if always_first:
        for i in range(1, SETS):
            os.unlink(os.path.join(work.inputs, "set%d.json" % i))
    config = os.path.join(work.inputs, "config")
    with open(config, "w") as f:
        f.write("[default]\nregion = us-east-1\ncredential_process = /bin/sh %s\n" % script)
    return keys, switch, {"AWS_CONFIG_FILE": config}


def calls(work):
    with open(os.path.join(work.inputs, "calls")) as f:
        return int(f.read())


def run(name, always_first, duration):
    work = harness.Work(name)
    keys, switch, env = setup(work, always_first)
    emu = harness.Emu(work, ["--endpoint", "a=instant", "--set", "a.overhead_s=0.01"], keys)
    try:
        w = harness.wrk_run(work, "sweep", emu.url,
                            ["--endpoint", "a", "--mode", "steady", "--duration", str(duration),
                             "--max-tokens", "8", "--refuse-after", "0"], threads=2, env=env)
    finally:
        emu.stop()
    return work, keys, switch, w, harness.served(emu.requests())


def case_refresh():
    work, keys, switch, w, entries = run("creds-refresh", False, SETS * W - W / 2)
    check(w.rc == 0, "wrk exited %s:\n%s" % (w.rc, w.stderr()))
    res = w.result("a")
    harness.check_counts(res)
    bad = collections.Counter((r["status"], r["error"]["code"]) for r in res["records"]
                              if not r["ok"])
    check(not bad, "requests failed across the credential refreshes: %s" % dict(bad))
    check(len(res["records"]) == len(entries), "%d records, %d requests served"
          % (len(res["records"]), len(entries)))
    known = {k.akid for k in keys}
    check(all(e["access_key_id"] in known for e in entries),
          "a request signed with a key the process never gave")
    for i, k in enumerate(keys):
        mine = [e for e in entries if e["access_key_id"] == k.akid]
        check(mine, "set %d never signed a request: the client did not refresh at %s"
              % (i, iso(switch[i - 1]) if i else "the start"))
        check(all(e["status"] == 200 for e in mine), "set %d: refused requests" % i)
        check(max(e["received"] for e in mine) < k.expiration,
              "set %d was used after the emulator's expiry" % i)
        if i:
            check(min(e["received"] for e in mine) >= switch[i - 1],
                  "set %d was used before its switch point" % i)
    check(calls(work) == SETS, "credential_process ran %d times for %d sets"
          % (calls(work), SETS))
    work.scan()
    work.clean()


def case_no_refresh():
    work, keys, switch, w, entries = run("creds-no-refresh", True, 2 * W)
    res = w.result("a")
    harness.check_counts(res)
    expired = [r for r in res["records"] if not r["ok"]]
    check(expired and all(r["status"] == 403 and r["error"]["code"] == "ExpiredTokenException"
                          for r in expired),
          "a client stuck with set 0 must fail with ExpiredTokenException, got %s"
          % collections.Counter(r["error"]["code"] for r in expired))
    late = [e for e in entries if e["received"] >= keys[0].expiration]
    check(late and all(e["status"] == 403 for e in late),
          "the emulator accepted set 0 after its expiry")
    check(any(r["ok"] for r in res["records"]), "set 0 never worked")
    work.scan()
    work.clean()


CASES = {"refresh": case_refresh, "no_refresh": case_no_refresh}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
