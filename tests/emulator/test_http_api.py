#!/usr/bin/python3
"""sm-emulator over real HTTP: python3 test_http_api.py GROUP, one ctest per group.
Signers: curl --aws-sigv4, sm-invoke ($SM_INVOKE) and botocore. Every group also
checks that /emulator/stats agrees with what it sent."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from emutest import (AKID, SECRET, chat, check, curl, emulator, finish, invoke, isolated_env, raw,
                     request, signed_headers, sm_invoke, amz_now)

MISMATCH = ("The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details.")
TOKEN_RE = re.compile(r"[A-Za-z0-9\u0080-\U0010FFFF]+|[^ \t\n\r\f\vA-Za-z0-9\u0080-\U0010FFFF]")


def tokens(text):
    """The emulator's tokenizer, written again (tok.h)."""
    return len(TOKEN_RE.findall(text))


def error_of(status, headers, body):
    """(status, x-amzn-ErrorType code, message) of a SageMaker error reply."""
    code = headers.get("x-amzn-errortype", "").split(":")[0]
    doc = json.loads(body)
    return status, code, doc.get("message", doc.get("Message"))


def test_signatures():
    with emulator.Emulator(["--endpoint", "ep=instant",
                            "--credential", "ASIATEMP:tempsecret:TOKENONE@+3600",
                            "--credential", "ASIAOLD:oldsecret:TOKENTWO@-60"]) as emu:
        u, body = emu.url, json.dumps(chat("hi"))
        s, h, b, _ = curl(u, "ep", body)
        check(s == 200 and json.loads(b)["object"] == "chat.completion", "curl signed call: %s" % s)
        cases = [  # (what, curl user/region/service, status, error type, message)
            ("no signature", dict(user=False), 403, "MissingAuthenticationTokenException",
             "Missing Authentication Token"),
            ("unknown key", dict(user="AKIDNOBODY:" + SECRET), 403, "UnrecognizedClientException",
             "The security token included in the request is invalid."),
            ("wrong secret", dict(user=AKID + ":wrong"), 403, "InvalidSignatureException", MISMATCH),
            ("wrong region", dict(region="us-west-2"), 403, "InvalidSignatureException",
             "Credential should be scoped to a valid region, not 'us-west-2'. "),
            ("wrong service", dict(service="execute-api"), 403, "InvalidSignatureException",
             "Credential should be scoped to correct service: 'sagemaker'. "),
        ]
        for what, kw, status, code, message in cases:
            s, h, b, _ = curl(u, "ep", body, **kw)
            check(error_of(s, h, b) == (status, code, message), "%s: %s %s" % (what, s, b))
            check(h.get("date", "").endswith("GMT") and h.get("x-amzn-requestid"),
                  "%s: Date and x-amzn-RequestId headers" % what)
        old, future = amz_now(-400), amz_now(400)
        r = invoke(u, "ep", chat("hi"), amz_date=old)
        check(r.status == 403 and re.fullmatch(
            r"Signature expired: %s is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)" % old,
            r.json()["message"]) is not None, "old date: %s %s" % (r.status, r.body))
        r = invoke(u, "ep", chat("hi"), amz_date=future)
        check(r.status == 403 and r.json()["message"].startswith(
            "Signature not yet current: %s is still later than " % future), "future date")
        check(invoke(u, "ep", chat("hi"), amz_date=amz_now(-200)).status == 200, "3 min old is fine")
        r = invoke(u, "ep", chat("hi"), akid="ASIATEMP", secret="tempsecret", token="TOKENONE")
        check(r.status == 200, "session token accepted: %s" % r.body)
        r = invoke(u, "ep", chat("hi"), akid="ASIATEMP", secret="tempsecret")
        check(error_of(r.status, r.headers, r.body)[1] == "UnrecognizedClientException",
              "token left out")
        r = invoke(u, "ep", chat("hi"), akid="ASIAOLD", secret="oldsecret", token="TOKENTWO")
        check(error_of(r.status, r.headers, r.body) == (
            403, "ExpiredTokenException", "The security token included in the request is expired"),
            "expired token: %s" % r.body)
        rc, out, err = sm_invoke(u, "ep", body)
        check(rc == 0 and json.loads(out)["usage"]["completion_tokens"] > 0,
              "sm-invoke signed call: %s %s" % (rc, err))
        rc, out, err = sm_invoke(u, "ep", body, "--amz-date", "20200101T000000Z")
        check(rc == 1 and "403 InvalidSignatureException: Signature expired: 20200101T000000Z" in err,
              "sm-invoke old date: %s" % err)
        env = isolated_env(AWS_ACCESS_KEY_ID="ASIAOLD", AWS_SECRET_ACCESS_KEY="oldsecret",
                           AWS_SESSION_TOKEN="TOKENTWO")
        rc, out, err = sm_invoke(u, "ep", body, env=env)
        check(rc == 1 and "403 ExpiredTokenException" in err, "sm-invoke expired token: %s" % err)
        env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = "ASIATEMP", "tempsecret"
        env["AWS_SESSION_TOKEN"] = "TOKENONE"
        rc, out, err = sm_invoke(u, "ep", body, env=env)
        check(rc == 0, "sm-invoke with a session token: %s" % err)
        st = emu.stats()["endpoints"]["ep"]
        check(st["requests"] == 16 and st["replies"] == {"200": 5, "403": 11},
              "stats agree: %s" % st)


