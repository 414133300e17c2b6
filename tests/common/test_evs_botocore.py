#!/usr/bin/python3
"""Differential tests of the event stream codec (common/evs.c) against botocore's
EventStreamBuffer (Debian's python3-botocore), with a fixed seed.

  encode: random messages (every header type, random payloads) encoded by the C
          encoder decode in botocore to the same headers and payloads.
  decode: random streams built here with struct + zlib.crc32 (good messages,
          corrupted CRCs, lengths over the limits, malformed and duplicate
          headers, bad UTF-8, cut-short streams), fed in random slices, give the
          same messages in the C decoder and in botocore, and are rejected at the
          same message for the same reason. Two known differences are allowed,
          and only where they apply: botocore accepts a string, bytes or uuid value
          cut short by the end of the headers (C: malformed header), and botocore
          misreads a total length under 16 + headers length (C: length error).

Usage: test_evs_botocore.py EVS_TOOL (encode|decode) [CASES]"""
import json
import random
import struct
import subprocess
import sys
import zlib

from botocore.eventstream import (ChecksumMismatch, DuplicateHeader, EventStreamBuffer,
                                  InvalidHeadersLength, InvalidPayloadLength)

# evs_error codes (common/evs.h)
OK, PRELUDE_CRC, MESSAGE_CRC, HEADERS_LENGTH, PAYLOAD_LENGTH = 0, -2, -3, -4, -5
LENGTH, HEADER, DUP_HEADER, TRUNCATED = -6, -7, -8, -9
FIXED = {2: (1, "!b"), 3: (2, "!h"), 4: (4, "!i"), 5: (8, "!q"), 8: (8, "!q")}


def crc(data, start=0):
    return zlib.crc32(data, start) & 0xFFFFFFFF


def rand_name(rng):
    kind = rng.random()
    if kind < 0.6:
        return bytes(rng.choice(b":abcdefghijklmnopqrstuvwxyz-") for _ in range(rng.randint(1, 20)))
    if kind < 0.9:
        text = "".join(chr(rng.choice([rng.randint(0x20, 0x7E), rng.randint(0xA0, 0x7FF),
                                       rng.randint(0x800, 0xD7FF), rng.randint(0x10000, 0x10FFFF)]))
                       for _ in range(rng.randint(0, 12)))
        return text.encode()[:255]
    return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40)))


def rand_value(rng, typ):
    """(wire value for the C tool, canonical value) of a random header value."""
    if typ in (0, 1):
        return "-", ("bool", typ == 0)
    if typ in FIXED:
        size = FIXED[typ][0]
        v = rng.randint(-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1)
        return str(v), ("int", v)
    if typ == 9:
        b = bytes(rng.randint(0, 255) for _ in range(16))
        return b.hex(), ("bytes", b.hex())
    if typ == 6:
        b = bytes(rng.randint(0, 255) for _ in range(rng.choice([0, 1, 5, 300])))
        return b.hex() or "-", ("bytes", b.hex())
    s = "".join(chr(rng.choice([rng.randint(0x20, 0x7E), rng.randint(0x80, 0xFFFF)]))
                for _ in range(rng.choice([0, 1, 7, 200])))
    b = s.encode("utf-8", "surrogatepass")
    return b.hex() or "-", ("str", b.hex())


def canon_boto(headers):
    out = {}
    for name, v in headers.items():
        key = name.encode().hex()
        if isinstance(v, bool):
            out[key] = ("bool", v)
        elif isinstance(v, int):
            out[key] = ("int", v)
        elif isinstance(v, bytes):
            out[key] = ("bytes", v.hex())
        else:
            out[key] = ("str", v.encode().hex())
    return out


def canon_c(headers):
    out = {}
    for name, typ, v in headers:
        if typ in (0, 1):
            out[name] = ("bool", typ == 0)
        elif typ in FIXED:
            out[name] = ("int", v)
        elif typ == 7:
            out[name] = ("str", v)
        else:
            out[name] = ("bytes", v)
    return out


def boto_decode(stream, splits):
    """botocore's messages and outcome: 'ok', 'incomplete' or the exception's name."""
    buf = EventStreamBuffer()
    msgs = []
    at = 0
    try:
        for n in splits + [len(stream)]:
            buf.add_data(stream[at:at + n])
            at += n
            for m in buf:
                msgs.append((canon_boto(m.headers), m.payload.hex()))
            if at >= len(stream):
                break
    except (ChecksumMismatch, InvalidHeadersLength, InvalidPayloadLength, DuplicateHeader) as e:
        return msgs, type(e).__name__
    except Exception as e:  # malformed headers: struct.error, KeyError, UnicodeDecodeError
        return msgs, "HeaderError:" + type(e).__name__
    return msgs, "incomplete" if buf._data else "ok"


