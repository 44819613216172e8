"""Unit tests of the RESTful server (src/flux/scripts/restful_server.py): its credentials, tokens and
request limits, served over real HTTP on a loopback port. Flux is not needed: these answers come
before a route reaches Flux, and the routes that pass are test routes (run with `npm run test:python`).
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import sys
import threading
import time
from http.server import ThreadingHTTPServer

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src", "flux", "scripts"))
import restful_server as server  # noqa: E402

SECRET_KEY = "the-secret-key"
USER, TOKEN = "flux", "the-token"
UNAUTHORIZED = (401, {"Message": "Incorrect user or token."})


@pytest.fixture
def api(tmp_path, monkeypatch):
    """A server on a free loopback port with one user, and a route that says who asked."""
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"secretKey": SECRET_KEY, "users": {USER: TOKEN}}))
    monkeypatch.setattr(server, "handle", lambda: None)
    monkeypatch.setitem(server.ROUTES, ("GET", ("whoami",)), lambda h, params, user: (200, {"user": user}))
    monkeypatch.setitem(server.ROUTES, ("POST", ("echo",)), lambda h, params, user: (200, params))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), server.Handler)
    httpd.daemon_threads = True
    httpd.credentials = server.Credentials(str(path))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def request(port, method, path, headers=None, body=None):
    """(status, JSON body, headers) of one request."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, json.loads(response.read()), dict(response.getheaders())
    finally:
        connection.close()


def basic(user, token):
    return "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()


def signed(header, claims, key=SECRET_KEY):
    """A JWT with this header and claims, signed with HMAC-SHA256 and key, whatever the header says."""
    head = server.b64url_encode(json.dumps(header).encode())
    payload = server.b64url_encode(json.dumps(claims).encode())
    signature = hmac.new(key.encode(), f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{server.b64url_encode(signature)}"


def access_token(claims, key=SECRET_KEY):
    return signed({"alg": "HS256", "typ": "JWT"}, claims, key)


def later(seconds=600):
    return int(time.time()) + seconds


def answer(port, authorization, header="Authorization"):
    status, body, _ = request(port, "GET", "/v1/whoami", {header: authorization} if authorization else {})
    return status, body


def test_right_credentials_reach_the_route(api):
    assert answer(api, basic(USER, TOKEN)) == (200, {"user": USER})
    # Through the API server's service proxy, which consumes the Authorization header itself.
    assert answer(api, basic(USER, TOKEN), server.PROXY_AUTHORIZATION) == (200, {"user": USER})
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later()})) == (200, {"user": USER})


def test_missing_credentials(api):
    status, body, headers = request(api, "GET", "/v1/whoami")
    assert (status, body) == UNAUTHORIZED
    assert headers["WWW-Authenticate"] == 'Bearer realm="flux-restful"'


def test_wrong_credentials(api):
    assert answer(api, basic(USER, "not-the-token")) == UNAUTHORIZED
    assert answer(api, basic("nobody", TOKEN)) == UNAUTHORIZED
    assert answer(api, basic(USER, "")) == UNAUTHORIZED
    assert answer(api, "Basic not-base64!") == UNAUTHORIZED
    assert answer(api, f"Token {TOKEN}") == UNAUTHORIZED


def test_bad_signature(api):
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later()}, key="another-key")) == UNAUTHORIZED
    token = access_token({"sub": USER, "exp": later()})
    assert answer(api, "Bearer " + token[:-2] + ("AA" if not token.endswith("AA") else "BB")) == UNAUTHORIZED
    assert answer(api, "Bearer " + token.rsplit(".", 1)[0]) == UNAUTHORIZED


def test_wrong_alg(api):
    claims = {"sub": USER, "exp": later()}
    # Signed with the right key, but the header names another algorithm: refused, not trusted.
    assert answer(api, "Bearer " + signed({"alg": "HS512", "typ": "JWT"}, claims)) == UNAUTHORIZED
    unsigned = signed({"alg": "none", "typ": "JWT"}, claims).rsplit(".", 1)[0] + "."
    assert answer(api, "Bearer " + unsigned) == UNAUTHORIZED


