"""A scripted streaming server for the engine's tests (stdlib only): it answers
InvokeEndpointWithResponseStream (POST /endpoints/MODE/invocations-response-stream,
AWS event stream frames of PayloadPart events) and the OpenAI-compatible route
(POST /endpoints/MODE/openai/v1/chat/completions, Server-Sent Events in the body),
both chunked, the way the endpoint name MODE says:

    ok          five one-token vLLM chat chunks, then usage (prompt 7, completion 5)
                and [DONE]; event stream frames are cut in the middle of the events
    capital     "Can", "berra", then usage (completion 2) and [DONE]
    tgi         four TGI token events, the last with details (generated_tokens 4)
    lmi         three LMI JSON lines (application/jsonlines), the last with details
    multi       three chunks of two tokens each (two logprobs entries), usage 6
    gap         two one-token chunks sent GAP_S apart, then usage
    burst       BURST one-token chunks in one write (one HTTP chunk), then usage
    modelerror  two tokens, then a ModelStreamError exception (ModelInvocationTimeExceeded);
                on the OpenAI route an error event
    internal    one token, then an InternalStreamFailure exception
    badcrc      one token, then a frame whose message CRC is wrong
    cut         two tokens, then half a frame and the connection closed
    stall       one token, then nothing until the client goes away
    refuse      400 ValidationError (a JSON body), nothing streamed
    echo        a hostile server that echoes the request: each line of its head as a
                content chunk (and a bearer token alone), the Authorization value as
                finish_reason, then an
                exception (an error event on the OpenAI route) whose type is the
                Authorization value and whose code and message are the whole head
    echorefuse  400 ValidationError whose message is the request's head
    ansi        content with escape sequences: ESC's CSI and OSC, the C1 CSI and OSC
    endless     ENDLESS one-token chunks ("x"), then nothing until srv.release is set
                (the request is marked "held"), then the connection cut: a valid
                stream as long as a test wants

The OpenAI route accepts a request signed with SigV4 or, when the server was
given a bearer token, one with "Authorization: Bearer TOKEN" (else 401).

    with streamsrv.Server(bearer="tok") as srv:
        srv.url          # "http://127.0.0.1:PORT"
        srv.requests     # every request: {"path", "head", "body", "sent": [times], "conn": the
                     # connection's number (from 0, as accepted), "nth": its order on it}
"""
import json
import socket
import struct
import threading
import time
import zlib

GAP_S = 0.05
BURST = 50  # chunks the burst mode writes at once
ENDLESS = 1 << 17  # chunks of the endless stream: four times sm-stream's cap on those kept


def _header(name, value):
    n, v = name.encode(), value.encode()
    return struct.pack("!B", len(n)) + n + struct.pack("!BH", 7, len(v)) + v


def frame(headers, payload, corrupt=False):
    """One event stream message: prelude, its CRC, headers, payload, message CRC."""
    h = b"".join(_header(k, v) for k, v in headers)
    total = 12 + len(h) + len(payload) + 4
    prelude = struct.pack("!II", total, len(h))
    head = prelude + struct.pack("!I", zlib.crc32(prelude)) + h + payload
    crc = zlib.crc32(head) ^ (0xFFFFFFFF if corrupt else 0)
    return head + struct.pack("!I", crc)


def part(data):
    return frame([(":event-type", "PayloadPart"), (":content-type", "application/octet-stream"),
                  (":message-type", "event")], data)


def exception(kind, message, code=None):
    body = {"Message": message}
    if code:
        body["ErrorCode"] = code
    return frame([(":exception-type", kind), (":content-type", "application/json"),
                  (":message-type", "exception")], json.dumps(body).encode())


def chat(text, tokens=1):
    c = {"id": "c", "object": "chat.completion.chunk", "model": "m",
         "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    if tokens > 1:
        c["choices"][0]["logprobs"] = {"content": [{"token": "t", "logprob": 0.0}] * tokens}
    return b"data: " + json.dumps(c).encode() + b"\n\n"


def usage(prompt, completion):
    return (b"data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [],
                                    "usage": {"prompt_tokens": prompt,
                                              "completion_tokens": completion}}).encode()
            + b"\n\n")


DONE = b"data: [DONE]\n\n"


