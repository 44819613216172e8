"""Unit tests of the RESTful server's application (src/restful/restful_server.py): who may call
it (Basic credentials, bearer tokens, the token handshake), administrators, and which jobs a user
sees, served over real HTTP on a loopback port (see conftest.py). Run with `npm run test:python`."""
import hashlib
import hmac
import json
import sys
import time

from conftest import OTHER, OTHER_TOKEN, SECRET_KEY, TOKEN, USER, basic, request, restful_auth, server

UNAUTHORIZED = (401, {"Message": "Incorrect user or token."})


def signed(header, claims, key=SECRET_KEY):
    """A JWT with this header and claims, signed with HMAC-SHA256 and key, whatever the header says."""
    head = restful_auth.b64url_encode(json.dumps(header).encode())
    payload = restful_auth.b64url_encode(json.dumps(claims).encode())
    signature = hmac.new(key.encode(), f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{restful_auth.b64url_encode(signature)}"


def access_token(claims, key=SECRET_KEY):
    return signed({"alg": "HS256", "typ": "JWT"}, claims, key)


def logged_in(api, user, token):
    """An access token got as flux-restful-client gets one: a login signed with the shared key."""
    login = access_token({"user": user, "pass": token, "scope": "token"})
    status, body, _ = request(api.port, "POST", "/v1/token", {"Authorization": "Bearer " + login})
    assert status == 200, body
    return body["access_token"]


def later(seconds=600):
    return int(time.time()) + seconds


def answer(api, authorization, header="Authorization"):
    status, body, _ = request(api.port, "GET", "/v1/whoami", {header: authorization} if authorization else {})
    return status, body


def test_right_credentials_reach_the_route(api):
    assert answer(api, basic(USER, TOKEN)) == (200, {"user": USER, "admin": True})
    assert answer(api, basic(OTHER, OTHER_TOKEN)) == (200, {"user": OTHER, "admin": False})
    # Through the API server's service proxy, which consumes the Authorization header itself.
    assert answer(api, basic(USER, TOKEN), server.PROXY_AUTHORIZATION) == (200, {"user": USER, "admin": True})
    bearer = "Bearer " + logged_in(api, OTHER, OTHER_TOKEN)
    assert answer(api, bearer) == (200, {"user": OTHER, "admin": False})


def test_the_shared_key_mints_no_access_token(api):
    # OTHER has the shared key (every API user does) and signs access tokens for anyone: refused.
    for user in (USER, OTHER, "flux"):
        assert answer(api, "Bearer " + access_token({"sub": user, "exp": later()})) == UNAUTHORIZED
    # A token from the server for OTHER is OTHER's, whatever else the claims could say.
    token = logged_in(api, OTHER, OTHER_TOKEN)
    head, payload, signature = token.split(".")
    forged = restful_auth.b64url_encode(json.dumps({"sub": USER, "exp": later()}).encode())
    assert answer(api, f"Bearer {head}.{forged}.{signature}") == UNAUTHORIZED
    assert answer(api, "Bearer " + token) == (200, {"user": OTHER, "admin": False})


def test_missing_credentials(api):
    status, body, headers = request(api.port, "GET", "/v1/whoami")
    assert (status, body) == UNAUTHORIZED
    assert headers["WWW-Authenticate"] == 'Bearer realm="flux-restful"'


def test_wrong_credentials(api):
    assert answer(api, basic(USER, "not-the-token")) == UNAUTHORIZED
    assert answer(api, basic(USER, OTHER_TOKEN)) == UNAUTHORIZED
    assert answer(api, basic("nobody", TOKEN)) == UNAUTHORIZED
    assert answer(api, basic(USER, "")) == UNAUTHORIZED
    assert answer(api, "Basic not-base64!") == UNAUTHORIZED
    assert answer(api, f"Token {TOKEN}") == UNAUTHORIZED


def test_bad_signature(api):
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later()}, key="another-key")) == UNAUTHORIZED
    token = logged_in(api, USER, TOKEN)
    assert answer(api, "Bearer " + token[:-2] + ("AA" if not token.endswith("AA") else "BB")) == UNAUTHORIZED
    assert answer(api, "Bearer " + token.rsplit(".", 1)[0]) == UNAUTHORIZED


def test_wrong_alg(api):
    claims = {"sub": USER, "exp": later()}
    # Signed with the right key, but the header names another algorithm: refused, not trusted.
    assert answer(api, "Bearer " + signed({"alg": "HS512", "typ": "JWT"}, claims)) == UNAUTHORIZED
    unsigned = signed({"alg": "none", "typ": "JWT"}, claims).rsplit(".", 1)[0] + "."
    assert answer(api, "Bearer " + unsigned) == UNAUTHORIZED


