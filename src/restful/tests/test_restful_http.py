"""The RESTful server's HTTP side (src/restful/restful_http.py) against hostile clients, over
real sockets on loopback: malformed requests, huge heads and bodies, bodies of strangers, invalid
JSON, path traversal, slow senders and slow readers, floods of connections. Each gets one clear
status (or, sending nothing, a closed connection), the server keeps answering, and no thread is
left behind (see conftest.py for the server)."""
import json
import socket
import time

import pytest

from conftest import (
    OTHER,
    OTHER_TOKEN,
    basic,
    raw,
    read_all,
    request,
    restful_http,
    server,
    server_threads,
    settle,
    status_of,
)

AUTH = basic(OTHER, OTHER_TOKEN)


def post(path, body, headers=""):
    data = body if isinstance(body, bytes) else body.encode()
    head = f"POST {path} HTTP/1.1\r\nHost: t\r\nAuthorization: {AUTH}\r\nContent-Length: {len(data)}\r\n{headers}\r\n"
    return head.encode() + data


def alive(api):
    """The server still answers a well-formed request."""
    return request(api.port, "GET", "/v1/whoami", {"Authorization": AUTH})[:2] == (200, {"user": OTHER, "admin": False})


@pytest.mark.parametrize(
    "data, status, message",
    [
        (b"GARBAGE\r\n\r\n", 400, "The request line is not METHOD TARGET HTTP/VERSION."),
        (b"GET /v1/whoami\r\n\r\n", 400, "The request line is not METHOD TARGET HTTP/VERSION."),
        (b"GET  /v1 HTTP/1.1\r\n\r\n", 400, "The request line is not METHOD TARGET HTTP/VERSION."),
        (b"G(T /v1 HTTP/1.1\r\n\r\n", 400, "The request line is not METHOD TARGET HTTP/VERSION."),
        (b"GET /v1 HTTP/2.0\r\n\r\n", 505, "HTTP/2.0 is not supported: use HTTP/1.1."),
        (b"GET http://elsewhere/v1 HTTP/1.1\r\n\r\n", 400, "The request target must be a path (starting with /)."),
        (b"GET /v1/\x01 HTTP/1.1\r\n\r\n", 400, "The request target has characters a URL cannot have."),
        (b"GET /v1/\xff HTTP/1.1\r\n\r\n", 400, "The request target has characters a URL cannot have."),
        (b"GET /v1 HTTP/1.1\r\nno colon here\r\n\r\n", 400, "The header line 'no colon here' is not NAME: VALUE."),
        (b"GET /v1 HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, "The header line 'Bad Name: x' is not NAME: VALUE."),
        (b"GET /v1 HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, "Folded header lines are not accepted."),
        (b"GET /v1 HTTP/1.1\r\nA: b\x00c\r\n\r\n", 400, "The header A has control characters."),
        (b"GET /v1 HTTP/1.1\r\nA: b", 400, "The connection ended inside the request headers."),
        (b"GET /v1 HTT", 400, "The connection ended inside the request line."),
        (b"DELETE /v1/jobs/1 HTTP/1.1\r\n\r\n", 501, "The method DELETE is not supported: use GET or POST."),
        (b"GET /v1/../../etc/passwd HTTP/1.1\r\n\r\n", 404, "There is no route GET /v1/../../etc/passwd."),
        (b"GET /etc/passwd HTTP/1.1\r\n\r\n", 404, "There is no route /etc/passwd."),
        (b"GET /v1/jobs/../nodes HTTP/1.1\r\n\r\n", 404, "There is no route GET /v1/jobs/../nodes."),
        (b"GET /v1/%2e%2e/%2e%2e/etc HTTP/1.1\r\n\r\n", 404, "There is no route GET /v1/%2e%2e/%2e%2e/etc."),
    ],
)
def test_malformed_requests_get_one_clear_status(api, data, status, message):
    assert alive(api)
    before = server_threads()
    answer = raw(api.port, data)
    assert status_of(answer) == (status, {"Message": message})
    # What cannot be read as a request ends its connection; a request refused keeps it.
    assert (b"Connection: close" in answer) == (status not in (404, 501))
    assert alive(api)
    assert server_threads() == before


def test_the_shutdown_half_of_a_request_still_gets_its_answer(api):
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(b"GET /v1 HTTP/1.1\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        assert status_of(read_all(sock)) == (200, {"Message": "Flux RESTful API", "api": "v1"})


def test_huge_heads_are_refused_before_they_are_read_whole(api):
    line = b"GET /v1/" + b"a" * restful_http.MAX_REQUEST_LINE_BYTES + b" HTTP/1.1\r\n\r\n"
    assert status_of(raw(api.port, line)) == (414, {"Message": "The request line is longer than 8192 bytes."})
    # One huge header, sent without end: answered once the limit is passed, not when it ends.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(b"GET /v1 HTTP/1.1\r\nX-Big: " + b"b" * (restful_http.MAX_HEAD_BYTES + 1))
        assert status_of(read_all(sock)) == (431, {"Message": "The request head is longer than 32768 bytes."})
    many = b"GET /v1 HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % n for n in range(restful_http.MAX_HEADERS + 1)) + b"\r\n"
    assert status_of(raw(api.port, many)) == (431, {"Message": "The request has more than 100 headers."})
    # Within the limits: answered.
    fits = b"GET /v1 HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % n for n in range(restful_http.MAX_HEADERS)) + b"\r\n"
    assert status_of(raw(api.port, fits))[0] == 200


def test_credentials_come_before_the_body(api):
    # A stranger's body is never read: 401 at once, though the body announced never comes.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(b"POST /v1/echo HTTP/1.1\r\nContent-Length: 1000\r\nContent-Type: application/json\r\n\r\n")
        started = time.monotonic()
        answer = read_all(sock)
        assert status_of(answer) == (401, {"Message": "Incorrect user or token."})
        assert time.monotonic() - started < 1
    # A body over the limit: 413 from its Content-Length, unread, for a known user too.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        length = restful_http.MAX_BODY_BYTES + 1
        sock.sendall(f"POST /v1/echo HTTP/1.1\r\nAuthorization: {AUTH}\r\nContent-Length: {length}\r\n\r\n".encode())
        assert status_of(read_all(sock)) == (413, {"Message": "The request body is larger than 1048576 bytes."})


def test_the_largest_body_taken(api):
    body = json.dumps({"a": ""}).encode()
    body = json.dumps({"a": "x" * (restful_http.MAX_BODY_BYTES - len(body))}).encode()
    assert len(body) == restful_http.MAX_BODY_BYTES
    headers = {"Authorization": AUTH, "Content-Type": "application/json"}
    status, echoed, _ = request(api.port, "POST", "/v1/echo", headers, body)
    assert status == 200 and len(echoed["a"]) == restful_http.MAX_BODY_BYTES - len(b'{"a": ""}')


@pytest.mark.parametrize(
    "body, headers, status, message",
    [
        ("{not json", "", 400, "The request body is not JSON."),
        ("[1, 2]", "", 400, "The request body must be a JSON object."),
        ("[" * 100000, "", 400, "The request body is not JSON."),
        (b"a=\xff", "Content-Type: application/x-www-form-urlencoded\r\n", 400, "The form body is not UTF-8."),
        ('{"envars": "{bad"}', "", 200, None),
    ],
)
def test_invalid_bodies(api, body, headers, status, message):
    answer = status_of(raw(api.port, post("/v1/echo", body, headers)))
    assert answer[0] == status
    if message is not None:
        assert answer[1] == {"Message": message}
    assert alive(api)


def test_bodies_framed_otherwise_are_refused(api):
    chunked = b"POST /v1/echo HTTP/1.1\r\nAuthorization: " + AUTH.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert status_of(raw(api.port, chunked + b"5\r\nhello\r\n0\r\n\r\n")) == (
        411,
        {"Message": "A request body must come with a Content-Length (no Transfer-Encoding)."},
    )
    twice = post("/v1/echo", "{}", "Content-Length: 3\r\n")
    assert status_of(raw(api.port, twice)) == (400, {"Message": "The Content-Length header is not one number."})
    signed = b"POST /v1/echo HTTP/1.1\r\nAuthorization: " + AUTH.encode() + b"\r\nContent-Length: -1\r\n\r\n"
    assert status_of(raw(api.port, signed)) == (400, {"Message": "The Content-Length header is not one number."})
    expect = post("/v1/echo", "{}", "Expect: something-else\r\n")
    assert status_of(raw(api.port, expect)) == (417, {"Message": "Expect: something-else is not supported."})


def test_too_many_query_parameters(api):
    query = "&".join(f"p{n}=1" for n in range(restful_http.MAX_QUERY_FIELDS + 1))
    status, body = status_of(raw(api.port, post(f"/v1/echo?{query}", "")))
    assert status == 400 and body["Message"].startswith("The parameters cannot be read: ")


def test_expect_100_continue(api):
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        head = post("/v1/echo", b"", "Expect: 100-continue\r\nContent-Type: application/json\r\n")
        sock.sendall(head.replace(b"Content-Length: 0", b"Content-Length: 8"))
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b'{"a": 1}')
        sock.shutdown(socket.SHUT_WR)
        assert status_of(read_all(sock)) == (200, {"a": 1})


def test_one_connection_carries_several_requests(api):
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(post("/v1/echo", '{"n": 1}') + post("/v1/echo", '{"n": 2}', "Connection: close\r\n"))
        answers = read_all(sock).split(b"HTTP/1.1 ")[1:]
    assert [status_of(b"HTTP/1.1 " + answer) for answer in answers] == [(200, {"n": 1}), (200, {"n": 2})]
    assert b"Keep-Alive: timeout=5" in answers[0]


def test_slow_and_idle_connections_are_closed(api, monkeypatch):
    monkeypatch.setattr(restful_http, "HEAD_SECONDS", 0.5)
    monkeypatch.setattr(restful_http, "BODY_SECONDS", 0.5)
    # Slow: a head begun, never finished. 408, then closed.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(b"GET /v1 HTTP/1.1\r\nX-Slow: ")
        started = time.monotonic()
        assert status_of(read_all(sock)) == (408, {"Message": "The request head did not arrive within 0.5 s."})
        assert 0.4 < time.monotonic() - started < 3
    # Idle: nothing sent. Closed, without a word.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        assert read_all(sock) == b""
    # A body announced and not sent in time: 408.
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(post("/v1/echo", b"").replace(b"Content-Length: 0", b"Content-Length: 10") + b"{")
        assert status_of(read_all(sock)) == (408, {"Message": "The request body did not arrive within 0.5 s."})
    assert settle(lambda: api.connections() == 0)


def read_stream(sock):
    head, _, rest = read_all(sock).partition(b"\r\n\r\n")
    return head, rest


def test_streams(api):
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(f"GET /v1/pieces?count=3&size=4 HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
        head, body = read_stream(sock)
    assert b"Transfer-Encoding: chunked" in head
    assert body == b"4\r\nxxxx\r\n" * 3 + b"0\r\n\r\n"
    assert settle(lambda: server_threads().count("flux-restful-stream") == 0)


def test_a_slow_reader_is_dropped_and_its_thread_ends(api, monkeypatch):
    monkeypatch.setattr(restful_http, "WRITE_SECONDS", 0.5)
    assert alive(api)
    baseline = server_threads()
    sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # An endless stream of 64 KiB pieces that the client never reads.
    sock.sendall(f"GET /v1/pieces?size=65536 HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
    assert settle(lambda: "flux-restful-stream" in server_threads())
    try:
        assert settle(lambda: api.connections() == 0, seconds=10)
        assert settle(lambda: server_threads() == baseline, seconds=5), server_threads()
        assert alive(api)
    finally:
        sock.close()


def test_a_stream_waits_for_its_slow_reader(api, monkeypatch):
    # A thread that makes 64 KiB pieces without pause, for a client that reads none: what the server
    # makes meanwhile is bounded by the pieces it may hold ahead, not by how fast the thread runs.
    monkeypatch.setattr(restful_http, "WRITE_SECONDS", 2.0)
    made = []

    def endless(h, params, caller):
        def produce(stopped, emit):
            while not stopped.is_set():
                emit("x" * 65536)
                made.append(1)

        return restful_http.Stream(produce)

    monkeypatch.setitem(server.ROUTES, ("GET", ("endless",)), endless)
    assert alive(api)
    baseline = server_threads()
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(f"GET /v1/endless HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
        assert settle(lambda: "flux-restful-stream" in server_threads())
        time.sleep(1.0)
        # The socket's buffers and the writer's take some pieces (tens on loopback); the rest wait.
        held = len(made)
        assert held <= restful_http.STREAM_PIECES_AHEAD + 200, held
        assert api.connections() == 1
    assert settle(lambda: server_threads() == baseline, seconds=10), server_threads()
    assert settle(lambda: api.connections() == 0)


def test_a_stream_ends_when_its_client_goes(api):
    assert alive(api)
    baseline = server_threads()
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(f"GET /v1/pieces?pause=0.2 HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 200 OK")
    assert settle(lambda: server_threads() == baseline)
    assert settle(lambda: api.connections() == 0)


def test_streams_are_bounded(api, monkeypatch):
    monkeypatch.setattr(restful_http, "MAX_STREAMS", 2)
    socks = []
    try:
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
            sock.sendall(f"GET /v1/pieces?pause=0.2 HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
            assert sock.recv(100).startswith(b"HTTP/1.1 200 OK")
            socks.append(sock)
        third = raw(api.port, f"GET /v1/pieces HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
        assert status_of(third) == (503, {"Message": "2 streams are followed already: try again later."})
        assert server_threads().count("flux-restful-stream") == 2
    finally:
        for sock in socks:
            sock.close()


def test_a_flood_of_slow_connections_leaves_the_server_answering(api):
    """500 connections that send a head byte by byte, the slowloris way (nearly twice the 256 the
    server keeps): a well-formed request is still answered at once, the oldest slow ones are dropped,
    and no thread is added."""
    request(api.port, "GET", "/v1/whoami", {"Authorization": AUTH})
    baseline = server_threads()
    flood = []
    try:
        for _ in range(500):
            sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
            sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nX-Slow: ")
            flood.append(sock)
        assert settle(lambda: api.connections() <= restful_http.MAX_CONNECTIONS)
        times = []
        for _ in range(5):
            started = time.monotonic()
            assert alive(api)
            times.append(time.monotonic() - started)
        assert max(times) < 1, times
        assert api.connections() <= restful_http.MAX_CONNECTIONS
        assert server_threads() == baseline
    finally:
        for sock in flood:
            sock.close()
    assert settle(lambda: api.connections() == 0)


def test_connections_busy_with_requests_are_not_dropped(api, monkeypatch):
    monkeypatch.setattr(restful_http, "MAX_CONNECTIONS", 2)
    busy = []
    try:
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", api.port), timeout=10)
            sock.sendall(f"GET /v1/pieces?pause=0.2 HTTP/1.1\r\nAuthorization: {AUTH}\r\n\r\n".encode())
            assert sock.recv(100).startswith(b"HTTP/1.1 200 OK")
            busy.append(sock)
        busy_answer = (503, {"Message": "The server is busy: try again."})
        assert status_of(raw(api.port, b"GET /v1 HTTP/1.1\r\n\r\n")) == busy_answer
    finally:
        for sock in busy:
            sock.close()
