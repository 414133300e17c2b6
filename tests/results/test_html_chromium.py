#!/usr/bin/python3
"""sm-compare's HTML report in a real browser: Debian's chromium, headless.

    test_html_chromium.py SM_COMPARE FIXTURES

For each report (native: sweep and quiz; open: an open-loop run; markup: HTML in an
error code, its message and a quiz reply) it writes the HTML file, has chromium open it
from disk, and checks what chromium made of it:

- the dumped DOM: the page's own script ran (data-js-ready on the root element, the
  number of <svg> it saw) and recorded no error (no data-js-errors: it records
  window.onerror and console.error there), every chart an <svg> with drawn elements,
  one <script> element, the title and no element from the files' text;
- chromium's log (--enable-logging=stderr): no console message at all (a policy
  violation, a blocked load or a script error is logged as one);
- the hover: through chromium's DevTools protocol (--remote-debugging-pipe), the mouse
  moved onto the last point drawn (on top of the others) shows that point's data-tip in the tooltip, and moved
  off it hides the tooltip;
- a screenshot of the whole page (a tall window at half scale, so that decoding it is
  quick): a PNG (decoded here with zlib) holding both sides' colours (the charts').

Skipped (exit 77) only when chromium is not installed. Chromium may start slowly on a
loaded host: each run has a generous hang guard and nothing depends on its timing.
"""

import fcntl
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import zlib

BIN, FIXTURES = sys.argv[1:3]
HANG_GUARD = 900  # seconds: only a guard against a hung browser, never a margin
SIDES = {"baseline": (0x4E, 0x79, 0xA7), "candidate": (0xF2, 0x8E, 0x2B)}
FRONT = {"a candidate on the front": (0xE1, 0x57, 0x59)}
DRAWN = ("circle", "rect", "path", "line", "polyline", "text")
REPORTS = [
    # name, sm-compare arguments, charts, the page's title, the colours drawn
    ("native", ["native/bf16", "native/qat"], 3, "bf16 vs qat", SIDES),
    ("open", ["--slo", "ttft:p90:0.6", "open/a", "open/b"], 3, "a vs b", SIDES),
    ("markup", ["-b", "evil/markup-decode.json", "-b", "native/qat/quiz-qat.json",
                "-c", "native/qat/decode-qat.json", "-c", "evil/markup-quiz.json"], 2, None,
     SIDES),
    ("candidates", ["--candidates", "cands"], 5, "6 candidates", FRONT),
]


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browse(browser, tmp, page, *args):
    """Runs a fresh headless chromium on the file page; returns (stdout, stderr)."""
    profile = tempfile.mkdtemp(dir=tmp, prefix="profile-")
    cmd = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"]
    cmd += list(args) + ["file://" + page]
    p = subprocess.run(cmd, capture_output=True, timeout=HANG_GUARD)
    err = p.stderr.decode("utf-8", "replace")
    expect(p.returncode == 0, "chromium exit %d: %s" % (p.returncode, err[-2000:]))
    return p.stdout.decode("utf-8", "replace"), err