def test_expired_token(api):
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later()}, api.access_key))[0] == 200
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later(-1)}, api.access_key)) == UNAUTHORIZED
    # An access token always expires: one without exp is refused.
    assert answer(api, "Bearer " + access_token({"sub": USER}, api.access_key)) == UNAUTHORIZED


def test_access_token_of_an_unknown_user(api):
    assert answer(api, "Bearer " + access_token({"sub": "nobody", "exp": later()}, api.access_key)) == UNAUTHORIZED
    assert answer(api, "Bearer " + access_token({"sub": ["flux"], "exp": later()}, api.access_key)) == UNAUTHORIZED


def test_token_request(api):
    def ask(claims, key=SECRET_KEY):
        headers = {"Authorization": "Bearer " + access_token(claims, key)}
        status, body, _ = request(api.port, "POST", "/v1/token", headers)
        return status, body

    status, body = ask({"user": OTHER, "pass": OTHER_TOKEN, "scope": "token"})
    assert status == 200 and body["token_type"] == "Bearer"
    # Not signed with the shared key: only the server can read (and sign) it.
    assert restful_auth.jwt_decode(body["access_token"], SECRET_KEY) is None
    claims = json.loads(restful_auth.b64url_decode(body["access_token"].split(".")[1]))
    assert claims["sub"] == OTHER
    assert 0 < claims["exp"] - time.time() <= restful_auth.ACCESS_TOKEN_SECONDS
    assert answer(api, "Bearer " + body["access_token"]) == (200, {"user": OTHER, "admin": False})
    # Denied with 400, not 401 (a client answers a 401 by asking for a token again).
    denied = (400, {"Message": "Denied"})
    assert ask({"user": OTHER, "pass": TOKEN, "scope": "token"}) == denied
    assert ask({"user": OTHER, "pass": OTHER_TOKEN, "scope": "token"}, key="another-key") == denied
    assert ask({"user": OTHER, "pass": OTHER_TOKEN, "scope": "token", "exp": later(-1)}) == denied
    assert ask({"user": OTHER, "pass": OTHER_TOKEN}) == denied
    # A token request is not an access token.
    assert answer(api, "Bearer " + access_token({"sub": USER, "exp": later(), "scope": "token"})) == UNAUTHORIZED
    claims = {"sub": USER, "exp": later(), "scope": "token"}
    assert answer(api, "Bearer " + access_token(claims, api.access_key)) == UNAUTHORIZED


def test_parameters_from_the_query_and_the_body(api):
    headers = {"Authorization": basic(OTHER, OTHER_TOKEN), "Content-Type": "application/json"}
    status, body, _ = request(api.port, "POST", "/v1/echo?a=1&b=2", headers, json.dumps({"b": "3", "c": None}))
    assert (status, body) == (200, {"a": "1", "b": "3"})
    form = {"Authorization": basic(OTHER, OTHER_TOKEN), "Content-Type": "application/x-www-form-urlencoded"}
    assert request(api.port, "POST", "/v1/echo", form, "command=hostname&num_tasks=2")[:2] == (
        200,
        {"command": "hostname", "num_tasks": "2"},
    )


def test_who_sees_which_job():
    owners = {1: USER, 2: OTHER, 3: None, 4: OTHER}
    admin, user = restful_auth.Caller(USER, True), restful_auth.Caller(OTHER, False)
    assert server.visible_ids(owners, admin, [4, 3, 2, 1]) == [4, 3, 2, 1]
    # A user sees the jobs they submitted, not another user's nor one submitted outside the API.
    assert server.visible_ids(owners, user, [4, 3, 2, 1]) == [4, 2]
    assert server.visible_ids(owners, restful_auth.Caller("carol", False), [4, 3, 2, 1]) == []


def test_the_owner_of_a_jobspec():
    assert server.job_owner({"attributes": {"system": {"user": OTHER}}}) == OTHER
    assert server.job_owner({"attributes": {"system": {}}}) is None
    assert server.job_owner({"attributes": {"system": {"user": 1000}}}) is None
    assert server.job_owner(None) is None


def test_owners_are_remembered_up_to_a_bound():
    owners = server.Owners(size=3)
    for jobid in range(5):
        owners.remember(jobid, f"user-{jobid}")
    # Known ones are answered without asking Flux (h None would fail): only the newest 3 are kept.
    assert owners.of(None, [2, 3, 4]) == {2: "user-2", 3: "user-3", 4: "user-4"}
    assert list(owners.known) == [2, 3, 4]


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
    handle = server.handle()
    assert isinstance(handle, server.flux.Flux)
    # One handle per thread, kept.
    assert server.handle() is handle
