#!/usr/bin/python3
"""A fake SageMaker Runtime for sm-invoke's tests (stdlib + botocore).

Listens on 127.0.0.1 (port 0), prints the port on stdout, and stops when its
standard input closes. Every POST is checked like SageMaker does: the
Authorization header is recomputed independently with botocore's SigV4Auth
(the signed headers as received), the X-Amz-Date must lie within 5 minutes of
the server's clock, every header that matters must be signed, and the session
token must be the expected one. The endpoint name picks the reply:

  ok-*          200, JSON describing what arrived (headers, body hash, attempt)
  model-error   424 ModelError (x-amzn-ErrorType, "Message" in the body)
  missing       400 ValidationError
  throttled     429 with only a body "__type" (no x-amzn-ErrorType)
  plain-502     502 with an HTML body
  hostile-503   503 whose reason phrase holds terminal escapes, no error code
  slow          answers after the server stops (for --timeout)
  skew-ahead    the server's clock runs 3600 s ahead (Date header too)
  skew-behind   the server's clock runs 3600 s behind
  skew-always   always "Signature expired", naming the request count
"""
import argparse
import calendar
import hashlib
import json
import ssl
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

WINDOW = 300
UNSIGNED_OK = {"authorization", "user-agent", "content-length", "x-amzn-trace-id"}  # as botocore
SKEW = {"skew-ahead": 3600, "skew-behind": -3600}
stopping = threading.Event()
counts = {}
counts_lock = threading.Lock()


def amz_time(t):
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))


def parse_authorization(value):
    algo, _, rest = value.partition(" ")
    if algo != "AWS4-HMAC-SHA256":
        return None
    fields = dict(p.strip().split("=", 1) for p in rest.split(",") if "=" in p)
    scope = fields.get("Credential", "").split("/")
    if len(scope) != 5 or "SignedHeaders" not in fields or "Signature" not in fields:
        return None
    return scope, fields["SignedHeaders"].split(";"), fields["Signature"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    skew = 0

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        return formatdate(time.time() + self.skew, usegmt=True)

    def reply(self, status, body, error_type=None, content_type="application/json", reason=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status, reason)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if error_type:
            self.send_header("x-amzn-ErrorType", error_type + ":http://internal.amazon.com/coral/")
        self.end_headers()
        self.wfile.write(data)

    def deny(self, status, error_type, message):
        self.reply(status, {"message": message}, error_type)
        return False

    def check_signature(self, body, name):
        """Returns True when the request is signed right, else replies with the error."""
        auth = parse_authorization(self.headers.get("Authorization", ""))
        if not auth:
            return self.deny(403, "MissingAuthenticationTokenException", "Missing Authentication Token")
        (akid, date8, region, service, _), signed, signature = auth
        for h in self.headers.keys():
            if h.lower() not in signed and h.lower() not in UNSIGNED_OK:
                return self.deny(400, "UnsignedHeader", "header %s is sent but not signed" % h)
        if akid not in self.server.keys:
            return self.deny(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
        token = self.headers.get("X-Amz-Security-Token")
        if token != self.server.tokens.get(akid):
            return self.deny(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
        amz_date = self.headers.get("X-Amz-Date", "")
        try:
            signed_at = calendar.timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ"))
        except ValueError:
            return self.deny(400, "IncompleteSignatureException", "bad X-Amz-Date")
        now = time.time() + self.skew
        with counts_lock:
            attempt = counts[name] = counts.get(name, 0) + 1
        if name == "skew-always" or signed_at < now - WINDOW:
            return self.deny(403, "InvalidSignatureException",
                             "Signature expired: %s is now earlier than %s (%s - 5 min.) (request %d)"
                             % (amz_date, amz_time(now - WINDOW), amz_time(now), attempt))
        if signed_at > now + WINDOW:
            return self.deny(403, "InvalidSignatureException",
                             "Signature not yet current: %s is still later than %s (%s + 5 min.)"
                             % (amz_date, amz_time(now + WINDOW), amz_time(now)))
        req = AWSRequest(method="POST", url="http://%s%s" % (self.headers["Host"], self.path), data=body)
        for h in signed:
            for v in self.headers.get_all(h, []):
                req.headers[h] = v
        creds = Credentials(akid, self.server.keys[akid], token)
        sigv4 = SigV4Auth(creds, service, region)
        req.context["timestamp"] = amz_date
        sigv4._modify_request_before_signing(req)
        creq = sigv4.canonical_request(req)
        want = sigv4.signature(sigv4.string_to_sign(req, creq), req)
        if want != signature or sigv4.signed_headers(sigv4.headers_to_sign(req)) != ";".join(signed):
            return self.deny(403, "InvalidSignatureException",
                             "The request signature we calculated does not match the signature you provided. "
                             "Check your AWS Secret Access Key and signing method.")
        self.attempt, self.scope = attempt, (date8, region, service)
        return True

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        parts = self.path.split("/")
        if len(parts) < 4 or parts[-1] != "invocations" or parts[-3] != "endpoints":
            return self.deny(404, "UnknownOperationException", "unknown path")
        name = parts[-2]
        self.skew = SKEW.get(name, 0)
        if self.check_signature(body, name):
            self.send_reply(name, body)

    def send_reply(self, name, body):
        if name == "model-error":
            return self.reply(424, {"ErrorCode": "CLIENT_ERROR_FROM_MODEL", "OriginalStatusCode": 400,
                                    "Message": 'Received client error (400) from primary with message "bad prompt". '
                                               "See the log."}, "ModelError")
        if name == "missing":
            return self.deny(400, "ValidationError", "Endpoint missing of account 123456789012 not found.")
        if name == "throttled":
            return self.reply(429, {"__type": "com.amazon.coral.availability#ThrottlingException",
                                    "message": "Rate exceeded"})
        if name == "plain-502":
            return self.reply(502, b"<html><body>Bad Gateway</body></html>", content_type="text/html")
        if name == "hostile-503":
            return self.reply(503, b"", content_type="text/plain", reason="Busy\x1b[2J\x1b]0;pwned\x07 now")
        if name == "slow":
            stopping.wait(30)
        seen = {k.lower(): v for k, v in self.headers.items()
                if k.lower() not in ("authorization", "x-amz-security-token")}
        seen["x-repeat"] = self.headers.get_all("X-Repeat", [])
        self.reply(200, {"endpoint": name, "path": self.path, "attempt": self.attempt,
                         "scope": self.scope, "headers": seen, "body_len": len(body),
                         "body_sha256": hashlib.sha256(body).hexdigest()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", action="append", default=[], help="AKID=SECRET, repeatable")
    ap.add_argument("--token", action="append", default=[],
                    help="AKID=TOKEN: the session token that key's requests must carry, repeatable")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # e.g. a client refusing the certificate
    server.keys = dict(k.split("=", 1) for k in a.key)
    server.tokens = dict(t.split("=", 1) for t in a.token)
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*a.tls)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    stopping.set()
    server.shutdown()


if __name__ == "__main__":
    main()
