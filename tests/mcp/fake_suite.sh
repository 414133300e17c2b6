#!/bin/sh
# A stand-in for sm-suite (SM_SUITE) that a stop must end the hard way: it
# ignores SIGTERM, and it starts a child that dies at SIGTERM and a grandchild
# that ignores SIGTERM in a session of its own (outside every process group
# sm-mcp knows), as a wrk left behind would be. It says its step has started
# (a progress line) once all three exist, then waits for good.
trap '' TERM
setsid sh -c 'trap "" TERM; exec sleep 3600' </dev/null >/dev/null 2>&1 &
sh -c 'exec sleep 3600' </dev/null >/dev/null 2>&1 &
echo "sm-suite: [1/1] decode: started" >&2
wait
