#!/usr/bin/python3
"""CPU per token of a Python client reading a streamed SageMaker reply: botocore's
event-stream decoder (botocore.eventstream.EventStreamBuffer, what boto3's
invoke_endpoint_with_response_stream uses) fed one message at a time, as a socket
delivers them, and the vLLM SSE payloads it carries joined, cut into events and
their JSON read for the delta's content, as a client that counts tokens must.
The reply is a file captured from sm-emulator; it is read again until SECONDS
of CPU have passed.
Usage: stream_vs_botocore.py REPLY [SECONDS]
Prints: tokens_per_reading N, botocore_us_per_token X"""
import json
import sys
import time

from botocore.eventstream import EventStreamBuffer


def messages(body):
    """The body cut into its messages (the prelude's total length)."""
    out, at = [], 0
    while at + 4 <= len(body):
        n = int.from_bytes(body[at:at + 4], "big")
        out.append(body[at:at + n])
        at += n
    return out


def read(parts):
    """Content chunks of one reply, decoded as a Python client would."""
    buf, text, tokens = EventStreamBuffer(), b"", 0
    for part in parts:
        buf.add_data(part)
        for msg in buf:
            if msg.headers.get(":message-type") != "event" or \
                    msg.headers.get(":event-type") != "PayloadPart":
                raise SystemExit("stream_vs_botocore: not a PayloadPart: %r" % msg.headers)
            text += msg.payload
            while b"\n\n" in text:
                event, text = text.split(b"\n\n", 1)
                for line in event.split(b"\n"):
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        continue
                    for choice in json.loads(data).get("choices") or ():
                        if (choice.get("delta") or {}).get("content"):
                            tokens += 1
    return tokens


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        parts = messages(f.read())
    seconds = float(sys.argv[2]) if len(sys.argv) == 3 else 2.0
    per, tokens, start = read(parts), 0, time.process_time()
    if per < 1:
        print("stream_vs_botocore: the reply has no content", file=sys.stderr)
        return 1
    while time.process_time() - start < seconds:
        tokens += read(parts)
    cpu = time.process_time() - start
    print(f"tokens_per_reading {per}")
    print(f"botocore_us_per_token {cpu / tokens * 1e6:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
