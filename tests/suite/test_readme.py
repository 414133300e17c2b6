#!/usr/bin/python3
"""Every command README.md shows runs, against sm-emulator, in one bash session the way
a reader would type them, from a scratch copy of the project's folder (scenarios/ and
lua/ linked, build/ the build under test).

Markers, HTML comments on the line before a fenced block (blank lines may come between):
    <!-- readme-test -->                 the ```sh block is run
    <!-- readme-test: skip: REASON -->  the ```sh block is not run, for REASON
    <!-- readme-test: file PATH -->     the block's text is written to PATH, then the
                                         blocks after it run
    <!-- readme-test: output NAME -->   every line of the ```text block appears in what
                                         REPRODUCE[NAME] prints ("..." stands for anything)
The first ```sh block (./scripts/demo, ./scripts/test) must read exactly as FIRST_BLOCK
and is not run: the demo has tests of its own (test_demo.py), and ./scripts/test runs
this test. Any other ```sh block without a marker fails the test; a ```json block must
parse.

Commands for real endpoints run against the emulator: in the session, `wrk` and `sm-stream` send what
is addressed to https://runtime.sagemaker.REGION.amazonaws.com to the emulator (adding
--region when the command has none), `sm-suite` and `sm-invoke` get --url (and
--time-scale, but for a resume: its run has it) when they have none, `sm-suite --deploy`
and `sm-endpoint` send the control plane's calls to the emulator (--endpoint-url, with
--time-scale), and `aws` fails (blocks that need it are skipped).

Environment: see suitelib.py."""
import json
import os
import re
import subprocess
import sys
import tempfile

import suitelib as sl
from suitelib import check

README = os.path.join(sl.ROOT, "README.md")
FIRST_BLOCK = ["./scripts/demo    # the whole bf16-vs-QAT comparison against the local "
               "SageMaker emulator",
               "./scripts/test    # installs what is missing, builds, runs every test (beside "
               "the other builds and lint, then CPU hogs; under ASan+UBSan all but the slow), "
               "fuzz"]
SCALE = "200"  # the emulator's time scale for commands meant for real endpoints
MARKER = re.compile(r"<!-- readme-test(?:: (.*?))? -->")

SHIMS = r'''
set -euo pipefail
__readme_wrk=$WRK
# PROGRAM ARGS...: what is addressed to SageMaker goes to the emulator, time-scaled.
__readme_real() {
    local prog=$1 args=() a rewrote=0 region=0
    shift
    for a in "$@"; do
        case $a in
        https://runtime.sagemaker.*.amazonaws.com) args+=("$README_EMU_URL"); rewrote=1 ;;
        *) args+=("$a") ;;
        esac
        [ "$a" = --region ] && region=1
    done
    if [ $rewrote = 1 ]; then
        [ $region = 1 ] || args+=(--region us-east-2)
        args+=(--time-scale "$README_SCALE")
    fi
    "$prog" "${args[@]}"
}
wrk() { __readme_real "$__readme_wrk" "$@"; }
sm-stream() { __readme_real "$(type -P sm-stream)" "$@"; }
sm-suite() {
    case " $* " in
    *" --url "*) command sm-suite "$@" ;;
    *" --resume "*) command sm-suite "$@" --url "$README_EMU_URL" ;;
    *" --deploy "*) command sm-suite "$@" --url "$README_EMU_URL" --endpoint-url "$README_EMU_URL" \
        --time-scale "$README_SCALE" ;;
    *) command sm-suite "$@" --url "$README_EMU_URL" --time-scale "$README_SCALE" ;;
    esac
}
sm-endpoint() {
    case " $* " in
    *" --endpoint-url "*) command sm-endpoint "$@" ;;
    *) command sm-endpoint --endpoint-url "$README_EMU_URL" --time-scale "$README_SCALE" "$@" ;;
    esac
}
sm-invoke() {
    case " $* " in
    *" --url "*) command sm-invoke "$@" ;;
    *) command sm-invoke "$@" --url "$README_EMU_URL" ;;
    esac
}
aws() {
    echo "readme test: aws is not available here" >&2
    return 1
}
'''


class Block:
    def __init__(self, line, lang, text, marker):
        self.line, self.lang, self.text, self.marker = line, lang, text, marker


def parse(path):
    """The fenced blocks of the file, each with the marker before it (or None)."""
    with open(path) as f:
        lines = f.read().splitlines()
    blocks, marker, i = [], None, 0
    while i < len(lines):
        m = MARKER.fullmatch(lines[i].strip())
        fence = re.fullmatch(r"```([\w-]*)", lines[i])
        if m:
            check(marker is None, f"README.md:{i + 1}: two markers in a row")
            marker = (m.group(1) or "run", i + 1)
        elif fence:
            end = lines.index("```", i + 1)
            blocks.append(Block(i + 1, fence.group(1), lines[i + 1:end], marker))
            marker, i = None, end
        elif lines[i].strip() and marker:
            raise sl.Failure(f"README.md:{marker[1]}: the marker is not followed by a code block")
        i += 1
    return blocks