def test_formats():
    args = ["--endpoint", "chat=instant", "--endpoint", "tgi=instant", "--set", "tgi.format=tgi",
            "--endpoint", "lmi=instant", "--set", "lmi.format=lmi"]
    sent_prompt = sent_completion = 0
    with emulator.Emulator(args) as emu:
        u = emu.url
        for n in (1, 16, 512):
            for body in (chat("Write a story.", n, ignore_eos=True),
                         {"prompt": "Write a story.", "max_tokens": n, "ignore_eos": True}):
                s, h, b, _ = curl(u, "chat", json.dumps(body))
                doc = json.loads(b)
                choice = doc["choices"][0]
                text = choice["message"]["content"] if "messages" in body else choice["text"]
                check(doc["usage"]["completion_tokens"] == n == tokens(text) and
                      choice["finish_reason"] == "length", "ignore_eos %d: %s" % (n, doc["usage"]))
                sent_prompt += doc["usage"]["prompt_tokens"]
                sent_completion += doc["usage"]["completion_tokens"]
        s, h, b, _ = curl(u, "chat", json.dumps(chat("What is 96 * 90? Reply with the number only.")))
        doc = json.loads(b)
        check(doc["choices"][0]["message"]["content"] == "8640" and
              doc["choices"][0]["finish_reason"] == "stop" and doc["usage"]["completion_tokens"] == 1,
              "natural length: %s" % doc)
        check(h.get("x-amzn-invoked-production-variant") == "AllTraffic", "invoked variant header")
        sent_prompt += doc["usage"]["prompt_tokens"]
        sent_completion += 1
        s, h, b, _ = curl(u, "tgi", json.dumps({"inputs": "Tell me about the sea.",
                                                "parameters": {"max_new_tokens": 37, "details": True}}))
        doc = json.loads(b)
        check(s == 200 and isinstance(doc, list) and doc[0]["details"]["generated_tokens"] == 37 ==
              tokens(doc[0]["generated_text"]) and doc[0]["details"]["finish_reason"] == "length",
              "tgi reply: %s" % b[:200])
        s, h, b, _ = curl(u, "lmi", json.dumps({"inputs": "What is 12 * 26?", "parameters": {
            "max_new_tokens": 20, "ignore_eos_token": True, "details": True}}))
        doc = json.loads(b)
        check(s == 200 and isinstance(doc, dict) and doc["details"]["generated_tokens"] == 20 ==
              tokens(doc["generated_text"]) and doc["generated_text"].startswith("312 "),
              "lmi ignore_eos_token: %s" % b[:200])
        s, h, b, _ = curl(u, "tgi", json.dumps({"prompt": "x"}))
        doc = json.loads(b)
        check(s == 424 and doc["OriginalStatusCode"] == 422 and
              "missing field `inputs`" in doc["OriginalMessage"], "tgi rejects: %s" % b)
        rc, out, err = sm_invoke(u, "chat", json.dumps({"prompt": "x", "max_tokens": 7,
                                                        "ignore_eos": True}))
        doc = json.loads(out)
        check(rc == 0 and doc["usage"]["completion_tokens"] == 7, "sm-invoke completions: %s" % err)
        sent_prompt += doc["usage"]["prompt_tokens"]
        sent_completion += 7
        st = emu.stats()["endpoints"]["chat"]
        check(st["prompt_tokens"] == sent_prompt and st["completion_tokens"] == sent_completion,
              "stats tokens %s vs %d/%d" % (st, sent_prompt, sent_completion))


