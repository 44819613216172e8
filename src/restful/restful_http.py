# The HTTP/1.1 side of the RESTful server (restful-server.py): connections, request heads, bodies,
# answers and streams, within the limits below (docs/restful-api.md, "Limits"). One event loop
# (asyncio) holds every connection: a connection costs no thread, whatever it sends or fails to
# send; only a request that arrived whole reaches the application, which runs its work in threads of
# its own. Standard library only (Python 3.8 and later).
#
# Written for the Flux Operator; shipped beside restful-server.py in the MiniCluster's ConfigMap, as
# restful_http.py. Its tests are src/restful/tests/test_restful_http.py.
import asyncio
import http
import json
import re
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

# A request body larger than this is refused (413) from its Content-Length, unread.
MAX_BODY_BYTES = 1024 * 1024
# The request line, and the request line with every header: beyond them 414 and 431.
MAX_REQUEST_LINE_BYTES = 8 * 1024
MAX_HEAD_BYTES = 32 * 1024
MAX_HEADERS = 100
MAX_QUERY_FIELDS = 256
# Time to send a request's line and headers, counted from the connection's start or the end of the
# answer before (so also how long a connection may stay idle), then to send its body, and for the
# client to take each answer (or each piece of a stream): a connection past one is closed.
HEAD_SECONDS = 10.0
BODY_SECONDS = 30.0
WRITE_SECONDS = 30.0
# What clients are told to keep an idle connection for: less than HEAD_SECONDS, so a client retires
# a connection before the server closes it.
KEEP_ALIVE_SECONDS = 5
# Open connections: one more drops the connection that has waited longest for its request head
# (idle or slow); when every one is busy with a request, the newcomer gets 503.
MAX_CONNECTIONS = 256
# Streams followed at once (a thread each).
MAX_STREAMS = 16
# Pieces of a stream made and not yet sent: beyond them its thread waits for the client. Without a
# bound a client that reads slowly (or not at all, until WRITE_SECONDS) has the server hold whatever
# the thread makes meanwhile, and a thread that makes pieces without pause floods the event loop.
STREAM_PIECES_AHEAD = 32

TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
HTTP_VERSION = re.compile(r"^HTTP/(\d)\.(\d)$")


def log(message):
    print(f"flux-restful: {message}", file=sys.stderr, flush=True)


class HTTPError(Exception):
    """An answer other than the route's: its status, a JSON body with Message, and headers."""

    def __init__(self, status, message, headers=None, extra=None):
        super().__init__(message)
        self.status = status
        self.body = {"Message": message, **(extra or {})}
        self.headers = headers or {}


class HeadError(Exception):
    """A request head refused before anything else is read (the connection closes)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Request:
    def __init__(self, method, target, version, headers):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers  # lower-case name -> [values]
        url = urlsplit(target)
        self.path = url.path
        self.query = url.query
        # Whether what the client sent after the head has been taken (its body, or it has none).
        self.body_read = "transfer-encoding" not in headers and all(
            value.strip() == "0" for value in headers.get("content-length", ())
        )

    def header(self, name):
        values = self.headers.get(name.lower())
        return values[-1] if values else None

    def wants_close(self):
        connection = ",".join(self.headers.get("connection", ())).lower()
        if self.version == (1, 0):
            return "keep-alive" not in connection
        return "close" in connection

    def body_length(self):
        """The body's length from Content-Length (0 without one); a body framed otherwise is refused."""
        if "transfer-encoding" in self.headers:
            raise HTTPError(411, "A request body must come with a Content-Length (no Transfer-Encoding).")
        lengths = {value.strip() for value in self.headers.get("content-length", ())}
        if not lengths:
            return 0
        length = next(iter(lengths))
        if len(lengths) > 1 or not (length.isascii() and length.isdigit()):
            raise HTTPError(400, "The Content-Length header is not one number.")
        return int(length)