def test_expired_token(api):
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later(-1)})) == UNAUTHORIZED
    # An access token always expires: one without exp is refused.
    assert answer(api, "Bearer " + access_token({"sub": USER})) == UNAUTHORIZED


def test_access_token_of_an_unknown_user(api):
    assert answer(api, "Bearer " + access_token({"sub": "nobody", "exp": later()})) == UNAUTHORIZED


def test_token_request(api):
    def ask(claims, key=SECRET_KEY):
        status, body, _ = request(api, "POST", "/v1/token", {"Authorization": "Bearer " + access_token(claims, key)})
        return status, body

    status, body = ask({"user": USER, "pass": TOKEN, "scope": "token"})
    assert status == 200 and body["token_type"] == "Bearer"
    claims = server.jwt_decode(body["access_token"], SECRET_KEY)
    assert claims["sub"] == USER
    assert 0 < claims["exp"] - time.time() <= server.ACCESS_TOKEN_SECONDS
    assert answer(api, "Bearer " + body["access_token"]) == (200, {"user": USER})
    # Denied with 400, not 401 (a client answers a 401 by asking for a token again).
    denied = (400, {"Message": "Denied"})
    assert ask({"user": USER, "pass": "not-the-token", "scope": "token"}) == denied
    assert ask({"user": USER, "pass": TOKEN, "scope": "token"}, key="another-key") == denied
    assert ask({"user": USER, "pass": TOKEN, "scope": "token", "exp": later(-1)}) == denied
    assert ask({"user": USER, "pass": TOKEN}) == denied
    # A token request is not an access token.
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later(), "scope": "token"})) == UNAUTHORIZED


def test_oversized_body(api):
    limit = server.MAX_BODY_BYTES
    assert limit == 1024 * 1024
    headers = {"Authorization": basic(USER, TOKEN), "Content-Type": "application/json"}
    # Refused from its Content-Length, before it is read (or the credentials checked).
    connection = http.client.HTTPConnection("127.0.0.1", api, timeout=10)
    try:
        connection.putrequest("POST", "/v1/echo")
        connection.putheader("Content-Length", str(limit + 1))
        connection.endheaders()
        response = connection.getresponse()
        assert (response.status, json.loads(response.read())) == (
            413,
            {"Message": "The request body is larger than 1048576 bytes."},
        )
        assert response.getheader("Connection") == "close"
    finally:
        connection.close()
    # The largest body taken.
    body = json.dumps({"a": ""}).encode()
    body = json.dumps({"a": "x" * (limit - len(body))}).encode()
    assert len(body) == limit
    status, echoed, _ = request(api, "POST", "/v1/echo", headers, body)
    assert status == 200 and len(echoed["a"]) == limit - len(b'{"a": ""}')


def test_jwt_round_trip():
    token = server.jwt_encode({"sub": USER, "exp": later()}, SECRET_KEY)
    assert server.jwt_decode(token, SECRET_KEY)["sub"] == USER
    assert server.jwt_decode(token, "another-key") is None
    assert server.jwt_decode("not.a.token", SECRET_KEY) is None
    assert server.jwt_decode("", SECRET_KEY) is None


def test_flux_is_imported_by_main_only(tmp_path, monkeypatch):
    # The module imports without Flux (as here); main() imports the bindings before it serves.
    assert server.flux is None
    package = tmp_path / "flux"
    (package / "resource").mkdir(parents=True)
    (package / "__init__.py").write_text("class Flux:\n    pass\n")
    (package / "job.py").write_text("")
    (package / "resource" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("flux", "flux.job", "flux.resource"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(server, "flux", None)
    server.import_flux()
    assert server.flux.__file__ == str(package / "__init__.py")
    assert server.flux.job.__name__ == "flux.job"
    assert server.flux.resource.__name__ == "flux.resource"
    assert isinstance(server.handle(), server.flux.Flux)