def test_limit():
    with emulator.Emulator(["--endpoint", "ep=bf16-l4", "--time-scale", "20",
                            "--max-duration", "2"]) as emu:
        t0 = time.monotonic()
        r = invoke(emu.url, "ep", chat("Write a story.", 512, ignore_eos=True))
        took = time.monotonic() - t0
        doc = r.json()
        check(r.status == 424 and r.header("x-amzn-errortype").startswith("ModelError:") and
              doc["OriginalStatusCode"] == 0 and doc["Message"].startswith(
                  'Received server error (0) from primary with message "Your invocation timed out '
                  'while waiting for a response from container primary.'), "limit: %s" % r.body)
        # never before the limit; that it is the limit's, not a late reply's, the status says
        check(0.09 <= took, "the 424 comes at the limit (2 model s = 0.1 s): %.3f" % took)
        r = invoke(emu.url, "ep", chat("Write a story.", 16, ignore_eos=True))
        check(r.status == 200, "a short reply is in time")
        st = emu.stats()["endpoints"]["ep"]
        check(st["replies"] == {"424": 1, "200": 1} and st["in_flight"] == 0, "stats %s" % st)


HANG_GUARD = 300  # seconds: only a guard against a hung call, never a margin


def test_limit_after_a_stall():
    """A host that stops the emulator for longer than the limit does not cut a call
    whose model work was planned to end before it: after the stall its timers fire
    together and the limit waits for the steps to catch up (a loaded CI host made
    such calls ModelErrors at a large time scale). The stall, SIGSTOP to SIGCONT, is
    at least 2 s real: 40 model s at scale 20, past the 30 s limit; the reply's plan
    is well under it."""
    with emulator.Emulator(["--endpoint", "ep=bf16-l4", "--time-scale", "20",
                            "--max-duration", "30"]) as emu:
        box = {}
        t = threading.Thread(target=lambda: box.update(r=invoke(
            emu.url, "ep", chat("Write a story.", 256, ignore_eos=True))))
        t.start()
        while emu.stats()["endpoints"]["ep"]["in_flight"] != 1 and t.is_alive():
            pass  # until the call is in the emulator (the state, not a wait)
        os.kill(emu.proc.pid, signal.SIGSTOP)
        time.sleep(2)  # the stall simulated, not a synchronisation
        os.kill(emu.proc.pid, signal.SIGCONT)
        t.join(HANG_GUARD)
        r = box.get("r")
        check(r is not None and r.status == 200,
              "a reply planned within the limit is not cut by a stall: %s"
              % str(r and (r.status, r.body[:200])))
        st = emu.stats()["endpoints"]["ep"]
        check(st["replies"] == {"200": 1} and st["in_flight"] == 0, "stats %s" % st)


def test_faults():
    kinds = ["throttle", "unavailable", "internal", "model_error", "drop", "truncate", "slow"]
    args = ["--time-scale", "10"]
    for k in kinds:
        args += ["--endpoint", "f-%s=instant" % k.replace("_", "-"),
                 "--set", "f-%s.fault.%s=every:2" % (k.replace("_", "-"), k)]
    args += ["--set", "f-slow.slow_first_byte_s=2", "--endpoint", "rate=instant",
             "--set", "rate.fault.throttle=0.3"]
    expect = {"throttle": (429, "ThrottlingException"), "unavailable": (503, "ServiceUnavailable"),
              "internal": (500, "InternalFailure"), "model_error": (424, "ModelError")}
    with emulator.Emulator(args) as emu:
        u = emu.url
        for k in kinds:
            ep = "f-" + k.replace("_", "-")
            for i in range(1, 5):
                t0 = time.monotonic()
                try:
                    r = invoke(u, ep, chat("What is 2 * 3?"))
                except Exception as e:  # the dropped connection
                    r = e
                took = time.monotonic() - t0
                faulty = i % 2 == 0
                if not faulty:
                    # no delay of its own: the stats below count each fault, none more
                    check(getattr(r, "status", 0) == 200, "%s #%d fine" % (k, i))
                elif k in expect:
                    code = r.header("x-amzn-errortype").split(":")[0]
                    check((r.status, code) == expect[k], "%s #%d: %s %s" % (k, i, r.status, code))
                    if k == "model_error":
                        check(r.json()["OriginalStatusCode"] == 500, "model_error wraps a 500")
                elif k == "drop":
                    check(isinstance(r, Exception), "drop: the client sees a broken reply: %r" % r)
                elif k == "truncate":
                    check(r.status == 200 and r.body.startswith(b'{"id":'), "truncate framing")
                    try:
                        json.loads(r.body)
                        check(False, "a truncated body must not parse")
                    except ValueError:
                        pass
                elif k == "slow":
                    check(r.status == 200 and took >= 0.19, "slow first byte: %.3f s" % took)
        s, h, b, rc = curl(u, "f-drop", json.dumps(chat("x")))
        s, h, b, rc = curl(u, "f-drop", json.dumps(chat("x")))
        check(rc == 18, "curl sees a partial transfer on drop: exit %d" % rc)
        seen = sum(invoke(u, "rate", chat("x")).status == 429 for _ in range(200))
        check(40 <= seen <= 80, "rate 0.3 over 200 requests: %d" % seen)
        st = emu.stats()["endpoints"]
        for k in kinds:
            e = st["f-" + k.replace("_", "-")]
            n = 3 if k == "drop" else 2
            check(e["faults"][k] == n and sum(e["faults"].values()) == n,
                  "%s faults counted: %s" % (k, e["faults"]))
        check(st["f-drop"]["dropped"] == 3 and st["f-drop"]["replies"] == {"200": 3},
              "drops counted apart from replies: %s" % st["f-drop"])
        check(st["rate"]["faults"]["throttle"] == seen == st["rate"]["replies"].get("429"),
              "rate faults counted: %s" % st["rate"])