def tgi(i, text, last=False):
    e = {"index": i, "token": {"id": i, "text": text, "logprob": 0.0, "special": False},
         "generated_text": None, "details": None}
    if last:
        e["generated_text"], e["details"] = "x", {"finish_reason": "length",
                                                   "generated_tokens": i + 1}
    return b"data:" + json.dumps(e).encode() + b"\n\n"


def lmi(i, text, last=False):
    e = {"token": {"id": i, "text": text, "log_prob": 0.0}}
    if last:
        e["generated_text"], e["details"] = "x", {"finish_reason": "length",
                                                   "generated_tokens": i + 1}
    return json.dumps(e).encode() + b"\n"


# Modes whose head carries x-sm-emulator-service-us (emulator/README.md): its value.
SERVICE_US = {"timed": "4321", "badtimed": "-5", "hugetimed": "1234567890123"}


def _authorization(head):
    for line in head.split("\r\n"):
        if line.lower().startswith("authorization:"):
            return line.split(":", 1)[1].strip()
    return ""


def echo(head, openai):
    """The echo mode's pieces: the request's head back in every string a stream has."""
    auth = _authorization(head)
    done = {"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": {"content": "."}, "finish_reason": auth}]}
    tail = (b"data: " + json.dumps({"error": {"message": head, "type": auth,
                                              "code": head}}).encode() + b"\n\n") if openai else (
        "exception", auth, head, head)
    bare = [chat(auth[7:])] if auth.startswith("Bearer ") else []  # the token alone
    return [chat(line + "\n") for line in head.split("\r\n") if line] + bare + [
        b"data: " + json.dumps(done).encode() + b"\n\n", tail]


