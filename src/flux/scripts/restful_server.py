# The HTTP API of a RESTful MiniCluster's Flux instance, served from its lead pod.
#
# Written for the Flux Operator (not taken from flux-restful-api): the same routes, parameters and
# answers as that server's v1 API, so its clients (flux-restful-client, flux-operator jobs) work
# against it. Only the Python standard library and Flux's own Python bindings: nothing is installed
# or downloaded when the pod starts. Runs as the instance's initial program (flux python), so as
# the flux user and against the lead broker (FLUX_URI).
#
# Usage: flux python restful-server.py CREDENTIALS_FILE PORT
#   CREDENTIALS_FILE  JSON {"secretKey": str, "users": {name: token}}, from the MiniCluster's Secret
# (This file is src/flux/scripts/restful_server.py in the operator's source, restful-server.py in the
# MiniCluster's ConfigMap; its tests are test/python/test_restful_server.py.)
import base64
import hashlib
import hmac
import json
import os
import shlex
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# Flux's Python bindings, imported by main() (import_flux): the module itself imports without Flux,
# so its tests (test/python) run anywhere.
flux = None

PREFIX = "/v1"
# Where credentials come through the Kubernetes API server's service proxy, which consumes (and
# drops) the Authorization header itself: same format as Authorization.
PROXY_AUTHORIZATION = "X-Flux-Restful-Authorization"
ACCESS_TOKEN_SECONDS = 10 * 3600
MAX_BODY_BYTES = 1024 * 1024
BOOLEAN_TRUE = ("1", "true", "yes", "on")


class HTTPError(Exception):
    def __init__(self, status, message, headers=None, extra=None):
        super().__init__(message)
        self.status = status
        self.body = {"Message": message, **(extra or {})}
        self.headers = headers or {}


# --- credentials and tokens -------------------------------------------------------------------


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
    except (ValueError, TypeError, AttributeError):
        return None
    if not isinstance(claims, dict):
        return None
    expires = claims.get("exp")
    if expires is not None and (not isinstance(expires, (int, float)) or expires < time.time()):
        return None
    return claims


class Credentials:
    def __init__(self, path):
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        self.secret_key = data["secretKey"]
        self.users = dict(data["users"])

    def check(self, user, token):
        expected = self.users.get(user)
        # Compared even for an unknown user, so the time taken does not tell which users exist.
        matches = hmac.compare_digest((expected or "\0").encode(), str(token).encode())
        return expected is not None and matches

    def user_of(self, authorization):
        """The user an Authorization header proves, or None: Basic user:token, or a Bearer access token."""
        scheme, _, value = (authorization or "").partition(" ")
        value = value.strip()
        if scheme.lower() == "basic":
            try:
                user, _, token = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
            except ValueError:
                return None
            return user if self.check(user, token) else None
        if scheme.lower() == "bearer":
            claims = jwt_decode(value, self.secret_key)
            if claims is None or claims.get("scope") == "token" or not isinstance(claims.get("exp"), (int, float)):
                return None
            user = claims.get("sub")
            return user if user in self.users else None
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
        return jwt_encode({"exp": int(time.time()) + ACCESS_TOKEN_SECONDS, "sub": user}, self.secret_key)


# --- parameters -------------------------------------------------------------------------------


def integer(params, name, minimum=None):
    value = params.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise HTTPError(400, f"{name} must be an integer, got {value!r}")
    if isinstance(value, bool) or (minimum is not None and number < minimum):
        raise HTTPError(400, f"{name} must be an integer >= {minimum or 0}, got {value!r}")
    return number


def boolean(params, name):
    value = params.get(name)
    if isinstance(value, bool):
        return value
    return value is not None and str(value).strip().lower() in BOOLEAN_TRUE


def mapping(params, name, pair_separator=","):
    """A dict given as JSON object, as JSON text, or as key=value pairs."""
    value = params.get(name)
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return {str(key): str(item) for key, item in value.items()}
    text = str(value).strip()
    if text.startswith("{"):
        try:
            return mapping({name: json.loads(text)}, name)
        except ValueError:
            raise HTTPError(400, f"{name} is not valid JSON")
    result = {}
    for pair in text.split(pair_separator):
        pair = pair.strip()
        if not pair:
            continue
        key, equals, item = pair.partition("=")
        if not equals or not key:
            raise HTTPError(400, f"{name}: {pair!r} is not key=value")
        result[key] = item
    return result


# --- Flux -------------------------------------------------------------------------------------


def import_flux():
    global flux
    import flux.job
    import flux.resource  # noqa: F401 (flux.resource.list is used)