def test_variants():
    args = ["--endpoint", "ab/A=instant", "--endpoint", "ab/B=instant", "--set", "ab/B.model_id=b",
            "--set", "ab/A.model_id=a", "--set", "ab/A.weight=3"]
    with emulator.Emulator(args) as emu:
        u = emu.url
        for v in ("A", "B"):
            hdr = {"X-Amzn-SageMaker-Target-Variant": v}
            r = invoke(u, "ab", chat("hi"), extra=hdr)
            check(r.status == 200 and r.json()["model"] == v.lower() and
                  r.header("x-amzn-invoked-production-variant") == v, "variant %s" % v)
            rc, out, err = sm_invoke(u, "ab", json.dumps(chat("hi")), "--target-variant", v)
            check(rc == 0 and json.loads(out)["model"] == v.lower(), "sm-invoke variant %s" % v)
        r = invoke(u, "ab", chat("hi"), extra={"X-Amzn-SageMaker-Target-Variant": "C"})
        check(r.status == 400 and r.header("x-amzn-errortype").startswith("ValidationError") and
              "Variant C not found" in r.json()["message"], "unknown variant: %s" % r.body)
        picks = [invoke(u, "ab", chat("hi")).json()["model"] for _ in range(400)]
        check(250 <= picks.count("a") <= 350, "weights 3:1 over 400: %d" % picks.count("a"))
        st = emu.stats()["endpoints"]["ab"]
        check(st["requests"] == 405 and st["variants"]["A"]["requests"] == picks.count("a") + 2 and
              st["variants"]["B"]["requests"] == picks.count("b") + 2, "variant stats %s" % st)


def test_quiz():
    here = os.path.dirname(os.path.abspath(__file__))
    quiz = json.load(open(os.path.join(here, "..", "..", "scenarios", "quiz-compare-py-40.json")))
    article = json.load(open(os.path.join(here, "..", "data", "article-2026-09-25.json")))
    fast = ["--set", "*.overhead_s=0", "--set", "*.step_ms=1:0", "--set", "*.prefill_s_per_token=0"]
    with emulator.Emulator(["--endpoint", "bf16=bf16-l4", "--endpoint", "qat=qat-l4"] + fast) as emu:
        replies = {}
        for side in ("bf16", "qat"):
            for q in quiz["questions"]:
                r = invoke(emu.url, side, chat(q["prompt"], quiz["settings"]["max_tokens"]))
                replies[side, q["id"]] = r.json()["choices"][0]["message"]["content"].strip()
        for side in ("bf16", "qat"):
            right = sum(re.search(q["pattern"], replies[side, q["id"]]) is not None
                        for q in quiz["questions"])
            check(right == article["results"][side]["quality_correct"], "%s: %d/40" % (side, right))
        differ = [q["id"] for q in quiz["questions"] if replies["bf16", q["id"]] != replies["qat", q["id"]]]
        listed = {d["id"]: d for d in article["results"]["disagreements"]}
        check(sorted(differ) == sorted(listed), "disagreements: %s" % differ)
        for i in differ:
            check(replies["bf16", i] == listed[i]["bf16"] and replies["qat", i] == listed[i]["qat"],
                  "disagreement %s" % i)
        check(replies["bf16", "cap-Brazil"] == "Brasília", "Brasília keeps its accent")
        check(emu.stats()["totals"]["replies"] == {"200": 80}, "80 replies")


