"""What the Python end-to-end tests share (stdlib only).

    from testkit import Failure, check, isolated_env
    check(rc == 0, "wrk exited %d" % rc)          # raises Failure(what) when false
    env = isolated_env(AWS_ACCESS_KEY_ID="AKIDTEST", AWS_SECRET_ACCESS_KEY=secret)

isolated_env() is this process's environment without any AWS_ variable of the
caller's, with the shared files pointed nowhere and instance metadata off, so a
test sees only the credentials it sets.
"""
import os


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def isolated_env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    e.update(AWS_EC2_METADATA_DISABLED="true", AWS_CONFIG_FILE="/nonexistent",
             AWS_SHARED_CREDENTIALS_FILE="/nonexistent")
    e.update(extra)
    return e