def handle():
    # One handle per request thread: a Flux handle is not shared between threads.
    return flux.Flux()


def job_id(text):
    try:
        return flux.job.JobID(text)
    except (TypeError, ValueError, OSError):
        raise HTTPError(404, f"There is no job with id {text!r}.")


def job_record(h, jobid):
    try:
        rpc = flux.job.job_list_id(h, jobid, attrs=["all"])
        raw = dict(rpc.get_job())
    except FileNotFoundError:
        raise HTTPError(404, f"There is no job with id {int(jobid)}.")
    except OSError as error:
        raise HTTPError(404, f"There is no job with id {int(jobid)}: {error.strerror or error}.")
    info = flux.job.JobInfo(dict(raw))
    record = dict(raw)
    record["state"] = flux.job.info.statetostr(raw["state"])
    record["jobid"] = jobid.f58
    for name in ("result", "status", "returncode", "runtime", "nnodes", "ntasks", "nodelist", "waitstatus"):
        try:
            record[name] = getattr(info, name)
        except (AttributeError, KeyError, TypeError, ValueError):
            record.setdefault(name, "")
    try:
        record["exception"] = dict(info.exception.__dict__)
    except AttributeError:
        record["exception"] = {}
    record.setdefault("duration", "")
    return record


def output_lines(h, jobid):
    """The job's output so far (stdout and stderr as written), or None before it has any."""
    try:
        found = flux.job.job_kvs_lookup(h, jobid, keys=["guest.output"])
    except FileNotFoundError:
        return None
    except OSError:
        return None
    if not found or not found.get("guest.output"):
        return None
    lines = []
    for entry in found["guest.output"].splitlines():
        try:
            event = json.loads(entry)
        except ValueError:
            continue
        context = event.get("context", {})
        if event.get("name") != "data" or "data" not in context:
            continue
        data = context["data"]
        if context.get("encoding") == "base64":
            data = base64.b64decode(data).decode("utf-8", "replace")
        lines.append(data)
    return lines


# --- routes -----------------------------------------------------------------------------------


def list_jobs(h, params, user):
    listing = flux.job.job_list(h, max_entries=integer(params, "limit", 0) or 1000).get_jobs()
    if not (boolean(params, "details") or boolean(params, "detail")):
        return 200, {"jobs": listing}
    detailed = {}
    for job in listing:
        try:
            detailed[str(job["id"])] = job_record(h, flux.job.JobID(job["id"]))
        except HTTPError:
            continue
    if boolean(params, "listing"):
        return 200, list(detailed.values())
    return 200, detailed


def search_jobs(h, params, user):
    listing = flux.job.job_list(h).get_jobs()
    records = []
    for job in listing:
        try:
            records.append(job_record(h, flux.job.JobID(job["id"])))
        except HTTPError:
            continue
    total = len(records)
    query = params.get("search[value]") or params.get("search") or params.get("query")
    if query:
        records = [record for record in records if query in json.dumps(record, default=str)]
    start = integer(params, "start", 0) or 0
    records = records[start:]
    length = integer(params, "length", 0)
    if length is not None:
        records = records[:length]
    return 200, {
        "data": records,
        "draw": params.get("draw") or 1,
        "recordsTotal": total,
        "recordsFiltered": len(records),
    }


def default_options():
    """The MiniCluster's flux.optionFlags (FLUX_OPTION_FLAGS, set by the entrypoint): shell options
    (-o k=v) and attributes (--setattr=k=v, -S k=v) given to every job, as a submitted command gets them."""
    shell, attributes = {}, {}
    words = shlex.split(os.environ.get("FLUX_OPTION_FLAGS", ""))
    index = 0
    while index < len(words):
        word = words[index]
        value = None
        for short, long_form, target in (("-o", "--setopt", shell), ("-S", "--setattr", attributes)):
            if word in (short, long_form) and index + 1 < len(words):
                index += 1
                value, into = words[index], target
            elif word.startswith(long_form + "="):
                value, into = word[len(long_form) + 1 :], target
            elif word.startswith(short) and len(word) > 2 and not word.startswith("--"):
                value, into = word[2:], target
            if value is not None:
                break
        index += 1
        if value is None:
            log(f"FLUX_OPTION_FLAGS: {word!r} is not a shell option or attribute: not given to API jobs")
            continue
        key, _, item = value.partition("=")
        into[key] = item if item != "" else 1
    return shell, attributes