LOG_RES = {  # DESIGN.md section 6
    "load": r"Model loading took ([0-9.]+) Gi?B(?: memory)? and ([0-9.]+) seconds",
    "kv": r"GPU KV cache size: ([0-9,]+) tokens",
    "conc": r"Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x",
    "quant": r"quantization=([\w-]+)",
    "version": r"version (\d+\.\d+\.\d+)",
}


METRICS = (r"Engine 000: Avg prompt throughput: ([0-9.]+) tokens/s, Avg generation throughput: "
           r"([0-9.]+) tokens/s, Running: \d+ reqs, Waiting: \d+ reqs, GPU KV cache usage: "
           r"[0-9.]+%, Prefix cache hit rate: [0-9.]+%")


def generated(text):
    """Tokens the metrics lines of a log account for (rate x the 2-second interval)."""
    return sum(float(m.group(2)) * 2 for m in re.finditer(METRICS, text))


def test_log():
    with tempfile.TemporaryDirectory() as d:
        pattern = os.path.join(d, "{endpoint}.log")
        bad = emulator.Emulator(["--endpoint", "a=instant", "--endpoint", "b=instant",
                                 "--log-file", os.path.join(d, "one.log")],
                                stderr=open(os.path.join(d, "err"), "w"))
        try:
            bad.start()
            check(False, "a shared log file must be refused")
        except RuntimeError:
            check(bad.proc.returncode == 2 and "put {endpoint}" in open(os.path.join(d, "err")).read(),
                  "shared log refused with exit 2")
        args = ["--endpoint", "bf16=bf16-l4", "--endpoint", "qat=qat-l4", "--time-scale", "50",
                "--log-file", pattern, "--log-interval", "2"]
        with emulator.Emulator(args) as emu:
            for side in ("bf16", "qat"):
                check(invoke(emu.url, side, chat("Go on.", 64, ignore_eos=True)).status == 200, side)
            deadline = time.monotonic() + 10
            texts = {}
            while time.monotonic() < deadline:  # wait for the periodic lines, not a fixed time
                texts = {s: open(pattern.replace("{endpoint}", s)).read() for s in ("bf16", "qat")}
                if all(generated(t) >= 63.5 for t in texts.values()):
                    break
                time.sleep(0.02)
        facts = {"bf16": ("9.75", "82.751806", "723,484", "88.32", "None"),
                 "qat": ("8.01", "66.190265", "867,999", "105.96", "compressed-tensors")}
        prefix = re.compile(r"^\((APIServer|EngineCore_DP0) pid=\d+\) INFO( \d\d-\d\d \d\d:\d\d:\d\d "
                            r"\[[\w.]+:\d+\]|:    ) ")
        for side, text in texts.items():
            found = {k: re.findall(v, text)[-1] for k, v in LOG_RES.items() if re.findall(v, text)}
            got = (found["load"][0], found["load"][1], found["kv"], found["conc"][1], found["quant"])
            check(got == facts[side] and found["version"] == "0.30.0", "%s facts %s" % (side, got))
            check(all(prefix.match(line) for line in text.splitlines()), "%s line prefixes" % side)
            check(re.search(METRICS, text) and abs(generated(text) - 64) < 0.5,
                  "%s metrics lines add up to the 64 tokens served: %.1f" % (side, generated(text)))
            check('"POST /invocations HTTP/1.1" 200 OK' in text, "%s access line" % side)