def parse_request_line(line):
    parts = line.decode("latin-1").rstrip("\r\n").split(" ")
    version = HTTP_VERSION.match(parts[2]) if len(parts) == 3 else None
    if not version or not all(parts) or not TOKEN.match(parts[0]):
        raise HeadError(400, "The request line is not METHOD TARGET HTTP/VERSION.")
    method, target, version_text = parts
    if version.group(1) != "1":
        raise HeadError(505, f"{version_text} is not supported: use HTTP/1.1.")
    if not target.startswith("/"):
        raise HeadError(400, "The request target must be a path (starting with /).")
    if any(ord(character) < 0x21 or ord(character) > 0x7E for character in target):
        raise HeadError(400, "The request target has characters a URL cannot have.")
    return method, target, (1, int(version.group(2)))


def parse_header(line, headers):
    text = line.decode("latin-1").rstrip("\r\n")
    if text[:1] in (" ", "\t"):
        raise HeadError(400, "Folded header lines are not accepted.")
    name, colon, value = text.partition(":")
    if not colon or not TOKEN.match(name):
        raise HeadError(400, f"The header line {text[:64]!r} is not NAME: VALUE.")
    if any((ord(character) < 0x20 and character != "\t") or ord(character) == 0x7F for character in value):
        raise HeadError(400, f"The header {name} has control characters.")
    headers.setdefault(name.lower(), []).append(value.strip(" \t"))


def query_params(query):
    """The parameters of a query string (or a form): the last value of each name."""
    try:
        fields = parse_qs(query, keep_blank_values=True, max_num_fields=MAX_QUERY_FIELDS, errors="strict")
    except ValueError as error:
        raise HTTPError(400, f"The parameters cannot be read: {error}.")
    return {key: values[-1] for key, values in fields.items()}


def body_params(body, content_type):
    """The parameters of a request body: a form, or a JSON object."""
    if not body.strip():
        return {}
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPError(400, "The form body is not UTF-8.")
        return query_params(text)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise HTTPError(400, "The request body is not JSON.")
    if not isinstance(data, dict):
        raise HTTPError(400, "The request body must be a JSON object.")
    return {key: value for key, value in data.items() if value is not None}


class Incoming:
    """What a connection sends, read as lines (within limits), then as exact lengths."""

    def __init__(self, reader):
        self.reader = reader
        self.buffer = bytearray()
        # Bytes received since the server began to wait for a request.
        self.received = 0

    async def line(self, limit, status, message):
        """The next line with its end; at the end of the connection what is left (b"": nothing)."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                if end + 1 > limit:
                    raise HeadError(status, message)
                line = bytes(self.buffer[: end + 1])
                del self.buffer[: end + 1]
                return line
            if len(self.buffer) > limit:
                raise HeadError(status, message)
            data = await self.reader.read(16 * 1024)
            if not data:
                line = bytes(self.buffer)
                self.buffer.clear()
                return line
            self.received += len(data)
            self.buffer += data

    async def exactly(self, length):
        taken = bytes(self.buffer[:length])
        del self.buffer[:length]
        if len(taken) < length:
            taken += await self.reader.readexactly(length - len(taken))
        return taken

    async def head(self):
        """The next request's head, or None when the connection ends before one starts."""
        line = b"\r\n"
        too_long = f"The request line is longer than {MAX_REQUEST_LINE_BYTES} bytes."
        # Empty lines before a request line are ignored (RFC 9112 2.2).
        while line in (b"\r\n", b"\n"):
            line = await self.line(MAX_REQUEST_LINE_BYTES, 414, too_long)
            if not line.endswith(b"\n"):
                if line:
                    raise HeadError(400, "The connection ended inside the request line.")
                return None
        total = len(line)
        method, target, version = parse_request_line(line)
        headers = {}
        too_long = f"The request head is longer than {MAX_HEAD_BYTES} bytes."
        while True:
            line = await self.line(MAX_HEAD_BYTES - total, 431, too_long)
            if not line.endswith(b"\n"):
                raise HeadError(400, "The connection ended inside the request headers.")
            total += len(line)
            if line in (b"\r\n", b"\n"):
                return Request(method, target, version, headers)
            if sum(len(values) for values in headers.values()) >= MAX_HEADERS:
                raise HeadError(431, f"The request has more than {MAX_HEADERS} headers.")
            parse_header(line, headers)