def submit_job(h, params, user):
    command = params.get("command")
    if isinstance(command, list):
        command = " ".join(str(word) for word in command)
    if not command or not str(command).strip():
        raise HTTPError(400, "A 'command' is minimally required.")
    if boolean(params, "is_launcher"):
        raise HTTPError(
            400,
            "Invalid submit request",
            extra={"Errors": ["is_launcher is not supported here: submit the launcher's command itself"]},
        )
    try:
        words = shlex.split(str(command))
    except ValueError as error:
        raise HTTPError(400, "Invalid submit request", extra={"Errors": [f"command: {error}"]})
    sizes = {
        "num_tasks": integer(params, "num_tasks", 1),
        "cores_per_task": integer(params, "cores_per_task", 1),
        "gpus_per_task": integer(params, "gpus_per_task", 1),
        "num_nodes": integer(params, "num_nodes", 1),
    }
    if sizes["num_nodes"] is not None:
        # Flux would take the job and only then find it unsatisfiable: refused here, as upstream does.
        total = flux.resource.list.resource_list(h).get().all.nnodes
        if sizes["num_nodes"] > total:
            raise HTTPError(
                400,
                "Invalid submit request",
                extra={"Errors": [f"The server only has {total} nodes, you requested {sizes['num_nodes']}"]},
            )
    runtime = integer(params, "runtime", 0) or 0
    envars = mapping(params, "envars")
    option_flags = mapping(params, "option_flags")
    errors = [f"option_flags: give {key} without -o" for key in option_flags if key.startswith("-o")]
    if errors:
        raise HTTPError(400, "Invalid submit request", extra={"Errors": errors})
    try:
        jobspec = flux.job.JobspecV1.from_command(
            words,
            num_tasks=sizes["num_tasks"] or 1,
            cores_per_task=sizes["cores_per_task"] or 1,
            gpus_per_task=sizes["gpus_per_task"],
            num_nodes=sizes["num_nodes"],
            exclusive=boolean(params, "exclusive"),
        )
        shell_defaults, attribute_defaults = default_options()
        for key, value in attribute_defaults.items():
            jobspec.setattr(key, value)
        for key, value in {**shell_defaults, **option_flags}.items():
            jobspec.setattr_shell_option(key, value)
        jobspec.setattr("user", user)
        jobspec.cwd = params.get("workdir") or os.getcwd()
        jobspec.duration = runtime
        environment = dict(os.environ)
        environment.update(envars)
        jobspec.environment = environment
        jobid = flux.job.submit(h, jobspec)
    except (ValueError, TypeError, OSError) as error:
        raise HTTPError(400, "There was an issue submitting that job.", extra={"Error": str(error)})
    log(f"user {user} submitted job {jobid.f58} ({int(jobid)})")
    return 200, {"Message": "Job submit.", "id": int(jobid)}


def get_job(h, params, user, jobid):
    return 200, job_record(h, job_id(jobid))


def cancel_job(h, params, user, jobid):
    target = job_id(jobid)
    try:
        flux.job.cancel(h, target)
    except OSError as error:
        return 400, {"Message": f"Job cannot be cancelled: {error.strerror or error}.", "id": int(target)}
    log(f"user {user} canceled job {target.f58}")
    return 200, {"Message": "Job is requested to cancel.", "id": int(target)}


def job_output(h, params, user, jobid):
    target = job_id(jobid)
    job_record(h, target)
    lines = output_lines(h, target)
    if lines:
        return 200, {"Output": lines}
    return 200, {"Message": "The output does not exist yet, or the jobid is incorrect."}


def stream_output(h, params, user, jobid):
    """The job's output as it comes, until the job ends (a chunked text/plain answer)."""
    target = job_id(jobid)
    job_record(h, target)

    def stream(request):
        request.send_response(200)
        request.send_header("Content-Type", "text/plain; charset=utf-8")
        request.send_header("Transfer-Encoding", "chunked")
        request.end_headers()
        try:
            for event in flux.job.event_watch(h, target, "guest.output"):
                context = event.context
                if "data" not in context:
                    continue
                data = context["data"]
                if context.get("encoding") == "base64":
                    data = base64.b64decode(data).decode("utf-8", "replace")
                chunk = data.encode("utf-8")
                if chunk:
                    request.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    request.wfile.flush()
        except OSError as error:
            log(f"output stream of job {target.f58} ended: {error}")
        request.wfile.write(b"0\r\n\r\n")

    return stream


def list_nodes(h, params, user):
    listing = flux.resource.list.resource_list(h).get()
    return 200, {"nodes": sorted({str(node) for node in listing.up.nodelist})}


def stop_service(h, params, user):
    raise HTTPError(
        403,
        "This server belongs to a MiniCluster: delete the MiniCluster to stop it (kubectl delete minicluster).",
    )


