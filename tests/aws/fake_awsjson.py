#!/usr/bin/python3
"""A fake AWS JSON-protocol service for awsj's client tests (stdlib + botocore).

Listens on 127.0.0.1 (port 0), prints the port on stdout, and stops when its
standard input closes. Its clock is fixed (--clock, epoch seconds): the Date
header of every reply shows it and X-Amz-Date must lie within 5 minutes of it.

Every POST is checked as AWS would, against botocore's models on this machine:
  * X-Amz-Target is <targetPrefix>.<Operation> of one of sagemaker, logs,
    service-quotas or cloudwatch, and the operation exists in that model;
  * Content-Type is application/x-amz-json-<jsonVersion> of that model;
  * x-amzn-query-mode: true is sent exactly to awsQueryCompatible services;
  * the path is "/", the Host is the server's, the body is a JSON object;
  * the Authorization header is recomputed with botocore's SigV4Auth (the
    signed headers as received; the scope's service must be the model's
    signing name); every header but a few botocore never signs is signed.
Botocore 1.29.27 (Debian 12) models CloudWatch with the query protocol only;
for it the JSON 1.0 facts are taken from AWS's CloudWatch protocol FAQ and the
SDKs (see aws/awsj.h) unless the installed model has a "json" protocol.

The body's "case" picks the reply ("ok" when absent; for FilterLogEvents and
GetMetricData an endpoint named cw-CASE picks CASE: the log group
/aws/sagemaker/Endpoints/cw-CASE, the EndpointName dimension); counts per case
are kept:
  ok            200, what arrived: target, amz_date, scope, query_mode, attempt
  empty         200 with an empty body
  pages         three pages by token (nextToken for logs, NextToken otherwise)
  endless       a new token on every page
  repeat        the token it was asked with (t1 on the first page)
  notjson-page  200 with a JSON array
  throttle2     400 ThrottlingException twice, then ok
  429           429 with no body once, then ok
  denied        400 AccessDeniedException (code in "__type", "message")
  denied-header the same with the code in x-amzn-ErrorType and "Message"
  unavailable   503 ServiceUnavailableException, always
  echo          400 echoing the session token and the secret key
  echo-id       200 ok with the session token as x-amzn-RequestId
  big           200 with a body of --big bytes
  query-error   400 with x-amzn-query-error: ResourceNotFound;Sender
  counts        200 {"counts": {case: requests}}
  logpages      FilterLogEvents: three pages of events (nextToken l1, l2)
  noevents      200 with an object that has no "events"
  metricpages   GetMetricData: two pages (NextToken m1), a query's points across
                both and out of order, one time twice, an Id that was not asked
"""
import argparse
import calendar
import json
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.loaders import Loader

WINDOW = 300
UNSIGNED_OK = {"authorization", "user-agent", "content-length", "x-amzn-trace-id"}  # as botocore
MODELS = ("sagemaker", "logs", "service-quotas", "cloudwatch")
# CloudWatch's AWS JSON 1.0 protocol, when the installed model predates it.
CLOUDWATCH_JSON = {"targetPrefix": "GraniteServiceVersion20100801", "jsonVersion": "1.0",
                   "awsQueryCompatible": True}
counts = {}
counts_lock = threading.Lock()


def load_services():
    """targetPrefix -> the facts a request must match, from botocore's models."""
    loader, services = Loader(), {}
    for name in MODELS:
        model = loader.load_service_model(name, "service-2")
        meta = model["metadata"]
        protocols = meta.get("protocols", [meta["protocol"]])
        if "json" not in protocols:
            if name != "cloudwatch":
                raise SystemExit("%s: no json protocol in botocore's model" % name)
            meta = dict(meta, **CLOUDWATCH_JSON)
        services[meta["targetPrefix"]] = {
            "signing": meta.get("signingName", meta["endpointPrefix"]),
            "content_type": "application/x-amz-json-" + meta["jsonVersion"],
            "query_mode": "awsQueryCompatible" in meta,
            "operations": set(model["operations"]),
            "token_key": "nextToken" if name == "logs" else "NextToken",
        }
    return services


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


def case_of(request):
    """The reply the request asks for: its "case", else the CASE of an endpoint cw-CASE."""
    if "case" in request:
        return request["case"]
    names = [request.get("logGroupName", "").rpartition("/")[2]]
    for q in request.get("MetricDataQueries", []):
        names += [d["Value"] for d in q["MetricStat"]["Metric"]["Dimensions"]
                  if d["Name"] == "EndpointName"]
    return next((n[3:] for n in names if n.startswith("cw-")), "ok")