def endless(openai):
    """The endless mode's pieces: ENDLESS one-token chunks, 1024 a write (SSE events
    or PayloadPart frames), then the connection held open until srv.release is set."""
    one = chat("x") if openai else part(chat("x"))
    return [("raw", one * 1024)] * (ENDLESS // 1024) + [("hold",)]


def script(mode, openai, head=""):
    """(content type, [pieces]): a piece is bytes of container text, ("sleep", s),
    ("raw", bytes) sent as is, ("exception", kind, msg, code), ("cut",) or ("stall",)."""
    if mode == "echo":
        return "text/event-stream", echo(head, openai)
    if mode == "ansi":
        return "text/event-stream", [chat("\x1b[2J\x1b]0;pwned\x07"), chat("\u009b31m"),
                                     chat("\u009d8;;x\u009c\x7f"), usage(7, 3), DONE]
    if mode == "endless":
        return "text/event-stream", endless(openai)
    if mode == "ok":
        return "text/event-stream", [chat(w) for w in ["One", " two", " three", " four", " five"]] + [
            usage(7, 5), DONE]
    if mode in SERVICE_US:  # "ok" with the emulator's service-time header
        return script("ok", openai)
    if mode == "capital":
        return "text/event-stream", [chat("Can"), chat("berra"), usage(7, 2), DONE]
    if mode == "tgi":
        return "text/event-stream", [tgi(i, w, i == 3) for i, w in enumerate(["a", "b", "c", "d"])]
    if mode == "lmi":
        return "application/jsonlines", [lmi(i, w, i == 2) for i, w in enumerate(["a", "b", "c"])]
    if mode == "multi":
        return "text/event-stream", [chat("ab", 2), chat("cd", 2), chat("ef", 2), usage(7, 6), DONE]
    if mode == "burst":
        one = chat("x") if openai else part(chat("x"))
        return "text/event-stream", [("raw", one * BURST), usage(7, BURST), DONE]
    if mode == "gap":
        return "text/event-stream", [chat("One"), ("sleep", GAP_S), chat(" two"), usage(7, 2), DONE]
    if mode == "modelerror":
        tail = (b'data: {"error": {"message": "took too long", "type": "ModelError", '
                b'"code": "ModelInvocationTimeExceeded"}}\n\n') if openai else (
            "exception", "ModelStreamError", "Model invocation time exceeded",
            "ModelInvocationTimeExceeded")
        return "text/event-stream", [chat("One"), chat(" two"), tail]
    if mode == "internal":
        return "text/event-stream", [chat("One"), ("exception", "InternalStreamFailure",
                                                   "internal stream failure", None)]
    if mode == "badcrc":
        return "text/event-stream", [chat("One"), ("raw", frame(
            [(":event-type", "PayloadPart"), (":message-type", "event")], chat(" two"), True))]
    if mode == "cut":
        return "text/event-stream", [chat("One"), chat(" two"), ("raw", part(chat(" three"))[:20]),
                                     ("cut",)]
    if mode == "stall":
        return "text/event-stream", [chat("One"), ("stall",)]
    return None, None


class Server:
    def __init__(self, bearer=None):
        self.bearer = bearer
        self.requests = []
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.closing = threading.Event()
        self.release = threading.Event()  # ends the endless mode's hold

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.closing.set()
        self.sock.close()

    def _accept(self):
        n = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn, n), daemon=True).start()
            n += 1

    def _serve(self, conn, number):
        f = conn.makefile("rb")
        try:
            nth = 0
            while self._one(conn, f, number, nth):
                nth += 1
        except OSError:
            pass
        finally:
            conn.close()

    def _one(self, conn, f, number, nth):
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            line = f.readline(65536)
            if not line:
                return False
            head += line
        text = head.decode("latin-1")
        length = 0
        for line in text.split("\r\n"):
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        body = f.read(length)
        path = text.split(" ")[1]
        req = {"path": path, "head": text, "body": body, "sent": [], "conn": number, "nth": nth}
        with self.lock:
            self.requests.append(req)
        parts = path.split("/")
        mode = parts[2] if len(parts) > 2 else ""
        openai = path.endswith("/openai/v1/chat/completions")
        if not openai and not path.endswith("/invocations-response-stream"):
            return self._error(conn, 404, "UnknownOperationException", "no such route")
        if openai and self.bearer is not None and "authorization: bearer" in text.lower():
            if ("authorization: bearer " + self.bearer).lower() not in text.lower():
                return self._error(conn, 401, "UnauthorizedException", "wrong bearer token")
        elif "authorization: aws4-hmac-sha256" not in text.lower():
            return self._error(conn, 403, "MissingAuthenticationTokenException", "not signed")
        ctype, pieces = script(mode, openai, text)
        if mode == "echorefuse":
            return self._error(conn, 400, "ValidationError", text)
        if pieces is None:
            return self._error(conn, 400, "ValidationError", "endpoint %s refuses" % mode)
        return self._stream(conn, req, ctype, pieces, openai, SERVICE_US.get(mode))

    def _error(self, conn, status, kind, message):
        body = json.dumps({"message": message}).encode()
        conn.sendall(("HTTP/1.1 %d Error\r\nContent-Type: application/json\r\n"
                      "x-amzn-ErrorType: %s\r\nContent-Length: %d\r\n\r\n"
                      % (status, kind, len(body))).encode() + body)
        return True

    def _stream(self, conn, req, ctype, pieces, openai, service_us=None):
        head = ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"]
        if service_us is not None:
            head.append("X-Sm-Emulator-Service-Us: " + service_us)
        if openai:
            head.append("Content-Type: " + ctype)
        else:
            head += ["Content-Type: application/vnd.amazon.eventstream",
                     "X-Amzn-SageMaker-Content-Type: " + ctype]
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        carry = b""  # event stream: a frame's second half goes with the next piece

        def send(data):
            if data:
                conn.sendall(b"%x\r\n" % len(data) + data + b"\r\n")
                req["sent"].append(time.monotonic())

        for p in pieces:
            if isinstance(p, bytes):
                if openai:
                    send(p)
                else:
                    f = part(p)
                    cut = len(f) // 2
                    send(carry + f[:cut])
                    carry = f[cut:]
                continue
            send(carry)
            carry = b""
            if p[0] == "sleep":
                time.sleep(p[1])
            elif p[0] == "raw":
                send(p[1])
            elif p[0] == "exception":
                send(exception(p[1], p[2], p[3]))
            elif p[0] == "cut":
                conn.shutdown(socket.SHUT_RDWR)
                return False
            elif p[0] == "hold":
                req["held"] = True
                self.release.wait()
                conn.shutdown(socket.SHUT_RDWR)
                return False
            elif p[0] == "stall":
                conn.settimeout(None)
                while conn.recv(4096):
                    pass
                return False
        send(carry)
        conn.sendall(b"0\r\n\r\n")
        return True