class Body:
    """A request's body, read when the application asks for it (after checking who sent it)."""

    def __init__(self, request, incoming, writer):
        self.request = request
        self.incoming = incoming
        self.writer = writer

    async def read(self):
        """The body's bytes: 413 over MAX_BODY_BYTES (unread), 408 when it does not arrive in time."""
        request = self.request
        length = request.body_length()
        if length > MAX_BODY_BYTES:
            raise HTTPError(413, f"The request body is larger than {MAX_BODY_BYTES} bytes.")
        expect = (request.header("Expect") or "").lower()
        if expect and expect != "100-continue":
            raise HTTPError(417, f"Expect: {expect} is not supported.")
        if length == 0:
            return b""
        if expect == "100-continue":
            self.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            body = await asyncio.wait_for(self.incoming.exactly(length), BODY_SECONDS)
        except asyncio.TimeoutError:
            raise HTTPError(408, f"The request body did not arrive within {BODY_SECONDS:g} s.")
        request.body_read = True
        return body

    async def params(self):
        return body_params(await self.read(), self.request.header("Content-Type"))


class Stream:
    """An answer that comes in pieces (chunked text/plain): produce(stopped, emit) runs in a thread
    of its own, calls emit(text) for each piece, and returns when it is done or once stopped.is_set().
    headers: more headers of the answer."""

    def __init__(self, produce, headers=None):
        self.produce = produce
        self.headers = headers or {}


class Answer:
    """An answer other than JSON (a page, a script, a redirect): its status, bytes, type and headers."""

    def __init__(self, status, data=b"", content_type="text/plain; charset=utf-8", headers=None):
        self.status = status
        self.data = data
        self.content_type = content_type
        self.headers = headers or {}


def status_line(status):
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = "Status"
    return f"HTTP/1.1 {status} {phrase}\r\n"


class Connection:
    def __init__(self, writer):
        self.writer = writer
        # Waiting for a request head (idle or slow): what a new connection may drop.
        self.waiting = True
        self.since = time.monotonic()

    def drop(self):
        self.writer.transport.abort()