LOG_PAGES = {None: ("l1", [(1000, "s/1", "first")]),
             "l1": ("l2", [(2000, "s/1", "second"), (2500, "s/2", "third \"quoted\"")]),
             "l2": (None, [(3000, "s/1", "last")])}


class Refused(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        return formatdate(self.server.clock, usegmt=True)

    def reply(self, status, body=None, headers=()):
        data = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(data)))
        if not any(k.lower() == "x-amzn-requestid" for k, _ in headers):
            self.send_header("x-amzn-RequestId", "req-%d" % self.server.next_id())
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def check_protocol(self, body):
        """The service's facts for the request, or Refused."""
        prefix, _, op = self.headers.get("X-Amz-Target", "").partition(".")
        svc = self.server.services.get(prefix)
        if not svc or op not in svc["operations"]:
            raise Refused(400, "UnknownOperationException", "unknown target")
        if self.headers.get("Content-Type") != svc["content_type"]:
            raise Refused(400, "SerializationException", "content type is not " + svc["content_type"])
        mode = self.headers.get("x-amzn-query-mode")
        if mode != ("true" if svc["query_mode"] else None):
            raise Refused(400, "SerializationException", "x-amzn-query-mode is %r" % mode)
        if self.path != "/" or self.headers.get("Host") != "127.0.0.1:%d" % self.server.server_port:
            raise Refused(400, "SerializationException", "path or host")
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            raise Refused(400, "SerializationException", "the body is not a JSON object")
        return svc, request

    def check_signature(self, body, svc):
        auth = parse_authorization(self.headers.get("Authorization", ""))
        if not auth:
            raise Refused(403, "MissingAuthenticationTokenException", "Missing Authentication Token")
        (akid, date8, region, service, _), signed, signature = auth
        for h in self.headers.keys():
            if h.lower() not in signed and h.lower() not in UNSIGNED_OK:
                raise Refused(400, "UnsignedHeader", "header %s is sent but not signed" % h)
        token = self.headers.get("X-Amz-Security-Token")
        if akid not in self.server.keys or token != self.server.tokens.get(akid):
            raise Refused(403, "UnrecognizedClientException",
                          "The security token included in the request is invalid.")
        if service != svc["signing"] or region != self.server.region:
            raise Refused(403, "InvalidSignatureException", "Credential should be scoped to a valid region or service")
        amz_date = self.headers.get("X-Amz-Date", "")
        req = AWSRequest(method="POST", url="http://%s%s" % (self.headers["Host"], self.path), data=body)
        for h in signed:
            for v in self.headers.get_all(h, []):
                req.headers[h] = v
        sigv4 = SigV4Auth(Credentials(akid, self.server.keys[akid], token), service, region)
        req.context["timestamp"] = amz_date
        sigv4._modify_request_before_signing(req)
        want = sigv4.signature(sigv4.string_to_sign(req, sigv4.canonical_request(req)), req)
        if want != signature or sigv4.signed_headers(sigv4.headers_to_sign(req)) != ";".join(signed):
            raise Refused(403, "InvalidSignatureException",
                          "The request signature we calculated does not match the signature you provided.")
        return akid, amz_date, [date8, region, service]

    def check_time(self, amz_date):
        now = self.server.clock
        try:
            signed_at = calendar.timegm(time.strptime(amz_date, "%Y%m%dT%H%M%SZ"))
        except ValueError:
            raise Refused(400, "IncompleteSignatureException", "bad X-Amz-Date")
        if signed_at < now - WINDOW:
            raise Refused(403, "InvalidSignatureException",
                          "Signature expired: %s is now earlier than %s (%s - 5 min.)"
                          % (amz_date, amz_time(now - WINDOW), amz_time(now)))
        if signed_at > now + WINDOW:
            raise Refused(403, "InvalidSignatureException",
                          "Signature not yet current: %s is still later than %s (%s + 5 min.)"
                          % (amz_date, amz_time(now + WINDOW), amz_time(now)))

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            svc, request = self.check_protocol(body)
            akid, amz_date, scope = self.check_signature(body, svc)
            case = case_of(request)
            with counts_lock:
                attempt = counts[case] = counts.get(case, 0) + 1
            self.check_time(amz_date)
        except Refused as r:
            return self.reply(r.status, {"__type": r.code, "message": r.message})
        seen = {"target": self.headers["X-Amz-Target"], "amz_date": amz_date, "scope": scope,
                "query_mode": self.headers.get("x-amzn-query-mode"), "attempt": attempt,
                "request": request}
        self.play(case, attempt, svc, request, akid, seen)

    def play(self, case, attempt, svc, request, akid, seen):
        key = svc["token_key"]
        got = request.get(key)
        if case == "pages":
            nxt, events = {None: ("t1", ["e1", "e2"]), "t1": ("t2", ["e3"]), "t2": (None, ["e4"])}[got]
            page = {"events": events, "got": got}
            if nxt:
                page[key] = nxt
            return self.reply(200, page)
        if case == "logpages":
            nxt, events = LOG_PAGES[got]
            page = {"events": [{"logStreamName": s, "timestamp": t, "message": m,
                                "ingestionTime": t + 5, "eventId": "e%d" % t}
                               for t, s, m in events], "searchedLogStreams": []}
            if nxt:
                page[key] = nxt
            return self.reply(200, page)
        if case == "noevents":
            return self.reply(200, {"nothing": []})
        if case == "metricpages":
            asked = [q["Id"] for q in request["MetricDataQueries"]]
            if got is None:
                res = [{"Id": "invocations", "Label": "Invocations", "Timestamps": [1796034480],
                        "Values": [3], "StatusCode": "PartialData"},
                       {"Id": "unasked", "Timestamps": [1], "Values": [9], "StatusCode": "Complete"}]
                return self.reply(200, {"MetricDataResults": res, "Messages": [], key: "m1",
                                        "asked": asked})
            res = [{"Id": "invocations", "Label": "Invocations",
                    "Timestamps": [1796034420, 1796034480], "Values": [2, 4],
                    "StatusCode": "Complete"},
                   {"Id": "gpu", "Label": "GPUUtilization", "Timestamps": [1796034420],
                    "Values": [37.5], "StatusCode": "Complete"}]
            return self.reply(200, {"MetricDataResults": res, "Messages": []})
        if case == "endless":
            return self.reply(200, {"got": got, key: "t%d" % attempt})
        if case == "repeat":
            return self.reply(200, {"got": got, key: got or "t1"})
        if case == "notjson-page":
            return self.reply(200, [1, 2])
        if case == "empty":
            return self.reply(200)
        if (case == "throttle2" and attempt <= 2):
            return self.reply(400, {"__type": "com.amazon.coral.availability#ThrottlingException",
                                    "message": "Rate exceeded"})
        if case == "429" and attempt == 1:
            return self.reply(429)
        if case == "denied":
            return self.reply(400, {"__type": "AccessDeniedException", "message": self.server.denied})
        if case == "denied-header":
            return self.reply(400, {"Message": self.server.denied},
                              [("x-amzn-ErrorType",
                                "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/")])
        if case == "unavailable":
            return self.reply(503, {"__type": "ServiceUnavailableException", "message": "Service is unavailable"})
        if case == "echo":
            return self.reply(400, {"__type": "UnrecognizedClientException",
                                    "message": "The security token %s with key %s is invalid."
                                               % (self.server.tokens.get(akid), self.server.keys[akid])})
        if case == "echo-id":
            return self.reply(200, seen, [("x-amzn-RequestId", self.server.tokens.get(akid))])
        if case == "big":
            return self.reply(200, {"data": "x" * self.server.big})
        if case == "query-error":
            return self.reply(400, {"__type": "ResourceNotFoundException", "message": "gone"},
                              [("x-amzn-query-error", "ResourceNotFound;Sender")])
        if case == "counts":
            with counts_lock:
                return self.reply(200, {"counts": dict(counts)})
        self.reply(200, seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", action="append", default=[], help="AKID=SECRET, repeatable")
    ap.add_argument("--token", action="append", default=[], help="AKID=TOKEN that key's requests carry")
    ap.add_argument("--clock", type=int, required=True, help="the server's time, epoch seconds")
    ap.add_argument("--region", default="us-east-1")
    ap.add_argument("--big", type=int, default=100000, help="bytes of the 'big' reply's data")
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a client hanging up on "big"
    server.services = load_services()
    server.keys = dict(k.split("=", 1) for k in a.key)
    server.tokens = dict(t.split("=", 1) for t in a.token)
    server.clock, server.region, server.big = a.clock, a.region, a.big
    server.denied = ("User: arn:aws:iam::123456789012:user/bench is not authorized to perform: "
                     "logs:FilterLogEvents on resource: arn:aws:logs:us-east-1:123456789012:log-group:"
                     "/aws/sagemaker/Endpoints/ep because no identity-based policy allows the "
                     "logs:FilterLogEvents action")
    ids, ids_lock = [0], threading.Lock()

    def next_id():
        with ids_lock:
            ids[0] += 1
            return ids[0]
    server.next_id = next_id
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