def test_bad_requests():
    with emulator.Emulator(["--endpoint", "ep=instant"]) as emu:
        u = emu.url
        s, h, b, _ = curl(u, "ep", "{not json")
        doc = json.loads(b)
        check(s == 424 and doc["OriginalStatusCode"] == 400 and "JSON decode error" in
              doc["OriginalMessage"] and doc["ErrorCode"] == "CLIENT_ERROR_FROM_MODEL" and
              doc["LogStreamArn"].endswith(":log-group:/aws/sagemaker/Endpoints/ep") and
              "in account 123456789012 for more information." in doc["Message"], "bad JSON: %s" % b)
        big = b'{"prompt": "' + b"a " * 3145728 + b'"}'
        s, h, b, _ = curl(u, "ep", big)
        check(s == 413 and json.loads(b) == {"message": "HTTP content length exceeded 6291456 bytes."},
              "over 6 MB: %s %s" % (s, b[:100]))
        just = b'{"prompt": "' + b"a " * (3145728 - 8) + b'"}'
        check(len(just) == 6291456 - 2, "size of the biggest body")
        s, h, b, _ = curl(u, "ep", just)
        check(s == 424 and "maximum context length" in json.loads(b)["OriginalMessage"],
              "6 MB passes SageMaker and the container rejects it: %s" % s)
        body = json.dumps(chat("hi")).encode()
        path = "/endpoints/ep/invocations"
        headers = signed_headers(u, path, body)
        no_type = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        no_type["Authorization"] = signed_headers(u, path, body)["Authorization"]
        r = request(u, path, body, no_type)
        check(r.status in (403, 424), "no Content-Type is refused: %s" % r.status)
        headers.pop("X-Amz-Date")
        r = request(u, path, body, headers)
        check(r.status == 403 and r.header("x-amzn-errortype").startswith("IncompleteSignatureException")
              and "requires existence of either a 'X-Amz-Date' or a 'Date' header" in r.json()["message"],
              "no X-Amz-Date: %s" % r.body)
        s, h, b, _ = curl(u, "nope", json.dumps(chat("hi")))
        check(error_of(s, h, b) == (400, "ValidationError", "Endpoint nope of account 123456789012 "
                                                             "not found."), "unknown endpoint")
        s, h, b, _ = curl(u, "bad_name", json.dumps(chat("hi")))
        check(s == 400 and "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9])*"
              in json.loads(b)["message"], "invalid endpoint name")
        for garbage, status in ((b"\x16\x03\x01\x02\x00garbage\r\n\r\n", 400), (b"HELLO\r\n\r\n", 400),
                                (b"GET / HTTP/1.1\r\nX: " + b"y" * 70000, 431),
                                (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411)):
            out = raw(u, garbage)
            check(out.startswith(b"HTTP/1.1 %d " % status) and b"Connection: close" in out,
                  "garbage %r -> %r" % (garbage[:12], out[:40]))
        out = raw(u, b"P" * 80 + b" /endpoints/ep/invocations HTTP/1.1\r\nHost: x\r\n"
                     b"Connection: close\r\n\r\n")
        check(out.startswith(b"HTTP/1.1 400 ") and b"BadRequestException" in out,
              "an 80-character method -> %r" % out[:60])
        two = (b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\n"
               b"Connection: close\r\n\r\n")
        check(raw(u, two).count(b"HTTP/1.1 200 OK") == 2, "pipelined requests both answered")
        s, h, b, _ = curl(u, "ep", json.dumps(chat("x " * 600000)))
        check(s == 424, "a 1.2 MB body goes through Expect: 100-continue")
        check(request(u, "/ping", method="GET").status == 200, "still serving")
        st = emu.stats()
        check(st["bad_requests"] == 4 and st["endpoints"]["ep"]["in_flight"] == 0, "stats %s" % st)


def test_tls():
    with tempfile.TemporaryDirectory() as d:
        cert, key = emulator.make_cert(d)
        with emulator.Emulator(["--endpoint", "ep=instant", "--tls-cert", cert, "--tls-key", key]) as emu:
            u = emu.url
            check(u.startswith("https://127.0.0.1:"), "https URL: %s" % u)
            s, h, b, rc = curl(u, "ep", json.dumps(chat("What is 2 * 21?")), extra=["-k"])
            check(s == 200 and json.loads(b)["choices"][0]["message"]["content"] == "42",
                  "curl over TLS: %s %s" % (s, rc))
            rc, out, err = sm_invoke(u, "ep", json.dumps(chat("hi")), "--cacert", cert)
            check(rc == 0, "sm-invoke verifies the certificate: %s" % err)
            check(raw(u.replace("https", "http"), b"GET /ping HTTP/1.1\r\n\r\n") == b"",
                  "plain HTTP on the TLS port gets nothing")
            s, h, b, rc = curl(u, "ep", "{}", extra=["-k"])
            check(s == 424, "still serving TLS")