class HttpServer:
    """Serves app, an async callable (request, body) -> (status, JSON body) or a Stream, that
    raises HTTPError for other answers."""

    def __init__(self, app):
        self.app = app
        self.connections = set()
        self.tasks = set()
        self.streams = 0
        self.server = None

    async def start(self, host, port):
        """Listens; returns the port."""
        self.server = await asyncio.start_server(self.serve_connection, host, port, backlog=1024)
        return self.server.sockets[0].getsockname()[1]

    async def close(self):
        """Stops listening, drops every connection, and waits for their tasks to end."""
        self.server.close()
        for connection in list(self.connections):
            connection.drop()
        await self.server.wait_closed()
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=5)

    def admit(self, connection):
        """Makes room for a new connection; False when every connection is busy with a request."""
        if len(self.connections) >= MAX_CONNECTIONS:
            waiting = [other for other in self.connections if other.waiting]
            if not waiting:
                return False
            oldest = min(waiting, key=lambda other: other.since)
            self.connections.discard(oldest)
            oldest.drop()
        self.connections.add(connection)
        return True

    async def serve_connection(self, reader, writer):
        connection = Connection(writer)
        incoming = Incoming(reader)
        task = asyncio.current_task()
        self.tasks.add(task)
        try:
            if not self.admit(connection):
                await self.answer(writer, 503, {"Message": "The server is busy: try again."}, close=True)
                return
            while True:
                connection.waiting, connection.since = True, time.monotonic()
                incoming.received = len(incoming.buffer)
                try:
                    request = await asyncio.wait_for(incoming.head(), HEAD_SECONDS)
                except asyncio.TimeoutError:
                    # Silence for one that sent nothing (an idle connection), a clear status otherwise.
                    if incoming.received:
                        message = f"The request head did not arrive within {HEAD_SECONDS:g} s."
                        await self.answer(writer, 408, {"Message": message}, close=True)
                    return
                except HeadError as error:
                    await self.answer(writer, error.status, {"Message": str(error)}, close=True)
                    return
                if request is None:
                    return
                connection.waiting = False
                if not await self.serve_request(request, incoming, writer):
                    return
        except (ConnectionError, asyncio.TimeoutError, asyncio.IncompleteReadError, OSError):
            pass
        finally:
            self.connections.discard(connection)
            self.tasks.discard(task)
            writer.transport.abort()

    async def serve_request(self, request, incoming, writer):
        """Answers one request; whether the connection can carry another."""
        try:
            if request.method not in ("GET", "POST"):
                raise HTTPError(501, f"The method {request.method} is not supported: use GET or POST.")
            answer = await self.app(request, Body(request, incoming, writer))
            if isinstance(answer, Stream):
                return await self.stream(request, incoming, writer, answer)
            if isinstance(answer, Answer):
                close = request.wants_close() or not request.body_read
                log(f"{request.method} {request.path} -> {answer.status}")
                await self.send(writer, answer.status, answer.data, answer.content_type, answer.headers, close)
                return not close
            status, body = answer
            headers = {}
        except HTTPError as error:
            status, body, headers = error.status, error.body, error.headers
        except (ConnectionError, asyncio.IncompleteReadError):
            raise
        except Exception as error:  # one request's failure must not end the server
            log(f"error in {request.method} {request.path}: {error!r}")
            status, body, headers = 500, {"Message": "The server failed to answer.", "Error": str(error)}, {}
        # A body left unread (a refused request's) cannot be told from the next request: close.
        close = request.wants_close() or not request.body_read
        log(f"{request.method} {request.path} -> {status}")
        await self.answer(writer, status, body, headers, close)
        return not close

    async def answer(self, writer, status, body, headers=None, close=True):
        data = json.dumps(body, default=str).encode("utf-8")
        await self.send(writer, status, data, "application/json", headers, close)

    async def send(self, writer, status, data, content_type, headers=None, close=True):
        if writer.transport.is_closing():
            return
        lines = [status_line(status), f"Content-Type: {content_type}\r\n", f"Content-Length: {len(data)}\r\n"]
        lines.append("Connection: close\r\n" if close else f"Keep-Alive: timeout={KEEP_ALIVE_SECONDS}\r\n")
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}\r\n")
        lines.append("\r\n")
        writer.write("".join(lines).encode("latin-1") + data)
        await asyncio.wait_for(writer.drain(), WRITE_SECONDS)

    async def stream(self, request, incoming, writer, answer):
        """A chunked answer fed by a thread, until it ends, or the client goes away or stops taking
        it; the connection closes after it."""
        if self.streams >= MAX_STREAMS:
            log(f"{request.method} {request.path} -> 503")
            message = f"{MAX_STREAMS} streams are followed already: try again later."
            await self.answer(writer, 503, {"Message": message}, close=True)
            return False
        self.streams += 1
        loop = asyncio.get_running_loop()
        pieces = asyncio.Queue()
        stopped = threading.Event()
        room = threading.Semaphore(STREAM_PIECES_AHEAD)

        def emit(piece):
            # Waits for room, looking again now and then whether the stream has ended meanwhile.
            while not stopped.is_set():
                if not room.acquire(timeout=0.2):
                    continue
                try:
                    loop.call_soon_threadsafe(pieces.put_nowait, piece)
                except RuntimeError:  # the loop has closed: the server is stopping
                    stopped.set()
                return

        def produce():
            try:
                answer.produce(stopped, emit)
            except Exception as error:  # the stream ends; the server goes on
                log(f"stream of {request.path} failed: {error!r}")
            finally:
                emit(None)

        thread = threading.Thread(target=produce, name="flux-restful-stream", daemon=True)
        # Any byte or the end from the client ends the stream (nothing else may come on it).
        gone = asyncio.ensure_future(incoming.reader.read(1))
        try:
            log(f"{request.method} {request.path} -> 200 (stream)")
            head = status_line(200) + "Content-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n"
            head += "".join(f"{name}: {value}\r\n" for name, value in answer.headers.items())
            writer.write((head + "Connection: close\r\n\r\n").encode("latin-1"))
            await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
            thread.start()
            while True:
                piece = asyncio.ensure_future(pieces.get())
                done, _ = await asyncio.wait({piece, gone}, return_when=asyncio.FIRST_COMPLETED)
                if piece not in done:
                    piece.cancel()
                    return False
                text = piece.result()
                room.release()
                if text is None:
                    writer.write(b"0\r\n\r\n")
                elif text:
                    chunk = text.encode("utf-8")
                    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
                if text is None:
                    return False
        finally:
            stopped.set()
            gone.cancel()
            self.streams -= 1