def workdir():
    """A scratch copy of the project's folder: scenarios/ with links to the scenarios,
    lua/ and build/ linked."""
    tmp = sl.tempdir("suite-readme-")
    os.makedirs(os.path.join(tmp, "scenarios"))
    src = os.path.join(sl.ROOT, "scenarios")
    for name in os.listdir(src):
        if name.endswith((".lua", ".json")):
            os.symlink(os.path.join(src, name), os.path.join(tmp, "scenarios", name))
    os.symlink(os.path.join(sl.ROOT, "lua"), os.path.join(tmp, "lua"))
    os.symlink(os.environ["SUITE_BUILD"], os.path.join(tmp, "build"))
    return tmp


def script_of(blocks):
    """The bash session of the README's blocks; the text blocks to compare; the skipped
    blocks with their reasons."""
    parts, outputs, skipped, first = [SHIMS], [], [], True
    for b in blocks:
        kind, arg = (b.marker[0].split(" ", 1) + [""])[:2] if b.marker else (None, "")
        if b.lang == "json":
            try:
                json.loads("\n".join(b.text))
            except ValueError as err:
                raise sl.Failure(f"README.md:{b.line}: the JSON does not parse: {err}")
        if b.lang == "sh" and first:
            first = False
            check(b.text == FIRST_BLOCK and b.marker is None,
                  f"README.md:{b.line}: the first block must be exactly\n" + "\n".join(FIRST_BLOCK))
            with open(os.path.join(sl.ROOT, ".ci", "run")) as f:
                check(FIRST_BLOCK[1] in f.read().splitlines(),
                      ".ci/run does not run the README's test command: " + FIRST_BLOCK[1])
            skipped.append((b.line, "the demo has its own tests; ./scripts/test runs this one"))
        elif kind == "file":
            check(arg and "README_EOF" not in b.text, f"README.md:{b.line}: file marker")
            parts.append(f"mkdir -p \"$(dirname '{arg}')\"\ncat > '{arg}' <<'README_EOF'\n"
                         + "\n".join(b.text) + "\nREADME_EOF\n")
        elif kind == "output":
            check(b.lang == "text" and arg in REPRODUCE, f"README.md:{b.line}: output marker {arg}")
            outputs.append((b, arg))
        elif b.lang == "sh" and kind == "skip:":
            check(arg.strip() != "", f"README.md:{b.line}: a skipped block needs a reason")
            skipped.append((b.line, arg))
        elif b.lang == "sh":
            check(kind == "run", f"README.md:{b.line}: a sh block without a readme-test marker")
            parts.append(f"echo '### README.md:{b.line}' >&2\n" + "\n".join(b.text) + "\n")
        else:
            check(b.marker is None, f"README.md:{b.line}: a marker on a {b.lang or 'plain'} block")
    return "\n".join(parts), outputs, skipped


def matches(pattern, text):
    """Whether a line of text holds the pattern's pieces ("..." between them) in order,
    the first at the start and the last at the end unless "..." stands there."""
    pieces = pattern.split("...")
    for line in text.splitlines():
        at = 0
        if pieces[0] and not line.startswith(pieces[0]):
            continue
        ok = True
        for k, piece in enumerate(pieces):
            found = line.find(piece, at)
            if found < 0 or (k == 0 and piece and found != 0):
                ok = False
                break
            at = found + len(piece)
        if ok and (not pieces[-1] or line.endswith(pieces[-1])):
            return True
    return False


# ---------------------------------------------------------------- reproductions
# Each runs sm-suite in a way that shows one problem and returns what it printed.

def suite_output(tmp, emu_args, suite_args, environ=None):
    e = environ or sl.env(tmp)
    emu = sl.start_emulator(emu_args, sl.env(tmp)) if emu_args is not None else None
    try:
        url = emu.url if emu else "http://127.0.0.1:9"
        out = tempfile.mkdtemp(dir=tmp)
        p = sl.suite(["--url", url, "--scenarios", "decode", "--out", out] + suite_args, e, tmp)
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), out])
        return p.stdout + p.stderr
    finally:
        if emu:
            emu.stop()


SIDES = ["--baseline", "gemma-4-e2b", "--candidate", "gemma-4-e2b-qat"]
ENDPOINTS = ["--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint", "gemma-4-e2b-qat=qat-l4"]


def r_no_credentials(tmp):
    e = {k: v for k, v in sl.env(tmp).items() if not k.startswith("AWS_")}
    e.update(HOME=os.path.join(tmp, "nohome"), AWS_EC2_METADATA_DISABLED="true")
    return suite_output(tmp, None, ["--region", "us-east-2"] + SIDES, e)


