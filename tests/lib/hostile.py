"""A hostile HTTP server for the tests (stdlib only): it answers SageMaker-shaped
requests the way broken or malicious servers and proxies do. The endpoint name in
the path chooses the behaviour (/endpoints/MODE/invocations):

    echo400    400 ValidationError whose message is the whole request head (some
               proxies do this), the session token among it, also URL-encoded
    continue   an interim "100 Continue" before a normal 200
    fraction   a 200 whose usage says completion_tokens 4.5
    negative   a 200 whose usage says completion_tokens -3
    huge       a 200 whose text is 1 MiB of words
    twocl      a 200 with two different Content-Length headers
    redirect   307 to another host
    gzip       a 200 whose body is gzip (Content-Encoding: gzip) though nobody asked
    ok         a normal 200 (4 completion tokens)

    with hostile.Server() as srv:
        srv.url                   # "http://127.0.0.1:PORT"
        srv.heads                 # every request head received, as text
"""
import gzip
import json
import socket
import threading
import urllib.parse


def chat(text, tokens):
    return json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "length"}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": tokens}}).encode()


def reply(status, reason, body, headers=()):
    head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json",
            f"Content-Length: {len(body)}"] + list(headers)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def answer(mode, head):
    """The bytes the server sends for mode, given the request head."""
    if mode == "echo400":
        token = next((line.split(":", 1)[1].strip() for line in head.split("\r\n")
                      if line.lower().startswith("x-amz-security-token:")), "")
        msg = "bad request: " + head + " token=" + urllib.parse.quote(token, safe="")
        return reply(400, "Bad Request", json.dumps({"message": msg}).encode(),
                     ["x-amzn-ErrorType: ValidationError:http://internal.amazon.com/"])
    if mode == "continue":
        return b"HTTP/1.1 100 Continue\r\n\r\n" + reply(200, "OK", chat("x", 4))
    if mode == "fraction":
        return reply(200, "OK", chat("x", 4.5))
    if mode == "negative":
        return reply(200, "OK", chat("x", -3))
    if mode == "huge":
        return reply(200, "OK", chat("Canberra " * (1 << 17), 4))
    if mode == "twocl":
        body = chat("x", 4)
        return (f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nContent-Length: 3\r\n\r\n"
                .encode() + body)
    if mode == "redirect":
        return reply(307, "Temporary Redirect", b"{}", ["Location: http://evil.invalid/x"])
    if mode == "gzip":
        return reply(200, "OK", gzip.compress(chat("x", 4)), ["Content-Encoding: gzip"])
    return reply(200, "OK", chat("x", 4))


class Server:
    """One listening socket on 127.0.0.1; a thread per connection, keep-alive."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.heads = []
        self.lock = threading.Lock()
        self.done = False

    def __enter__(self):
        threading.Thread(target=self.accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.done = True
        self.sock.close()

    def accept(self):
        while not self.done:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        data = b""
        try:
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, data = data.split(b"\r\n\r\n", 1)
                text = head.decode("latin-1")
                length = next((int(line.split(":", 1)[1]) for line in text.split("\r\n")
                               if line.lower().startswith("content-length:")), 0)
                while len(data) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                data = data[length:]
                with self.lock:
                    self.heads.append(text)
                path = text.split(" ")[1] if " " in text else "/"
                parts = path.split("/")
                mode = parts[2] if len(parts) > 2 and parts[1] == "endpoints" else "ping"
                conn.sendall(answer(mode, text) if mode != "ping" else reply(200, "OK", b""))
        except OSError:
            return
        finally:
            conn.close()
