"""Unit tests of restful_auth.py: tokens, the credentials file read once, administrators, and the
server's privacy from the jobs (non-dumpable: a process of its own uid cannot read its /proc files)."""
import json
import os
import subprocess
import sys
import time

from conftest import OTHER, SECRET_KEY, TOKEN, USER, restful_auth


def later(seconds=600):
    return int(time.time()) + seconds


def test_jwt_round_trip():
    token = restful_auth.jwt_encode({"sub": USER, "exp": later()}, SECRET_KEY)
    assert restful_auth.jwt_decode(token, SECRET_KEY)["sub"] == USER
    assert restful_auth.jwt_decode(token, "another-key") is None
    assert restful_auth.jwt_decode("not.a.token", SECRET_KEY) is None
    assert restful_auth.jwt_decode("", SECRET_KEY) is None
    # A header nested past Python's recursion limit is no token, not a crash.
    deep = restful_auth.b64url_encode(b"[" * 100000)
    assert restful_auth.jwt_decode(f"{deep}.{deep}.{deep}", SECRET_KEY) is None


def test_credentials_are_read_once_and_their_file_removed(tmp_path):
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"secretKey": SECRET_KEY, "users": {USER: TOKEN, OTHER: "x"}, "administrators": [USER]}))
    credentials = restful_auth.Credentials.read_once(str(path))
    assert not path.exists()
    assert credentials.check(USER, TOKEN) and not credentials.check(USER, "x") and not credentials.check("nobody", "")
    assert (credentials.caller(USER).admin, credentials.caller(OTHER).admin) == (True, False)


def test_credentials_without_administrators_make_none(tmp_path):
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"secretKey": SECRET_KEY, "users": {USER: TOKEN}}))
    assert restful_auth.Credentials.read_once(str(path)).caller(USER).admin is False


# A process that makes itself private, says so, then waits for its stdin to close. Run as
# `nobody` when the tests run as root (root reads any process), as the tests' own user otherwise.
PRIVATE = """
import sys
sys.path.insert(0, sys.argv[1])
import restful_auth
if sys.argv[2] == "private":
    restful_auth.stay_private()
print("ready", flush=True)
sys.stdin.read()
"""


def peek(pid, uid):
    """What a process of uid gets from reading the target's environment and memory map."""
    script = (
        "import os, sys\n"
        f"os.setgid({uid}) if os.getuid() == 0 else None\n"
        f"os.setuid({uid}) if os.getuid() == 0 else None\n"
        "for name in ('environ', 'maps'):\n"
        "    try:\n"
        f"        open('/proc/{pid}/' + name, 'rb').read()\n"
        "        print(name, 'read')\n"
        "    except PermissionError:\n"
        "        print(name, 'denied')\n"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()


def run_private(mode, uid):
    def drop():
        if os.getuid() == 0:
            os.setgid(uid)
            os.setuid(uid)

    scripts = os.path.dirname(restful_auth.__file__)
    child = subprocess.Popen(
        [sys.executable, "-c", PRIVATE, scripts, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=drop,
    )
    assert child.stdout.readline().strip() == "ready"
    try:
        return peek(child.pid, uid)
    finally:
        child.stdin.close()
        child.wait(10)


def test_a_private_process_is_closed_to_its_own_uid():
    uid = 65534 if os.getuid() == 0 else os.getuid()
    # Without it, another process of the same uid (a job) reads it; with it, not.
    assert run_private("open", uid) == ["environ", "read", "maps", "read"]
    assert run_private("private", uid) == ["environ", "denied", "maps", "denied"]