def test_cli():
    binary = emulator.find_binary()
    cases = [  # arguments, words the one-line error must hold
        (["--bogus"], "unknown option or missing value: '--bogus'"),
        (["--endpoint", "bad_name=instant"], "--endpoint 'bad_name=instant': want NAME[/VARIANT]=PROFILE"),
        (["--endpoint", "ep=gpt9"], "unknown profile 'gpt9'"),
        (["--endpoint", "ep=instant", "--endpoint", "ep=instant"], "--endpoint ep/AllTraffic is given twice"),
        (["--endpoint", "ep=instant", "--set", "ep.speed=1"], "--set ep.speed: unknown profile parameter 'speed'"),
        (["--endpoint", "ep=instant", "--set", "ep.overhead_s=-1"], "bad value '-1' for overhead_s"),
        (["--endpoint", "ep=instant", "--set", "other.jitter=0"], "no endpoint or variant 'other'"),
        (["--time-scale", "0"], "--time-scale: '0' is not a number"),
        (["--listen", "nowhere"], "--listen 'nowhere': not HOST:PORT"),
        (["--tls-cert", "/nonexistent.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.pem"], "--tls-cert /nonexistent.pem"),
        (["--profile-file", "/nonexistent.json"], "/nonexistent.json: cannot read"),
        (["--credentials-file", "/nonexistent.json"], "--credentials-file /nonexistent.json: cannot read"),
        (["--credential", "AKIDONLY"], "--credential: want AKID:SECRET[:TOKEN][@EXPIRY]"),
        (["--credential", "AK:s3cr3tvalue@soon"], "--credential: want AKID:SECRET"),
        (["--credential", "AK:s3cr3tvalue@2026-13-01T00:00:00Z"], "--credential: want AKID:SECRET"),
        (["--credential", "AK:s3cr3tvalue@2026-1-1T0:0:0Z"], "--credential: want AKID:SECRET"),
        (["--credential", "AK:s3cr3tvalue@99999999999999999999"], "--credential: want AKID:SECRET"),
        (["--no-env-credentials"], "no credentials to accept"),
        (["--busy-poll=x"], "unknown option or missing value: '--busy-poll=x'"),
        (["--bearer-token", "two words s3cr3tvalue"], "--bearer-token: want 1 to 8192 visible ASCII"),
        (["--endpoint", "a=instant", "--endpoint", "b=instant", "--log-file", "/tmp/x.log"],
         "2 containers would share one file"),
    ]
    for args, words in cases:
        p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=20)
        err = p.stderr.strip()
        check(p.returncode == 2 and p.stdout == "" and err.count("\n") == 0 and
              err.startswith("sm-emulator: ") and words in err, "%s -> %d %r" % (args, p.returncode, err))
        check("s3cr3tvalue" not in err, "no secret in the error of %s" % args)
    # a file it writes is never reached through a symbolic link (common/safeopen.h)
    with tempfile.TemporaryDirectory() as d:
        victim = os.path.join(d, "victim")
        with open(victim, "w") as f:
            f.write("keep\n")
        for flag in ("--request-log", "--log-file", "--port-file"):
            link = os.path.join(d, flag.strip("-"))
            os.symlink(victim, link)
            p = subprocess.run([binary, "--listen", "127.0.0.1:0", "--endpoint", "ep=instant",
                                "--credential", "AKIDLINK:linksecret", flag, link],
                               capture_output=True, text=True, timeout=20)
            want = "sm-emulator: %s: cannot write %s: %s is a symbolic link, refusing to follow " \
                "it (remove it, or choose another path)" % (flag, link, link)
            check(p.returncode == 2 and p.stderr.strip() == want, "%s at a link -> %d %r"
                  % (flag, p.returncode, p.stderr))
        with open(victim) as f:
            check(f.read() == "keep\n", "written through a link")
    p = subprocess.run([binary, "--help"], capture_output=True, text=True)
    flags = ["--listen", "--port-file", "--tls-cert", "--tls-key", "--idle-timeout", "--busy-poll",
             "--endpoint", "--set", "--profile-file", "--time-scale", "--max-duration", "--seed",
             "--region", "--account-id", "--credential", "--credentials-file", "--no-env-credentials",
             "--log-file", "--log-interval", "--version", "/emulator/stats", "fault.KIND",
             "answer.KEY", "step_ms", "slow_first_byte_s", "X-Amzn-SageMaker-Target-Variant",
             "--bearer-token", "--stream-split", "--log-subsecond", "stream_stall_s",
             "invocations-response-stream", "openai/v1/chat/completions", "first_token"]
    check(p.returncode == 0 and all(f in p.stdout for f in flags),
          "--help documents %s" % [f for f in flags if f not in p.stdout])
    with tempfile.TemporaryDirectory() as d:
        port_file = os.path.join(d, "url")
        with emulator.Emulator(["--endpoint", "ep=instant", "--port-file", port_file]) as emu:
            check(open(port_file).read() == emu.url + "\n", "--port-file holds the URL")
        creds = os.path.join(d, "creds.json")
        json.dump({"credentials": [{"access_key_id": "AKIDFILE", "secret_access_key": "filesecret",
                                    "session_token": "FILETOKEN", "expiration": "2099-01-01T00:00:00Z"}]},
                  open(creds, "w"))
        with emulator.Emulator(["--endpoint", "ep=instant", "--credentials-file", creds,
                                "--no-env-credentials"]) as emu:
            r = invoke(emu.url, "ep", chat("hi"), akid="AKIDFILE", secret="filesecret", token="FILETOKEN")
            check(r.status == 200, "a key from --credentials-file: %s" % r.body)
            r = invoke(emu.url, "ep", chat("hi"))
            check(r.status == 403, "--no-env-credentials refuses the environment's key")


