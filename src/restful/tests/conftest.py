"""What the RESTful server's tests share: the server (src/restful, this folder's parent) on a free
loopback port, run by an event loop in a thread of its own, with test routes in place of Flux's (these
answers come before a route reaches Flux, so Flux is not needed), and plain HTTP clients."""
import asyncio
import base64
import http.client
import json
import os
import socket
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import restful_auth  # noqa: E402
import restful_http  # noqa: E402
import restful_server as server  # noqa: E402

SECRET_KEY = "the-secret-key-of-the-tests-0123456789"
USER, TOKEN = "flux", "the-token-of-flux-0123456789abcdef"
OTHER, OTHER_TOKEN = "peenut", "the-token-of-peenut-0123456789abcd"


class Served:
    """A running server: its port, its HttpServer, and the loop it runs on."""

    def __init__(self, port, http_server, loop):
        self.port = port
        self.http = http_server
        self.loop = loop

    def connections(self):
        return asyncio.run_coroutine_threadsafe(self._count(), self.loop).result(10)

    async def _count(self):
        return len(self.http.connections)


def credentials(tmp_path):
    path = tmp_path / "credentials.json"
    data = {"secretKey": SECRET_KEY, "users": {USER: TOKEN, OTHER: OTHER_TOKEN}, "administrators": [USER]}
    path.write_text(json.dumps(data))
    return restful_auth.Credentials.read_once(str(path))


def echo(h, params, caller):
    return 200, params


def whoami(h, params, caller):
    return 200, {"user": caller.name, "admin": caller.admin}


def pieces(h, params, caller):
    """A stream of `count` pieces of `size` bytes (forever without count), `pause` s apart."""
    count = int(params.get("count", 0)) or None
    size = int(params.get("size", 10))
    pause = float(params.get("pause", 0))

    def produce(stopped, emit):
        sent = 0
        while not stopped.is_set() and (count is None or sent < count):
            emit("x" * size)
            sent += 1
            stopped.wait(pause)

    return restful_http.Stream(produce)


@pytest.fixture
def api(tmp_path, monkeypatch):
    """A server with the users flux (an administrator) and peenut, and test routes: whoami, echo
    (POST: the parameters) and pieces (a stream)."""
    monkeypatch.setattr(server, "handle", lambda: None)
    monkeypatch.setitem(server.ROUTES, ("GET", ("whoami",)), whoami)
    monkeypatch.setitem(server.ROUTES, ("POST", ("echo",)), echo)
    monkeypatch.setitem(server.ROUTES, ("GET", ("pieces",)), pieces)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-loop", daemon=True)
    thread.start()
    app = server.Api(credentials(tmp_path))
    http_server = restful_http.HttpServer(app)
    port = asyncio.run_coroutine_threadsafe(http_server.start("127.0.0.1", 0), loop).result(10)
    served = Served(port, http_server, loop)
    # The server's own key for access tokens, for tests of what it checks in one.
    served.access_key = app.credentials.access_key
    yield served
    asyncio.run_coroutine_threadsafe(http_server.close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()
    app.pool.shutdown(wait=True)


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


def raw(port, data, timeout=10):
    """What the server answers to these bytes (the client's side then closed), read until it closes
    the connection (or timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def read_all(sock):
    answer = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            return answer
        if not chunk:
            return answer
        answer += chunk


def status_of(answer):
    """The status and JSON body of a raw answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body) if body else None


def server_threads():
    """The names of the threads the server made (its Flux pool and its streams)."""
    return sorted(thread.name for thread in threading.enumerate() if thread.name.startswith("flux-restful"))


def settle(condition, seconds=5.0):
    """Waits until condition() holds; its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)