ROUTES = {
    ("GET", ("jobs",)): list_jobs,
    ("GET", ("jobs", "search")): search_jobs,
    ("POST", ("jobs", "submit")): submit_job,
    ("GET", ("nodes",)): list_nodes,
    ("POST", ("service", "stop")): stop_service,
}
JOB_ROUTES = {
    ("GET", ()): get_job,
    ("POST", ("cancel",)): cancel_job,
    ("GET", ("output",)): job_output,
    ("GET", ("output", "stream")): stream_output,
}


def log(message):
    print(f"flux-restful: {message}", file=sys.stderr, flush=True)


class Handler(BaseHTTPRequestHandler):
    server_version = "flux-operator-restful/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        # The request line without its query: submitted commands and environments stay out of the log.
        log(f"{self.command} {urlsplit(self.path).path} -> {args[1] if len(args) > 1 else ''}")

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def send_json(self, status, body, headers=None):
        data = json.dumps(body, default=str).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            # A refused request's body may be unread: the connection cannot carry another request.
            self.send_header("Connection", "close")
            self.close_connection = True
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def params(self):
        url = urlsplit(self.path)
        params = {key: values[-1] for key, values in parse_qs(url.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            raise HTTPError(413, f"The request body is larger than {MAX_BODY_BYTES} bytes.")
        body = self.rfile.read(length) if length > 0 else b""
        if body.strip():
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "application/x-www-form-urlencoded":
                form = parse_qs(body.decode("utf-8"), keep_blank_values=True)
                params.update({key: values[-1] for key, values in form.items()})
            else:
                try:
                    data = json.loads(body)
                except ValueError:
                    raise HTTPError(400, "The request body is not JSON.")
                if not isinstance(data, dict):
                    raise HTTPError(400, "The request body must be a JSON object.")
                params.update({key: value for key, value in data.items() if value is not None})
        return params

    def route(self, method, parts):
        if parts[:1] == ["jobs"] and len(parts) >= 2 and parts[1] not in ("submit", "search"):
            handler = JOB_ROUTES.get((method, tuple(parts[2:])))
            return (handler, [parts[1]]) if handler else (None, [])
        return ROUTES.get((method, tuple(parts))), []

    def authorization(self):
        return self.headers.get("Authorization") or self.headers.get(PROXY_AUTHORIZATION)

    def dispatch(self, method):
        try:
            path = urlsplit(self.path).path.rstrip("/")
            credentials = self.server.credentials
            if path in ("", PREFIX) and method == "GET":
                return self.send_json(200, {"Message": "Flux RESTful API", "api": PREFIX.strip("/")})
            if not path.startswith(PREFIX + "/"):
                raise HTTPError(404, f"There is no route {path}.")
            parts = path[len(PREFIX) + 1 :].split("/")
            params = self.params()
            if parts == ["token"] and method == "POST":
                token = credentials.access_token(self.authorization())
                # Denied with 400, not 401: a client answers a 401 by asking for a token again.
                if token is None:
                    raise HTTPError(400, "Denied")
                return self.send_json(200, {"access_token": token, "token_type": "Bearer"})
            handler, args = self.route(method, parts)
            if handler is None:
                raise HTTPError(404, f"There is no route {method} {path}.")
            user = credentials.user_of(self.authorization())
            if user is None:
                raise HTTPError(
                    401,
                    "Incorrect user or token.",
                    headers={"WWW-Authenticate": 'Bearer realm="flux-restful"'},
                )
            answer = handler(handle(), params, user, *args)
            if callable(answer):
                return answer(self)
            status, body = answer
            self.send_json(status, body)
        except HTTPError as error:
            self.send_json(error.status, error.body, error.headers)
        except Exception as error:  # one request's failure must not end the server
            log(f"error in {method} {urlsplit(self.path).path}: {error!r}")
            self.send_json(500, {"Message": "The server failed to answer.", "Error": str(error)})


def main():
    import_flux()
    if len(sys.argv) != 3:
        sys.exit("usage: flux python restful-server.py CREDENTIALS_FILE PORT")
    credentials = Credentials(sys.argv[1])
    port = int(sys.argv[2])
    # Probe the instance once, so a broken Flux shows in the log at once rather than per request.
    handle()
    server = ThreadingHTTPServer(("", port), Handler)
    server.daemon_threads = True
    server.credentials = credentials
    log(f"serving the Flux RESTful API on port {port} for {len(credentials.users)} user(s)")
    threading.current_thread().name = "flux-restful"
    server.serve_forever()


if __name__ == "__main__":
    main()
