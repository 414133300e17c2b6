#!/usr/bin/python3
"""Fake ECS container credentials endpoint and EC2 instance metadata service.

Listens on 127.0.0.1 (port 0), prints the port on stdout and stops when its
standard input closes. The first path segment picks the behaviour, so one
server serves every case (point the endpoint variables at http://127.0.0.1:PORT/MODE):

container (GET /container/MODE):
  ok        200, AKIDCONTAINER credentials
  auth      the same, only with "Authorization: container-auth-token"
  fail      500
  badjson   200 with a body that is not JSON

instance metadata (MODE/latest/...):
  v2        IMDSv2 only: PUT /latest/api/token needs the TTL header, every GET
            needs the token it handed out (else 401)
  v1        an old service: PUT is 404, GETs need no token
  norole    no IAM role attached (404 on the role listing)
  failing   "Code": "Failure" in the credentials
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IMDS_TOKEN = "imds-session-token-42"
CONTAINER_AUTH = "container-auth-token"
ROLE = "test-role"
EXPIRATION = "2099-01-01T00:00:00Z"


def creds(akid, code="Success"):
    return {"Code": code, "Type": "AWS-HMAC", "AccessKeyId": akid,
            "SecretAccessKey": akid.lower() + "-secret", "Token": akid.lower() + "-token",
            "Expiration": EXPIRATION}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        mode, _, rest = self.path.lstrip("/").partition("/")
        if rest != "latest/api/token" or mode == "v1":
            return self.send(404, b"")
        if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "").isdigit():
            return self.send(400, b"missing TTL")
        self.send(200, IMDS_TOKEN.encode())

    def do_GET(self):
        mode, _, rest = self.path.lstrip("/").partition("/")
        if mode == "container":
            return self.container(rest)
        if mode != "v1" and self.headers.get("X-aws-ec2-metadata-token") != IMDS_TOKEN:
            return self.send(401, b"")
        if rest == "latest/meta-data/iam/security-credentials/":
            return self.send(404, b"") if mode == "norole" else self.send(200, (ROLE + "\n").encode())
        if rest == "latest/meta-data/iam/security-credentials/" + ROLE:
            return self.send(200, creds("AKIDIMDS", "Failure" if mode == "failing" else "Success"))
        self.send(404, b"")

    def container(self, mode):
        if mode == "auth" and self.headers.get("Authorization") != CONTAINER_AUTH:
            return self.send(401, b"")
        if mode == "fail":
            return self.send(500, b"")
        if mode == "badjson":
            return self.send(200, b"<html>")
        body = creds("AKIDCONTAINER")
        del body["Code"], body["Type"]
        self.send(200, body)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