def voluntary_switches(pid):
    """How often process pid gave up its CPU to wait (voluntary_ctxt_switches, all threads)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            total += sum(int(line.split()[1]) for line in f
                         if line.startswith("voluntary_ctxt_switches:"))
    return total


def test_busy_poll():
    """With and without --busy-poll: the same reply, never before its 0.3 s of model time;
    the idle timeout closes a connection, never before 1 s; the busy emulator never waits
    for an event (its voluntary context switches stay put while it serves a call and
    waits out the idle timeout; the other one sleeps, at least through the idle second);
    SIGINT stops it with exit 0. Counts, not a CPU share: two CPU hogs beside it take
    the busy poller's CPU but never make it sleep."""
    args = ["--endpoint", "ep=instant", "--set", "ep.overhead_s=0.2", "--set", "ep.step_ms=1:10",
            "--idle-timeout", "1"]
    replies = {}
    for busy in (False, True):
        with emulator.Emulator(args + ["--busy-poll"] * busy) as emu:
            waits0, t0 = voluntary_switches(emu.proc.pid), time.monotonic()
            r = invoke(emu.url, "ep", chat("Write a story.", 10, ignore_eos=True))
            took = time.monotonic() - t0
            check(r.status == 200 and 0.3 <= took,
                  "busy %s: a reply of 0.3 model s in %.3f s" % (busy, took))
            timing = ("date", "x-sm-emulator-service-us")  # the clock's, not the reply's
            replies[busy] = (r.status, {k: v for k, v in r.headers.items() if k not in timing},
                             {k: v for k, v in r.json().items() if k != "created"})
            t1 = time.monotonic()
            out = raw(emu.url, b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")  # until it closes
            idle = time.monotonic() - t1
            check(out.startswith(b"HTTP/1.1 200 ") and 0.99 <= idle,
                  "busy %s: the 1 s idle timeout closed after %.3f s" % (busy, idle))
            waits = voluntary_switches(emu.proc.pid) - waits0
            # the sleeping one sleeps at least for the idle timeout (a second with nothing to
            # do); not once per timer, since on a busy host a timer may be due on waking
            check(waits == 0 if busy else waits >= 1,
                  "busy %s: the emulator waited for events %d times" % (busy, waits))
            emu.proc.send_signal(signal.SIGINT)
            try:
                code = emu.proc.wait(60)
            except subprocess.TimeoutExpired:
                code = None
            check(code == 0, "busy %s: SIGINT -> exit %s" % (busy, code))
    check(replies[True] == replies[False], "the same reply either way: %s" % replies)


def test_date():
    """Every reply's Date is the second of the wall clock (CLOCK_REALTIME) when it was
    written: between the second the request left and the second its reply came back.
    Requests run back to back until the clock has crossed two second boundaries, so
    replies written in the first milliseconds of a second are among them (time(), the
    kernel's coarse clock, still read the previous second there)."""
    import email.utils
    with emulator.Emulator(["--endpoint", "ep=instant"]) as emu:
        first, n, wrong = int(time.time()), 0, []
        while True:
            t0 = time.time()
            r = request(emu.url, "/ping", method="GET")
            t1 = time.time()
            n += 1
            date = r.header("date") or ""
            try:
                said = int(email.utils.parsedate_to_datetime(date).timestamp())
            except (TypeError, ValueError):
                said = None
            if said is None or not int(t0) <= said <= int(t1):
                wrong.append("%r sent at %.6f, back at %.6f" % (date, t0, t1))
            if int(t1) >= first + 3:
                break
    check(not wrong, "%d of %d replies' Date is not the second they were written in: %s"
          % (len(wrong), n, "; ".join(wrong[:3])))


GROUPS = {"date": test_date, "cli": test_cli, "signatures": test_signatures, "formats": test_formats,
          "limit": test_limit, "stall": test_limit_after_a_stall,
          "faults": test_faults, "variants": test_variants, "quiz": test_quiz, "log": test_log,
          "bad": test_bad_requests, "tls": test_tls, "busy": test_busy_poll}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
    sys.exit(finish())