def r_signature(tmp):
    return suite_output(tmp, ENDPOINTS + ["--no-env-credentials", "--credential",
                                          sl.AKID + ":another-secret", "--region", "us-east-2"],
                        ["--region", "us-east-2"] + SIDES, sl.env(tmp, token=False))


def r_unknown_key(tmp):
    return suite_output(tmp, ENDPOINTS + ["--no-env-credentials", "--credential",
                                          "AKIDSOMEONEELSE:" + sl.SECRET, "--region", "us-east-2"],
                        ["--region", "us-east-2"] + SIDES)


def r_expired(tmp):
    return suite_output(tmp, ENDPOINTS + ["--no-env-credentials", "--credential",
                                          f"{sl.AKID}:{sl.SECRET}:{sl.TOKEN}@-60",
                                          "--region", "us-east-2"],
                        ["--region", "us-east-2"] + SIDES)


def r_not_found(tmp):
    return suite_output(tmp, ["--endpoint", "elsewhere=instant", "--region", "us-west-2"],
                        ["--region", "us-west-2"] + SIDES)


def r_scope(tmp):
    return suite_output(tmp, ENDPOINTS + ["--region", "us-east-2"], ["--region", "us-west-2"] + SIDES)


def r_timeout(tmp):
    return suite_output(tmp, ENDPOINTS + ["--region", "us-east-2", "--time-scale", "100", "--set",
                                          "gemma-4-e2b.step_ms=1:150"],
                        ["--region", "us-east-2", "--time-scale", "100"] + SIDES)


def r_ignore_eos(tmp):
    return suite_output(tmp, ENDPOINTS + ["--region", "us-east-2", "--time-scale", "100", "--set",
                                          "*.format=tgi"],
                        ["--region", "us-east-2", "--time-scale", "100", "--format", "lmi",
                         "--prompt", "What is 54 * 28? Reply with the number only."] + SIDES)


REPRODUCE = {"no-credentials": r_no_credentials, "signature": r_signature,
             "unknown-key": r_unknown_key, "expired": r_expired,
             "not-found": r_not_found, "scope": r_scope, "timeout": r_timeout,
             "ignore-eos": r_ignore_eos}


def run_session(script, tmp):
    e = sl.env(tmp)
    emu = sl.start_emulator(["--endpoint", "gemma-4-e2b=bf16-l4", "--endpoint",
                             "gemma-4-e2b-qat=qat-l4", "--endpoint", "gemma-4-e2b-ab/bf16=bf16-l4",
                             "--endpoint", "gemma-4-e2b-ab/qat=qat-l4", "--region", "us-east-2",
                             "--time-scale", SCALE,
                             # at 200x, SageMaker's 60 s limit would be 0.3 s of real time,
                             # which a busy machine's scheduling can take: the commands shown
                             # are not about the limit (Troubleshooting's own run shows it)
                             "--max-duration", "3600",
                             # room for the four above and the two the README deploys
                             "--quota", "us-east-2/ml.g6.xlarge=8"], e)
    try:
        e.update(README_EMU_URL=emu.url, README_SCALE=SCALE)
        p = subprocess.run(["bash", "-c", script], env=e, cwd=tmp, capture_output=True, text=True,
                           timeout=sl.TIMEOUT)
        marks = re.findall(r"### (README\.md:\d+)", p.stderr)
        check(p.returncode == 0, f"the block at {marks[-1] if marks else '?'} failed "
              f"(exit {p.returncode}):\n{p.stderr[-6000:]}")
        sl.check_no_secrets([("stdout", p.stdout), ("stderr", p.stderr), os.path.join(tmp, "runs")],
                            signatures=False)
        return p
    finally:
        emu.stop()


def case_readme():
    blocks = parse(README)
    script, outputs, skipped = script_of(blocks)
    tmp = workdir()
    p = run_session(script, tmp)
    ran = len(re.findall(r"^### README", p.stderr, re.M))
    for path in ("runs/first/report.md", "runs/first/chart.svg", "runs/aba/bf16/rerun-decode.json",
                 "runs/deployed/bench-qat/quiz.json",
                 "runs/variants/qat/quiz.json", "runs/emulated/gemma-4-e2b/container.log",
                 "runs/capital-gemma-4-e2b.json", "report.md", "chart.svg"):
        check(os.path.exists(os.path.join(tmp, path)), f"{path} was not written")
    for b, name in outputs:
        text = REPRODUCE[name](tmp)
        for line in b.text:
            check(matches(line, text), f"README.md:{b.line}: no line of the {name} output "
                  f"matches\n  {line}\n--- the output:\n{text}")
    for line, reason in skipped:
        print(f"skipped README.md:{line}: {reason}")
    print(f"{ran} blocks ran, {len(outputs)} outputs compared, {len(skipped)} skipped")


if __name__ == "__main__":
    sys.exit(sl.run_cases({"readme": case_readme}, sys.argv[1:] or ["readme"]))
