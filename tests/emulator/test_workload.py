#!/usr/bin/python3
"""What the emulator makes measurable for open-loop load (issue 21): stateful
sessions, the prefix cache and the request log's times, over HTTP.

  sessions  botocore-signed requests with X-Amzn-SageMaker-Session-Id (signed): a
            session made on one variant takes every later call in it (sticky), the
            stream route uses one but cannot make one, a malformed id is SageMaker's
            ValidationError, an unknown one the container's 400 as a ModelError, a
            closed one is gone, a container with sessions off refuses them; the
            request log names each call's session and the stats count them
  cache     a session's second turn repeats the first turn's prompt and reply: the
            prefix cache serves exactly their whole 16-token blocks (the emulator's
            tokenizer written again here), a repeated prompt all but its last block;
            the request log and the stats agree, a variant without a cache serves none
  queue     with max_seqs 1, a call sent while another decodes waits for it: its
            queue_s > 0 and its admission after the other's; with max_seqs 4 the same
            two calls both have queue_s 0; every line's times in order
  e2e       sm-stream runs rate.lua (--input-tokens 512 --prefix-tokens 448
            --prefix-groups 2) against two endpoints alike but for the cache: every
            request but each group's first gets 448 cached tokens, the others none,
            and the cached side's median time to first token is the lower

usage: test_workload.py GROUP...   (environment: SM_EMULATOR, SM_STREAM)"""
import datetime
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from emutest import chat, check, finish, invoke, signed_headers  # noqa: E402
import emulator  # noqa: E402  (tests/lib, on the path through emutest)

SID = "X-Amzn-SageMaker-Session-Id"
STREAM = "/endpoints/%s/invocations-response-stream"
TOKEN_RE = re.compile(r"[A-Za-z0-9\u0080-\U0010FFFF]+|[^ \t\n\r\f\vA-Za-z0-9\u0080-\U0010FFFF]")
NEW_ID = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*;\sExpires=[0-9]{4}-[0-9]{2}-[0-9]{2}T"
                    r"[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")  # NewSessionId's pattern (the API's)


def tokens(text):
    """The emulator's tokenizer, written again (tok.h)."""
    return len(TOKEN_RE.findall(text))


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def in_session(sid, **kw):
    """Keyword arguments of emutest.invoke: the session header, signed."""
    extra = dict(kw.pop("extra", {}))
    extra[SID] = sid
    return dict(kw, extra=extra)


def model_error(r):
    """(OriginalStatusCode, OriginalMessage's error message) of a 424 ModelError."""
    if r.status != 424 or not (r.header("x-amzn-errortype") or "").startswith("ModelError"):
        return None, r.body[:200]
    body = r.json()
    original = json.loads(body["OriginalMessage"])
    return body["OriginalStatusCode"], original["error"]["message"]


