"""Search test outputs for leaked credentials (stdlib only).

    import secretscan
    found = secretscan.scan([secret_key, session_token],
                            [("stdout", out), ("stderr", err), run_dir, emulator_log])
    assert not found, secretscan.describe(found)

Each secret is searched as it is, JSON-escaped ("/" as "\\/") and percent-encoded, and
by its first 12 characters in each of those forms (a secret cut short is still a leak).
Every source is also searched for what only a request carries: an Authorization header
(`Authorization:` / `"Authorization":` / `Authorization=`) or an `X-Amz-Security-Token`
header whose value is not `<redacted>`, a SigV4 credential (`AWS4-HMAC-SHA256
Credential=`) and a signature (`Signature=` and 64 hex digits); pass headers=False for a
source where those may legitimately appear (e.g. sm-invoke --dry-run's output).

A source is (name, text), (name, text, headers), a path to a file, or a path to a
directory (every file under it). Binary files are read as bytes with errors replaced.
A finding names the source, what matched and the offset, never the secret itself.

CLI (secrets come from environment variables, never from the command line, where the
process list would show them):
    SECRETSCAN_SECRETS='key token' python3 secretscan.py PATH...
exits 1 and prints one line per finding, 0 when clean, 2 on bad usage.
"""
import os
import re
import sys
import urllib.parse

PREFIX = 12  # a leaked prefix this long is as good as the whole key to a reader

SHOWN = r"""["']?\s*[:=](?!\s*["']?<redacted>)"""  # a header's value, unless "<redacted>"
HEADER_PATTERNS = [
    ("an Authorization header", re.compile(r"""(?i)["']?\bauthorization""" + SHOWN)),
    ("a SigV4 credential", re.compile(r"AWS4-HMAC-SHA256\s+Credential=")),
    ("a SigV4 signature", re.compile(r"(?i)\bSignature=[0-9a-f]{64}")),
    ("an X-Amz-Security-Token header", re.compile(r"(?i)\bx-amz-security-token" + SHOWN)),
]


def _forms(secret):
    """The texts a secret may take in a file: raw, JSON-escaped, percent-encoded."""
    forms = {secret, secret.replace("/", "\\/"), urllib.parse.quote(secret, safe=""),
             urllib.parse.quote_plus(secret, safe="")}
    return sorted(forms, key=len, reverse=True)


def _needles(secrets):
    """Per secret, (label, text) pairs to search: every form of it and of its prefix."""
    out = []
    for i, secret in enumerate(secrets):
        if not secret:
            continue
        if len(secret) < PREFIX:
            raise ValueError("secret #%d is shorter than %d characters: too easy to "
                             "find by chance" % (i + 1, PREFIX))
        label = "secret #%d" % (i + 1)
        out.append([(label, form) for form in _forms(secret)] +
                   [("the first %d characters of %s" % (PREFIX, label), form)
                    for form in _forms(secret[:PREFIX])])
    return out


def _read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def _expand(sources):
    """Yields (name, text, headers) for every source; directories recursively."""
    for src in sources:
        if isinstance(src, tuple):
            yield src[0], src[1] or "", src[2] if len(src) > 2 else True
        elif os.path.isdir(src):
            for root, dirs, files in os.walk(src):
                dirs.sort()
                for name in sorted(files):
                    path = os.path.join(root, name)
                    if os.path.isfile(path):
                        yield path, _read(path), True
        elif os.path.isfile(src):
            yield src, _read(src), True
        else:
            raise FileNotFoundError("secretscan: no such file or directory: %s" % src)


def scan(secrets, sources, headers=True):
    """Findings as (source name, what, offset); an empty list when clean.
    headers=False skips the request-header patterns for every source."""
    needles = _needles(secrets)
    found = []
    for name, text, want_headers in _expand(sources):
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        for per_secret in needles:
            for what, needle in per_secret:
                at = text.find(needle)
                if at >= 0:
                    found.append((name, what, at))
                    break  # the longest form found is the one to report
        if headers and want_headers:
            for what, rx in HEADER_PATTERNS:
                m = rx.search(text)
                if m:
                    found.append((name, what, m.start()))
    return found


def describe(found):
    """One line per finding, for a test failure message."""
    return "\n".join("%s: %s at offset %d" % f for f in found)


def main(argv):
    secrets = os.environ.get("SECRETSCAN_SECRETS", "").split()
    if not secrets or len(argv) < 2 or argv[1] in ("-h", "--help"):
        print("usage: SECRETSCAN_SECRETS='KEY TOKEN...' secretscan.py PATH...\n"
              "searches every file under each PATH for the secrets (and their first %d "
              "characters)\nand for request headers; exit 1 with one line per finding, "
              "0 when clean" % PREFIX, file=sys.stderr)
        return 2
    try:
        found = scan(secrets, argv[1:])
    except (OSError, ValueError) as e:
        print("secretscan: %s" % e, file=sys.stderr)
        return 2
    if found:
        print(describe(found))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
