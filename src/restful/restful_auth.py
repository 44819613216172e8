# Who may use the RESTful server (restful-server.py): its users and their tokens, the bearer tokens
# of flux-restful-client's handshake (a login, an HS256 JWT signed with the MiniCluster's shared secret
# key that carries the user's own token; the access token it gets back, signed with a key only this
# process holds), and the process's own privacy: the jobs run as the same user as the server, so the server makes itself
# non-dumpable before it reads the credentials, and removes their file once read (docs/security.md).
#
# Written for the Flux Operator; shipped beside restful-server.py in the MiniCluster's ConfigMap, as
# restful_auth.py. Standard library only. Its tests are src/restful/tests/test_restful_auth.py.
import base64
import hashlib
import hmac
import json
import os
import time

ACCESS_TOKEN_SECONDS = 10 * 3600

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def jwt_encode(claims, key):
    header = b64url_encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url_encode(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode("ascii")
    signature = hmac.new(key.encode(), signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url_encode(signature)}"


def jwt_decode(token, key):
    """The claims of an HS256 token signed with key, or None."""
    try:
        header, payload, signature = token.split(".")
        if json.loads(b64url_decode(header)).get("alg") != "HS256":
            return None
        expected = hmac.new(key.encode(), f"{header}.{payload}".encode("ascii"), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, b64url_decode(signature)):
            return None
        claims = json.loads(b64url_decode(payload))
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    if not isinstance(claims, dict):
        return None
    expires = claims.get("exp")
    if expires is not None and (not isinstance(expires, (int, float)) or expires < time.time()):
        return None
    return claims


class Caller:
    """Who sent a request: an API user, and whether the MiniCluster made them an administrator
    (who sees and cancels every job; the others only their own)."""

    def __init__(self, name, admin):
        self.name = name
        self.admin = admin

    def __repr__(self):
        return f"Caller({self.name!r}, admin={self.admin})"


class Credentials:
    def __init__(self, data):
        # The shared key: every API user (flux-restful-client) has it, to sign a login. It proves
        # nothing of who signed, so it only ever carries a user's own token to check.
        self.secret_key = data["secretKey"]
        # Signs the access tokens: made here, in this process's memory only (non-dumpable), so no API
        # user can sign one, for anyone. They end with the process: a client logs in again on the 401.
        self.access_key = os.urandom(32).hex()
        self.users = dict(data["users"])
        self.administrators = frozenset(data.get("administrators", ()))

    @classmethod
    def read_once(cls, path):
        """The credentials of the file, which is then removed: from then on only this process, made
        non-dumpable first (stay_private), holds them."""
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        os.unlink(path)
        return cls(data)

    def check(self, user, token):
        expected = self.users.get(user)
        # Compared even for an unknown user, so the time taken does not tell which users exist.
        matches = hmac.compare_digest((expected or "\0").encode(), str(token).encode())
        return expected is not None and matches

    def caller(self, user):
        return Caller(user, user in self.administrators)

    def caller_of(self, authorization):
        """The Caller an Authorization header proves, or None: Basic user:token, or a Bearer access token."""
        scheme, _, value = (authorization or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "basic":
            try:
                user, _, token = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
            except ValueError:
                return None
            return self.caller(user) if self.check(user, token) else None
        if scheme.lower() == "bearer":
            claims = jwt_decode(value, self.access_key)
            if claims is None or claims.get("scope") == "token" or not isinstance(claims.get("exp"), (int, float)):
                return None
            user = claims.get("sub")
            return self.caller(user) if isinstance(user, str) and user in self.users else None
        return None

    def access_token(self, authorization):
        """An access token for a token request (a Bearer JWT of user, pass, scope), or None."""
        scheme, _, value = (authorization or "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        claims = jwt_decode(value.strip(), self.secret_key)
        if claims is None or claims.get("scope") != "token":
            return None
        user = claims.get("user")
        if not isinstance(user, str) or not self.check(user, claims.get("pass", "")):
            return None
        return jwt_encode({"exp": int(time.time()) + ACCESS_TOKEN_SECONDS, "sub": user}, self.access_key)


def stay_private():
    """Makes this process non-dumpable: processes of its uid (the jobs, in a single-user instance)
    can no longer read its memory, environment or file descriptors under /proc, nor trace it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 or libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed: the server will not serve")