def c_decode(tool, stream, splits):
    out = subprocess.run([tool, "decode", ",".join(map(str, splits))], input=stream,
                         capture_output=True, check=True).stdout.decode()
    lines = [json.loads(line) for line in out.splitlines()]
    msgs = [(canon_c(m["headers"]), m["payload"]) for m in lines[:-1]]
    last = lines[-1]
    return msgs, last.get("error", last.get("end"))


AGREE = {OK: "ok", TRUNCATED: "incomplete", PRELUDE_CRC: "ChecksumMismatch",
         MESSAGE_CRC: "ChecksumMismatch", HEADERS_LENGTH: "InvalidHeadersLength",
         PAYLOAD_LENGTH: "InvalidPayloadLength", DUP_HEADER: "DuplicateHeader"}


def agree(c_code, boto):
    if c_code == HEADER:
        return boto.startswith("HeaderError:")
    return AGREE.get(c_code) == boto


# ---- building messages in Python ----

def header_bytes(name, typ, raw):
    return bytes([len(name)]) + name + bytes([typ]) + raw


def rand_header(rng, name):
    typ = rng.randint(0, 9)
    if typ in (0, 1):
        raw = b""
    elif typ in FIXED:
        size, fmt = FIXED[typ]
        raw = struct.pack(fmt, rng.randint(-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1))
    elif typ == 9:
        raw = bytes(rng.randint(0, 255) for _ in range(16))
    else:
        if typ == 7:
            value = "".join(chr(rng.choice([rng.randint(0x20, 0x7E), rng.randint(0xA0, 0xD7FF),
                                            rng.randint(0x10000, 0x10FFFF)]))
                            for _ in range(rng.randint(0, 30))).encode()
        else:
            value = bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 30)))
        raw = struct.pack("!H", len(value)) + value
    return header_bytes(name, typ, raw)


def frame(headers, payload, total=None, hlen=None, bad_prelude=False, bad_message=False):
    hlen = len(headers) if hlen is None else hlen
    total = 16 + len(headers) + len(payload) if total is None else total
    prelude = struct.pack("!II", total, hlen)
    pcrc = crc(prelude) ^ (1 if bad_prelude else 0)
    msg = prelude + struct.pack("!I", pcrc) + headers + payload
    return msg + struct.pack("!I", crc(msg) ^ (0x80000000 if bad_message else 0))


def good_message(rng):
    names = set()
    hdrs = b""
    for _ in range(rng.choice([rng.randint(0, 6), rng.randint(17, 60)])):
        name = rand_name(rng)[:255]
        try:
            name.decode("utf-8")
        except UnicodeDecodeError:
            name = b"n" + bytes([len(names)])
        if name in names:
            continue
        names.add(name)
        hdrs += rand_header(rng, name)
    payload = bytes(rng.randint(0, 255) for _ in range(rng.choice([0, 1, 10, 100, 3000])))
    return hdrs, payload


def lax_truncation(hdrs):
    """True when the last header's string, bytes or uuid value is cut short by the
    end of the section: botocore takes the short value, C calls it malformed."""
    p = 0
    while p < len(hdrs):
        nl = hdrs[p]
        p += 1 + nl
        if p >= len(hdrs):
            return False
        typ = hdrs[p]
        p += 1
        if typ in (0, 1):
            continue
        if typ in FIXED:
            p += FIXED[typ][0]
            if p > len(hdrs):
                return False
            continue
        if typ == 9:
            p += 16
            if p > len(hdrs):
                return True
            continue
        if typ in (6, 7):
            if p + 2 > len(hdrs):
                return False
            n = struct.unpack("!H", hdrs[p:p + 2])[0]
            p += 2 + n
            if p > len(hdrs):
                return True
            continue
        return False
    return False


def bad_message(rng, kind):
    hdrs, payload = good_message(rng)
    if kind == "prelude_crc":
        return frame(hdrs, payload, bad_prelude=True)
    if kind == "message_crc":
        return frame(hdrs, payload, bad_message=True)
    if kind == "headers_length":
        return frame(hdrs, payload, hlen=128 * 1024 + rng.randint(1, 1 << 20),
                     total=rng.randint(16, 1 << 24))
    if kind == "payload_length":
        return frame(hdrs, payload, total=16 + len(hdrs) + 16 * 1024 * 1024 + rng.randint(1, 99))
    if kind == "short_total":
        return frame(hdrs, payload, total=rng.randint(0, 15 + len(hdrs)))
    if kind == "unknown_type":
        return frame(header_bytes(b"x", rng.randint(10, 255), b"") + hdrs, payload)
    if kind == "duplicate":
        h = rand_header(rng, b":dup")
        return frame(h + hdrs + rand_header(rng, b":dup"), payload)
    if kind == "bad_utf8":
        bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"])
        if rng.random() < 0.5:
            return frame(header_bytes(b"a" + bad, 0, b"") + hdrs, payload)
        return frame(header_bytes(b"s", 7, struct.pack("!H", len(bad)) + bad) + hdrs, payload)
    if kind == "cut_headers":
        h = hdrs + rand_header(rng, b"\xe2\x9c\x93last")
        return frame(h[:rng.randint(0, len(h) - 1)], payload)
    raise ValueError(kind)