def stream_call(url, endpoint, payload, sid):
    """A signed InvokeEndpointWithResponseStream call in session sid: (status, headers)."""
    import http.client
    body = json.dumps(payload).encode()
    headers = signed_headers(url, STREAM % endpoint, body, extra={SID: sid})
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request("POST", STREAM % endpoint, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    finally:
        conn.close()


def test_sessions():
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "ep/A=instant", "--endpoint", "ep/B=instant", "--set",
                "ep/A.weight=1000", "--set", "ep/B.weight=0.001", "--endpoint", "off=instant",
                "--set", "off.session_ttl_s=0", "--request-log", log]
        with emulator.Emulator(args) as emu:
            u = emu.url
            opened = invoke(u, "ep", {"requestType": "NEW_SESSION"},
                            **in_session("NEW_SESSION", extra={
                                "X-Amzn-SageMaker-Target-Variant": "B"}))
            check(opened.status == 200, "NEW_SESSION: %d %s" % (opened.status, opened.body))
            header = opened.header("x-amzn-sagemaker-new-session-id") or ""
            check(NEW_ID.match(header), "NewSessionId %r fits the API's pattern" % header)
            sid = header.split(";")[0]
            expires = datetime.datetime.strptime(header.split("Expires=")[1],
                                                 "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc)
            ttl = (expires - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
            check(1190 <= ttl <= 1200, "the session lives 1200 s (the container's default): %r"
                  % ttl)
            check(opened.body == ("Session %s created" % sid).encode(), opened.body)
            check(opened.header("x-amzn-invoked-production-variant") == "B", "made on B")

            variants = set()
            for i in range(8):  # A weighs 10^6 times B: only the session sends them to B
                r = invoke(u, "ep", chat("Turn %d." % i, 4), **in_session(sid))
                check(r.status == 200, "a call in the session: %d" % r.status)
                variants.add(r.header("x-amzn-invoked-production-variant"))
            check(variants == {"B"}, "every call in the session on B: %r" % variants)
            r = invoke(u, "ep", chat("No session.", 4))
            check(r.header("x-amzn-invoked-production-variant") == "A", "without it: A")

            status, headers, _ = stream_call(u, "ep", chat("Streamed.", 3, stream=True), sid)
            check(status == 200 and headers.get("x-amzn-invoked-production-variant") == "B",
                  "the stream route in the session: %d %r" % (status, headers))
            status, _, data = stream_call(u, "ep", chat("x", 1), "NEW_SESSION")
            check(status == 400 and json.loads(data)["message"] ==
                  "1 validation error detected: Value 'NEW_SESSION' at 'sessionId' failed to "
                  "satisfy constraint: Member must satisfy regular expression pattern: "
                  "^[a-zA-Z0-9](-*[a-zA-Z0-9])*$", "the stream route cannot make one: %d %s"
                  % (status, data))
            r = invoke(u, "ep", chat("x", 1), **in_session("bad_id"))
            check(r.status == 400 and r.header("x-amzn-errortype").startswith("ValidationError")
                  and "Value 'bad_id' at 'sessionId'" in r.json()["message"]
                  and "^(NEW_SESSION)$|^[a-zA-Z0-9](-*[a-zA-Z0-9])*$" in r.json()["message"],
                  "a malformed id: %d %s" % (r.status, r.body))
            r = invoke(u, "ep", chat("x", 1), **in_session("no-such-session"))
            check(model_error(r) == (400, "Bad request: session not found: no-such-session"),
                  "an unknown id: %r" % (model_error(r),))

            closed = invoke(u, "ep", {"requestType": "CLOSE"}, **in_session(sid))
            check(closed.status == 200 and
                  closed.header("x-amzn-sagemaker-closed-session-id") == sid and
                  closed.body == ("Session %s closed" % sid).encode(),
                  "CLOSE: %d %r %s" % (closed.status, closed.headers, closed.body))
            r = invoke(u, "ep", chat("x", 1), **in_session(sid))
            check(model_error(r) == (400, "Bad request: session not found: " + sid),
                  "closed: %r" % (model_error(r),))
            r = invoke(u, "ep", {"requestType": "CLOSE"})
            check(model_error(r) == (424, "Failed to close session: invalid session_id: None"),
                  "CLOSE without an id: %r" % (model_error(r),))
            r = invoke(u, "off", {"requestType": "NEW_SESSION"}, **in_session("NEW_SESSION"))
            check(model_error(r) == (400, "Invalid payload. stateful sessions not enabled, "
                                          "X-Amzn-SageMaker-Session-Id header not supported"),
                  "sessions off: %r" % (model_error(r),))
            v = emu.stats()["endpoints"]["ep"]["variants"]
            check(v["B"]["sessions"] == {"open": 0, "created": 1, "closed": 1, "expired": 0},
                  "B's sessions: %r" % v["B"]["sessions"])
            check(v["A"]["sessions"]["created"] == 0, "A made none")
        lines = read_log(log)
    named = [e for e in lines if e["session"] == sid]
    # made, 8 calls, the stream, closed, and the call after it
    check(len(named) == 12, "%d log lines name the session" % len(named))
    check(sum(e["session"] == "no-such-session" for e in lines) == 1, "the unknown id logged")
    check(all(e["session"] is None for e in lines if e not in named and
              e["session"] != "no-such-session"), "no other line names a session")


def turn_body(messages, max_tokens):
    return {"messages": messages, "max_tokens": max_tokens, "ignore_eos": True}


def test_cache():
    words = " ".join("w%d" % i for i in range(154))  # 160 prompt tokens: a whole block last
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "pc=instant", "--set", "pc.step_ms=1:1", "--set",
                "pc.prefix_cache_tokens=4096", "--endpoint", "plain=instant", "--set",
                "plain.step_ms=1:1", "--request-log", log]
        with emulator.Emulator(args) as emu:
            u = emu.url
            opened = invoke(u, "pc", {"requestType": "NEW_SESSION"},
                            **in_session("NEW_SESSION"))
            sid = opened.header("x-amzn-sagemaker-new-session-id").split(";")[0]
            first = [{"role": "user", "content": words}]
            r1 = invoke(u, "pc", turn_body(first, 37), **in_session(sid))
            reply = r1.json()["choices"][0]["message"]["content"]
            second = first + [{"role": "assistant", "content": reply},
                              {"role": "user", "content": "And then?"}]
            r2 = invoke(u, "pc", turn_body(second, 5), **in_session(sid))
            r3 = invoke(u, "pc", turn_body(first, 5))  # the first prompt again
            r4 = invoke(u, "plain", turn_body(second, 5))
            check(all(r.status == 200 for r in (r1, r2, r3, r4)), "four calls served")
            stats = emu.stats()["endpoints"]
        lines = [e for e in read_log(log) if e["prompt_tokens"]]
    p1 = tokens(words) + 4 + 2  # the template: 4 a message, 2 for the reply's header
    c1 = tokens(reply)
    p2 = r2.json()["usage"]["prompt_tokens"]
    check(r1.json()["usage"]["prompt_tokens"] == p1 and c1 == 37, "turn 1: %d + %d tokens"
          % (p1, c1))
    # turn 2 repeats turn 1's prompt and its reply: the blocks the KV cache held once turn 1
    # was done (all its tokens but the reply's last, never fed back), whole blocks only
    want2 = 16 * ((p1 + c1 - 1) // 16)
    want3 = 16 * ((p1 - 1) // 16)  # the same prompt: all but the last token's block
    got = [e["cached_tokens"] for e in lines]
    check(got == [0, want2, want3, 0], "cached tokens %r, want [0, %d, %d, 0]"
          % (got, want2, want3))
    pc = stats["pc"]["variants"]["AllTraffic"]["prefix_cache"]
    check(pc["lookups"] == 3 and pc["hits"] == 2 and pc["cached_tokens"] == want2 + want3
          and pc["prompt_tokens"] == p1 + p2 + p1, "pc's counts: %r" % pc)
    check(abs(pc["hit_rate"] - (want2 + want3) / (2 * p1 + p2)) < 1e-6, "hit rate %r"
          % pc["hit_rate"])
    check(pc["capacity_tokens"] == 4096 and pc["evicted"] == 0, "capacity %r" % pc)
    plain = stats["plain"]["variants"]["AllTraffic"]["prefix_cache"]
    check(plain["capacity_tokens"] == 0 and plain["lookups"] == 0, "no cache: %r" % plain)
    check(lines[1]["session"] == sid and lines[2]["session"] is None, "the session logged")


def openai_stream(url, endpoint, text, max_tokens):
    """An open socket that sent a streamed OpenAI-route call (bearer token)."""
    u = urllib.parse.urlsplit(url)
    body = json.dumps({"messages": [{"role": "user", "content": text}], "stream": True,
                       "max_tokens": max_tokens, "ignore_eos": True}).encode()
    s = socket.create_connection((u.hostname, u.port), timeout=60)
    s.sendall(("POST /endpoints/%s/openai/v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
               "Authorization: Bearer tok\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\nConnection: close\r\n\r\n" % (endpoint, len(body))).encode()
              + body)
    return s


def read_until(s, marker):
    data = b""
    while marker not in data:
        got = s.recv(65536)
        if not got:
            break
        data += got
    return data


def two_calls(max_seqs):
    """A long stream, and once its first token is read, a second call: their log lines."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "q=instant", "--set", "q.step_ms=1:5", "--set",
                "q.max_seqs=%d" % max_seqs, "--bearer-token", "tok", "--request-log", log]
        with emulator.Emulator(args) as emu:
            first = openai_stream(emu.url, "q", "First.", 200)
            read_until(first, b'"content":"')  # decoding: it holds the batch's only seat
            second = openai_stream(emu.url, "q", "Second.", 2)
            read_until(second, b"data: [DONE]")
            read_until(first, b"data: [DONE]")
            first.close()
            second.close()
        lines = read_log(log)
    check(len(lines) == 2 and all(e["status"] == 200 for e in lines), "two calls logged")
    for e in lines:
        check(e["arrival"] <= e["received"] <= e["admitted"] < e["first_token"] <=
              e["last_token"] <= e["replied"], "times in order: %r" % e)
    return sorted(lines, key=lambda e: e["received"])


def test_queue():
    a, b = two_calls(1)
    check(a["queue_s"] == 0, "the first had room: queue_s %r" % a["queue_s"])
    check(b["queue_s"] > 0 and b["admitted"] > a["first_token"],
          "the second waited for the seat: queue_s %r" % b["queue_s"])
    a, b = two_calls(4)
    check(a["queue_s"] == 0 and b["queue_s"] == 0, "room for both: queue_s %r, %r"
          % (a["queue_s"], b["queue_s"]))


def test_e2e():
    rate, seconds = 4, 4
    n = rate * seconds
    profile = ["overhead_s=0.002", "prefill_s_per_token=0.0005", "step_ms=1:4,64:8",
               "max_seqs=256", "jitter=0"]
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "pc=instant", "--endpoint", "nopc=instant", "--request-log", log]
        for ep in ("pc", "nopc"):
            for kv in profile:
                args += ["--set", "%s.%s" % (ep, kv)]
        args += ["--set", "pc.prefix_cache_tokens=65536"]
        with emulator.Emulator(args) as emu:
            cmd = [os.environ["SM_STREAM"], "-t1", "-c64", "-d5m", "-s",
                   os.path.join(ROOT, "scenarios", "rate.lua"), emu.url, "--", "--endpoint",
                   "pc", "--endpoint", "nopc", "--region", "us-east-1", "--rates", str(rate),
                   "--duration", str(seconds), "--arrivals", "constant", "--input-tokens",
                   "512", "--prefix-tokens", "448", "--prefix-groups", "2", "--max-tokens",
                   "8", "--progress", "0", "--out", os.path.join(d, "{label}.json")]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
            check(p.returncode == 0, "sm-stream rate.lua: exit %d %s" % (p.returncode,
                                                                        p.stderr[-400:]))
            stats = emu.stats()["endpoints"]
        recs = {}
        for side in ("pc", "nopc"):
            with open(os.path.join(d, side + ".json")) as f:
                recs[side] = json.load(f)["records"]
        lines = read_log(log)
    for side in ("pc", "nopc"):
        check(len(recs[side]) == n and all(r["ok"] for r in recs[side]),
              "%s: %d records" % (side, len(recs[side])))
    cached = {side: sorted(e["cached_tokens"] for e in lines if e["endpoint"] == side)
              for side in ("pc", "nopc")}
    check(cached["pc"] == [0, 0] + [448] * (n - 2),
          "with the cache: each group's first request misses, the rest get 448: %r"
          % cached["pc"])
    check(cached["nopc"] == [0] * n, "without it none: %r" % cached["nopc"])
    pc = stats["pc"]["variants"]["AllTraffic"]["prefix_cache"]
    prompt = 512 + 6
    check(pc["lookups"] == n and pc["hits"] == n - 2 and pc["cached_tokens"] == 448 * (n - 2)
          and pc["prompt_tokens"] == prompt * n, "pc's counts: %r" % pc)
    print("prefix cache hit rate %.3f (cached / prompt tokens)" % pc["hit_rate"])
    ttft = {side: statistics.median(r["t_first_token_us"] - r["t_intended_us"]
                                    for r in recs[side]) / 1e3 for side in recs}
    print("median TTFT: %.1f ms with the cache, %.1f ms without" % (ttft["pc"], ttft["nopc"]))
    check(ttft["pc"] < ttft["nopc"], "the cache lowers the median TTFT: %r" % ttft)


GROUPS = {"sessions": test_sessions, "cache": test_cache, "queue": test_queue, "e2e": test_e2e}

if __name__ == "__main__":
    names = sys.argv[1:]
    if not names or any(g not in GROUPS for g in names):
        sys.exit("usage: test_workload.py %s..." % "|".join(GROUPS))
    for g in names:
        GROUPS[g]()
    sys.exit(finish())