class DevTools:
    """Chromium driven through its DevTools protocol on a pipe (JSON messages ending in
    NUL: commands on the browser's fd 3, replies and events on its fd 4)."""

    def __init__(self, browser, tmp):
        profile = tempfile.mkdtemp(dir=tmp, prefix="profile-")
        to_browser, self.from_browser = os.pipe(), os.pipe()
        mine, theirs = (to_browser[1], self.from_browser[0]), (to_browser[0], self.from_browser[1])

        def fds():  # the pipe's ends to 3 and 4, by way of fds above both
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in theirs]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=1000,800",
             "about:blank"], pass_fds=(3, 4) + theirs, preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        for fd in theirs:
            os.close(fd)
        self.guard = threading.Timer(HANG_GUARD, self.proc.kill)  # a hang guard only
        self.guard.daemon = True
        self.guard.start()
        self.out = os.fdopen(mine[0], "wb", buffering=0)
        self.inp = os.fdopen(mine[1], "rb", buffering=0)
        self.pending, self.last, self.session = b"", 0, None

    def message(self):
        while b"\0" not in self.pending:
            chunk = self.inp.read(65536)
            expect(chunk, "chromium closed its DevTools pipe")
            self.pending += chunk
        msg, self.pending = self.pending.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, until=None):
        """The result of a command; with until, also waits for that event."""
        self.last += 1
        msg = {"id": self.last, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self.out.write(json.dumps(msg).encode() + b"\0")
        result, seen = None, until is None
        while result is None or not seen:
            msg = self.message()
            if msg.get("id") == self.last:
                expect("error" not in msg, "DevTools %s: %r" % (method, msg.get("error")))
                result = msg["result"]
            seen = seen or msg.get("method") == until
        return result

    def value(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return json.loads(r["result"]["value"])

    def close(self):
        try:
            self.session = None
            self.call("Browser.close")
        except (Failure, OSError):
            self.proc.kill()
        self.guard.cancel()
        self.proc.wait()
        self.out.close()
        self.inp.close()


def check_hover(name, browser, tmp, page):
    """The mouse on the last point drawn (on top of any other) shows its data-tip; off
    it, nothing."""
    dt = DevTools(browser, tmp)
    try:
        pages = [t for t in dt.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        expect(pages, "%s: no page in chromium" % name)
        dt.session = dt.call("Target.attachToTarget", {"targetId": pages[0]["targetId"],
                                                       "flatten": True})["sessionId"]
        dt.call("Page.enable")
        dt.call("Page.navigate", {"url": "file://" + page}, until="Page.loadEventFired")
        x, y, want = dt.value(
            "var all = document.querySelectorAll('svg [data-tip]'), e = all[all.length - 1];"
            "e.scrollIntoView({block: 'center'});"
            "var r = e.getBoundingClientRect();"
            "JSON.stringify([r.x + r.width / 2, r.y + r.height / 2, e.getAttribute('data-tip')])")
        tip = "var t = document.getElementById('tip'); JSON.stringify([t.hidden, t.textContent])"
        dt.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        expect(dt.value(tip) == [False, want], "%s: the tooltip on %r shows %r"
               % (name, want, dt.value(tip)))
        dt.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1})
        expect(dt.value(tip)[0] is True, "%s: the tooltip stays off the point" % name)
        errors = dt.value("JSON.stringify(document.documentElement.getAttribute('data-js-errors'))")
        expect(errors is None, "%s: the script recorded errors on hover: %s" % (name, errors))
    finally:
        dt.close()


class Dom(html.parser.HTMLParser):
    """What the checks need of the dumped DOM."""

    def __init__(self):
        super().__init__()
        self.root = {}
        self.svgs = []  # per <svg>: its drawn elements
        self.depth = 0  # inside an <svg>
        self.scripts = 0
        self.title = ""
        self.in_title = False
        self.handlers = []  # elements with an on... attribute
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "html":
            self.root = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "title" and not self.depth:
            self.in_title = True
        self.handlers += [tag for k, _ in attrs if k.startswith("on")]
        if tag == "svg":
            self.depth += 1
            self.svgs.append(0)
        elif self.depth and tag in DRAWN:
            self.svgs[-1] += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.depth -= 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.depth -= 1
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = open(path, "rb").read()
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = head
    expect(depth == 8 and ctype in (2, 6) and interlace == 0,
           "a PNG of depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def check_dom(name, dom_text, charts, title):
    dom = Dom()
    dom.feed(dom_text)
    expect("data-js-errors" not in dom.root,
           "%s: the page's script recorded errors: %s" % (name, dom.root.get("data-js-errors")))
    expect(dom.root.get("data-js-ready") == str(charts),
           "%s: data-js-ready %r, want %d (the script did not run, or saw other charts)"
           % (name, dom.root.get("data-js-ready"), charts))
    expect(len(dom.svgs) == charts, "%s: %d <svg>, want %d" % (name, len(dom.svgs), charts))
    expect(all(n >= 5 for n in dom.svgs), "%s: an empty chart: drawn elements %r" % (name, dom.svgs))
    expect(dom.scripts == 1, "%s: %d <script> elements, want 1" % (name, dom.scripts))
    expect(not dom.handlers, "%s: elements with event handlers: %r" % (name, dom.handlers))
    expect("img" not in dom.tags, "%s: an <img> element" % name)
    if title:
        expect(dom.title == title, "%s: title %r, want %r" % (name, dom.title, title))
    expect("pwned" not in dom.title, "%s: a script from a file ran" % name)


def check_log(name, log):
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    expect(not console, "%s: console messages: %s" % (name, "\n".join(console)))


def check_screenshot(name, path, colors):
    width, height, rows = png_pixels(path)
    seen = set()
    for row in rows:
        seen.update(row)
    expect(len(seen) > 2, "%s: a blank screenshot (%d colours)" % (name, len(seen)))
    for side, rgb in colors.items():
        expect(rgb in seen, "%s: no pixel of the %s's colour %r in the %dx%d screenshot"
               % (name, side, rgb, width, height))


def main():
    browser = chromium()
    if not browser:
        print("SKIPPED: chromium is not installed (apt-get install chromium; scripts/setup "
              "installs it)")
        return 77
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, charts, title, colors in REPORTS:
            page = os.path.join(tmp, name + ".html")
            try:
                p = subprocess.run([BIN, "-f", "html", "-o", page] + args, cwd=FIXTURES,
                                   capture_output=True, timeout=HANG_GUARD)
                expect(p.returncode == 0, "%s: sm-compare exit %d: %s"
                       % (name, p.returncode, p.stderr.decode("utf-8", "replace")))
                dom, log = browse(browser, tmp, page, "--dump-dom")
                check_dom(name, dom, charts, title)
                check_log(name, log)
                check_hover(name, browser, tmp, page)
                shot = os.path.join(tmp, name + ".png")
                _, log = browse(browser, tmp, page, "--screenshot=" + shot,
                                "--window-size=1000,10000",
                                "--force-device-scale-factor=0.5", "--hide-scrollbars")
                check_log(name, log)
                check_screenshot(name, shot, colors)
                print("%s: ok (%d charts)" % (name, charts))
            except (Failure, subprocess.TimeoutExpired) as e:
                failed += 1
                print("FAILED: %s" % e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