KINDS = ["prelude_crc", "message_crc", "headers_length", "payload_length", "short_total",
         "unknown_type", "duplicate", "bad_utf8", "cut_headers"]


def random_splits(rng, n):
    style = rng.random()
    if style < 0.2:
        return []
    if style < 0.3:
        return [1] * n
    cuts, at = [], 0
    while at < n:
        step = rng.randint(0, max(1, n // 3))
        cuts.append(step)
        at += step
    return cuts


def test_decode(tool, cases):
    rng = random.Random(20260925)
    counts = {}
    for case in range(cases):
        stream = b""
        good = rng.randint(0, 4)
        for _ in range(good):
            stream += frame(*good_message(rng))
        kind = rng.choice(KINDS + ["none", "none", "cut_stream"])
        if kind == "cut_stream":
            m = frame(*good_message(rng))
            stream += m[:rng.randint(1, len(m) - 1)]
        elif kind != "none":
            stream += bad_message(rng, kind)
            stream += frame(*good_message(rng))  # never reached when the decoders stop
        splits = random_splits(rng, len(stream))
        b_msgs, b_end = boto_decode(stream, splits)
        c_msgs, c_end = c_decode(tool, stream, splits)
        where = f"case {case} ({kind}, {good} good messages first, splits {splits[:8]}...)"
        if c_msgs != b_msgs[:len(c_msgs)] or len(c_msgs) < good:
            sys.exit(f"{where}: messages differ:\nC:        {c_msgs}\nbotocore: {b_msgs}")
        if agree(c_end, b_end) and len(c_msgs) == len(b_msgs):
            outcome = "agree"
        elif kind == "short_total" and c_end == LENGTH:
            outcome = "allowed: botocore misreads a negative payload length"
        elif kind == "cut_headers" and c_end == HEADER and b_end in ("ok", "incomplete"):
            bad = stream_at(stream, good)
            hdrs = bad[12:12 + struct.unpack("!I", bad[4:8])[0]]
            if not lax_truncation(hdrs):
                sys.exit(f"{where}: C rejects headers botocore accepts, not a cut value")
            outcome = "allowed: botocore takes a value cut short"
        else:
            sys.exit(f"{where}: outcome differs: C {c_end}, botocore {b_end}")
        if kind == "none" and c_end != OK:
            sys.exit(f"{where}: a good stream failed in C: {c_end}")
        counts[(kind, outcome)] = counts.get((kind, outcome), 0) + 1
    for (kind, outcome), n in sorted(counts.items()):
        print(f"{kind:15} {outcome}: {n}")
    rejected = {k for (k, o) in counts if k != "none"}
    if not set(KINDS) <= rejected:
        sys.exit(f"not every kind of bad message was tried: {sorted(set(KINDS) - rejected)}")


def stream_at(stream, good):
    """The bytes of the message after the first `good` ones."""
    at = 0
    for _ in range(good):
        at += struct.unpack("!I", stream[at:at + 4])[0]
    return stream[at:]


def test_encode(tool, cases):
    rng = random.Random(4242)
    spec, want = [], []
    types_seen = set()
    for _ in range(cases):
        headers, names = [], set()
        for _ in range(rng.randint(0, 10)):
            name = rand_name(rng)
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if name in names:
                continue
            names.add(name)
            typ = rng.randint(0, 9)
            types_seen.add(typ)
            wire, canon = rand_value(rng, typ)
            if typ == 7:
                try:
                    bytes.fromhex(canon[1]).decode("utf-8")
                except UnicodeDecodeError:  # a lone surrogate: not UTF-8
                    continue
            headers.append((name, typ, wire, canon))
        payload = bytes(rng.randint(0, 255) for _ in range(rng.choice([0, 1, 50, 5000])))
        spec.append(f"M {payload.hex() or '-'} {len(headers)}")
        spec += [f"H {n.hex() or '-'} {t} {w}" for n, t, w, _ in headers]
        want.append(({n.hex(): c for n, _, _, c in headers}, payload.hex()))
    if types_seen != set(range(10)):
        sys.exit(f"not every header type was tried: {sorted(types_seen)}")
    stream = subprocess.run([tool, "encode"], input=("\n".join(spec) + "\n").encode(),
                            capture_output=True, check=True).stdout
    got, end = boto_decode(stream, [])
    if end != "ok":
        sys.exit(f"botocore rejects the C encoder's stream: {end}")
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                sys.exit(f"message {i} differs:\nbotocore: {g}\nwanted:   {w}")
        sys.exit(f"{len(got)} messages decoded, {len(want)} encoded")
    print(f"{len(want)} messages, every header type: botocore decodes what C encoded")


def main():
    tool, what = sys.argv[1], sys.argv[2]
    cases = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    (test_encode if what == "encode" else test_decode)(tool, cases)


if __name__ == "__main__":
    main()
