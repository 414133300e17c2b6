"""sm-mcp over pipes for the python tests: one request at a time, the
notifications and other messages read meanwhile kept in notes."""
import json
import subprocess


class Session:
    def __init__(self, server, args, env, cwd, client="test", stderr=subprocess.PIPE):
        self.p = subprocess.Popen([server] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=stderr, env=env, cwd=cwd, text=True)
        self.id = 0
        self.notes = []
        self.init = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                "clientInfo": {"name": client, "version": "0"}})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def start(self, method, params, token=None):
        """Sends a request without waiting for its reply; returns its id."""
        self.id += 1
        if token is not None:
            params = dict(params, _meta={"progressToken": token})
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        return self.id

    def read_until(self, pred):
        """The first message read that pred accepts (the others go to notes), or
        None at the end of the output."""
        while True:
            line = self.p.stdout.readline()
            if not line:
                return None
            msg = json.loads(line)
            if pred(msg):
                return msg
            self.notes.append(msg)

    def request(self, method, params, token=None):
        rid = self.start(method, params, token)
        return self.read_until(lambda m: m.get("id") == rid)

    def tool(self, name, args, token=None):
        return self.request("tools/call", {"name": name, "arguments": args}, token)["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)
        return self.p.stderr.read() if self.p.stderr else ""
