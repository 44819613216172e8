# The HTTP API of a RESTful MiniCluster's Flux instance, served from its lead pod.
#
# Written for the Flux Operator (not taken from flux-restful-api): the same routes, parameters and
# answers as that server's v1 API, so its clients (flux-restful-client, flux-operator jobs) work
# against it. Only the Python standard library and Flux's own Python bindings: nothing is installed
# or downloaded when the pod starts. Runs as the instance's initial program (flux python), so as
# the flux user and against the lead broker (FLUX_URI).
#
# The jobs it submits run as that user too (a single-user instance): the server makes itself
# non-dumpable before it reads the credentials file, removes the file, and only then listens
# (restful_auth.py, docs/security.md). Each API user sees and cancels only the jobs they submitted,
# unless the MiniCluster made them an administrator. HTTP is restful_http.py (one event loop, within
# limits); Flux is called from FLUX_THREADS threads.
#
# Usage: flux python restful-server.py CREDENTIALS_FILE PORT
#   CREDENTIALS_FILE  JSON {"secretKey": str, "users": {name: token}, "administrators": [name]}, a
#                     private copy of the MiniCluster's Secret, removed once read
# (This file is src/restful/restful_server.py in the operator's source, restful-server.py in the
# MiniCluster's ConfigMap beside restful_http.py and restful_auth.py; its tests are src/restful/tests.)
import asyncio
import base64
import collections
import concurrent.futures
import errno
import json
import os
import shlex
import sys
import threading

from restful_auth import Credentials, stay_private
from restful_http import HTTPError, HttpServer, Stream, log, query_params
from restful_pages import PREFIX as PAGES_PREFIX
from restful_pages import Pages, when

# Flux's Python bindings, imported by main() (import_flux): the module itself imports without Flux,
# so its tests (src/restful/tests) run anywhere.
flux = None

PREFIX = "/v1"
# Where credentials come through the Kubernetes API server's service proxy, which consumes (and
# drops) the Authorization header itself: same format as Authorization.
PROXY_AUTHORIZATION = "X-Flux-Restful-Authorization"
BOOLEAN_TRUE = ("1", "true", "yes", "on")
# Threads that call Flux; a call that takes longer than FLUX_SECONDS gets 504 (its thread finishes
# on its own).
FLUX_THREADS = 8
FLUX_SECONDS = 60.0
# An owner per job id, remembered (a jobspec never changes) up to this many jobs.
OWNER_CACHE_SIZE = 100000


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
        except (ValueError, RecursionError):
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
    import flux.resource  # noqa: F401 (flux.resource.list and .status are used)


_thread_handles = threading.local()


def handle():
    # One handle per thread (a Flux handle is not shared between threads), kept for its next calls.
    if getattr(_thread_handles, "handle", None) is None:
        _thread_handles.handle = flux.Flux()
    return _thread_handles.handle


def job_id(text):
    try:
        return flux.job.JobID(text)
    except (TypeError, ValueError, OSError):
        raise HTTPError(404, f"There is no job with id {text!r}.")


def no_such_job(jobid):
    return HTTPError(404, f"There is no job with id {int(jobid)}.")


class Owners:
    """The API user who submitted each job (its jobspec's attributes.system.user), remembered."""

    def __init__(self, size=OWNER_CACHE_SIZE):
        self.size = size
        self.known = collections.OrderedDict()
        self.lock = threading.Lock()

    def remember(self, jobid, owner):
        with self.lock:
            self.known[int(jobid)] = owner
            while len(self.known) > self.size:
                self.known.popitem(last=False)

    def of(self, h, ids):
        """{id: owner or None} for these job ids; the jobspecs of the ones not known yet are read
        with one pipelined RPC each."""
        with self.lock:
            found = {int(jobid): self.known[int(jobid)] for jobid in ids if int(jobid) in self.known}
        asked = [(int(jobid), flux.job.job_info_lookup(h, int(jobid), keys=["jobspec"])) for jobid in ids
                 if int(jobid) not in found]
        for jobid, rpc in asked:
            try:
                jobspec = rpc.get_decode().get("jobspec")
            except OSError:
                found[jobid] = None
                continue
            found[jobid] = job_owner(jobspec)
            self.remember(jobid, found[jobid])
        return found


def job_owner(jobspec):
    """The API user a jobspec names, or None (a job submitted some other way)."""
    try:
        user = jobspec["attributes"]["system"]["user"]
    except (KeyError, TypeError):
        return None
    return user if isinstance(user, str) else None


OWNERS = Owners()


def visible_ids(owners, caller, ids):
    """Of these job ids (with their owners), the ones the caller may see, in their order."""
    if caller.admin:
        return list(ids)
    return [jobid for jobid in ids if owners.get(int(jobid)) == caller.name]


def require_visible(h, caller, jobid):
    """A job the caller may not see is, to them, one that does not exist."""
    if not caller.admin and OWNERS.of(h, [jobid]).get(int(jobid)) != caller.name:
        raise no_such_job(jobid)


def job_record(h, jobid):
    try:
        rpc = flux.job.job_list_id(h, jobid, attrs=["all"])
        raw = dict(rpc.get_job())
    except FileNotFoundError:
        raise no_such_job(jobid)
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


def decode_output(context):
    data = context["data"]
    if context.get("encoding") == "base64":
        data = base64.b64decode(data).decode("utf-8", "replace")
    return data


def output_lines(h, jobid):
    """The job's output so far (stdout and stderr as written), or None before it has any."""
    try:
        found = flux.job.job_kvs_lookup(h, jobid, keys=["guest.output"])
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
        lines.append(decode_output(context))
    return lines


def jobs_of(h, caller, limit=None):
    """Flux's job-list records of the jobs the caller may see, newest first, at most limit."""
    if caller.admin:
        return flux.job.job_list(h, max_entries=limit or 0).get_jobs()
    listing = flux.job.job_list(h, max_entries=0).get_jobs()
    owners = OWNERS.of(h, [job["id"] for job in listing])
    shown = set(visible_ids(owners, caller, [job["id"] for job in listing]))
    mine = [job for job in listing if job["id"] in shown]
    return mine[:limit] if limit else mine


# --- routes -----------------------------------------------------------------------------------


def list_jobs(h, params, caller):
    listing = jobs_of(h, caller, integer(params, "limit", 0) or 1000)
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


def search_jobs(h, params, caller):
    records = []
    for job in jobs_of(h, caller):
        try:
            records.append(job_record(h, flux.job.JobID(job["id"])))
        except HTTPError:
            continue
    total = len(records)
    query = params.get("search[value]") or params.get("search") or params.get("query")
    if query:
        records = [record for record in records if str(query) in json.dumps(record, default=str)]
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


def submit_job(h, params, caller):
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
    # In flux-restful-api's words, which its clients match on.
    errors = [
        f"option_flags: {key!r} starts with -o: give keys without -o" for key in option_flags if key.startswith("-o")
    ]
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
        jobspec.setattr("user", caller.name)
        jobspec.cwd = params.get("workdir") or os.getcwd()
        jobspec.duration = runtime
        environment = dict(os.environ)
        environment.update(envars)
        jobspec.environment = environment
        jobid = flux.job.submit(h, jobspec)
    except (ValueError, TypeError, OSError) as error:
        raise HTTPError(400, "There was an issue submitting that job.", extra={"Error": str(error)})
    OWNERS.remember(jobid, caller.name)
    log(f"user {caller.name} submitted job {jobid.f58} ({int(jobid)})")
    return 200, {"Message": "Job submit.", "id": int(jobid)}


def get_job(h, params, caller, jobid):
    target = job_id(jobid)
    require_visible(h, caller, target)
    return 200, job_record(h, target)


def cancel_job(h, params, caller, jobid):
    target = job_id(jobid)
    require_visible(h, caller, target)
    try:
        flux.job.cancel(h, target)
    except OSError as error:
        return 400, {"Message": f"Job cannot be cancelled: {error.strerror or error}.", "id": int(target)}
    log(f"user {caller.name} canceled job {target.f58}")
    return 200, {"Message": "Job is requested to cancel.", "id": int(target)}


def job_output(h, params, caller, jobid):
    target = job_id(jobid)
    require_visible(h, caller, target)
    job_record(h, target)
    lines = output_lines(h, target)
    if lines:
        return 200, {"Output": lines}
    return 200, {"Message": "The output does not exist yet, or the jobid is incorrect."}


def follow_output(h, target, stopped, emit):
    """Emits the job's output as it comes, until it ends or stopped.is_set(); whether it emitted any.
    Raises OSError (ENOENT) for a job that has not started: its output does not exist yet."""
    emitted = False
    # The watch is polled so that a client gone away stops it.
    watcher = flux.job.event_watch_async(h, target, "guest.output")
    try:
        while not stopped.is_set():
            try:
                watcher.wait_for(1.0)
            except TimeoutError:
                continue
            except OSError as error:
                if error.errno == errno.ETIMEDOUT:
                    continue
                raise
            event = watcher.get_event()
            if event is None:
                return emitted
            if "data" in event.context:
                emit(decode_output(event.context))
                emitted = True
        return emitted
    except OSError as error:
        if emitted:
            log(f"output stream of job {target.f58} ended: {error}")
            return emitted
        raise
    finally:
        if stopped.is_set():
            try:
                watcher.cancel()
            except OSError:
                pass


def job_inactive(h, target):
    try:
        state = flux.job.job_list_id(h, target, attrs=["state"]).get_job()["state"]
        return flux.job.info.statetostr(state) == "INACTIVE"
    except (OSError, KeyError):
        return True


def stream_output(h, params, caller, jobid):
    """The job's output as it comes, until the job ends; for a job not started yet, from its start."""
    target = job_id(jobid)
    require_visible(h, caller, target)
    job_record(h, target)

    def produce(stopped, emit):
        own = flux.Flux()  # a handle of this thread's own
        last_try = False
        while not stopped.is_set():
            try:
                follow_output(own, target, stopped, emit)
                return
            except OSError as error:
                if error.errno != errno.ENOENT or last_try:
                    if error.errno != errno.ENOENT:
                        log(f"output stream of job {target.f58} ended: {error}")
                    return
            # Not started: once the job has ended, one more look (it may have run in between).
            last_try = job_inactive(own, target)
            if not last_try:
                stopped.wait(0.5)

    return Stream(produce)


def list_nodes(h, params, caller):
    listing = flux.resource.list.resource_list(h).get()
    return 200, {"nodes": sorted({str(node) for node in listing.up.nodelist})}


def stop_service(h, params, caller):
    raise HTTPError(
        403,
        "This server belongs to a MiniCluster: delete the MiniCluster to stop it (kubectl delete minicluster).",
    )


# --- what the pages (restful_pages.py) ask of Flux --------------------------------------------


def duration_text(seconds):
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        return ""
    return f"{seconds:.1f}s" if seconds > 0 else ""


def job_summary(raw, owner):
    """A job-list record as the pages show it."""
    started, ended = raw.get("t_run", 0), raw.get("t_inactive", 0)
    runtime = (ended or 0) - (started or 0) if started and ended else ""
    return {
        "id": int(raw["id"]),
        "jobid": flux.job.JobID(raw["id"]).f58,
        "name": raw.get("name", ""),
        "user": owner or "",
        "state": flux.job.info.statetostr(raw["state"]),
        "result": flux.job.info.resulttostr(raw["result"]) if "result" in raw else "",
        "nnodes": raw.get("nnodes", ""),
        "ntasks": raw.get("ntasks", ""),
        "nodelist": raw.get("nodelist", ""),
        "returncode": (raw.get("waitstatus", 0) >> 8) if "waitstatus" in raw and "result" in raw else "",
        "submitted": when(raw.get("t_submit")),
        "started": when(started),
        "ended": when(ended),
        "runtime": duration_text(runtime),
    }


def jobspec_summary(jobspec):
    """What a job asked for, from its jobspec (v1)."""
    summary = {}
    slots = 1
    try:
        resource = jobspec["resources"][0]
        if resource.get("type") == "node":
            summary["nodes"] = resource.get("count", "")
            slots = int(resource.get("count", 1))
            resource = resource["with"][0]
        slots *= int(resource.get("count", 1))
        for item in resource.get("with", []):
            if item.get("type") == "core":
                summary["cores_per_task"] = item.get("count", "")
            if item.get("type") == "gpu":
                summary["gpus_per_task"] = item.get("count", "")
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        pass
    try:
        task = jobspec["tasks"][0]
        summary["command"] = shlex.join(task["command"])
        count = task.get("count", {})
        summary["tasks"] = count["total"] if "total" in count else int(count.get("per_slot", 1)) * slots
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        pass
    system = jobspec.get("attributes", {}).get("system", {}) if isinstance(jobspec, dict) else {}
    summary["cwd"] = system.get("cwd", "")
    summary["duration"] = duration_text(system.get("duration", 0)) or "none"
    return summary


class FluxBackend:
    """The pages' calls (restful_pages.Backend), each in a Flux thread with its handle h."""

    def jobs(self, h, caller):
        listing = jobs_of(h, caller, 1000)
        owners = OWNERS.of(h, [job["id"] for job in listing])
        return [job_summary(job, owners.get(int(job["id"]))) for job in listing]

    def job(self, h, caller, text):
        target = job_id(text)
        require_visible(h, caller, target)
        try:
            raw = flux.job.job_list_id(h, target, attrs=["all"]).get_job()
        except OSError:
            raise no_such_job(target)
        try:
            jobspec = flux.job.job_info_lookup(h, int(target), keys=["jobspec"]).get_decode().get("jobspec")
        except OSError:
            jobspec = {}
        return job_summary(dict(raw), job_owner(jobspec)), jobspec_summary(jobspec or {})

    def output(self, h, caller, text):
        target = job_id(text)
        require_visible(h, caller, target)
        return output_lines(h, target) or []

    def stream(self, h, caller, text):
        return stream_output(h, {}, caller, text)

    def submit(self, h, caller, params):
        return submit_job(h, params, caller)[1]["id"]

    def cancel(self, h, caller, text):
        status, answer = cancel_job(h, {}, caller, text)
        if status != 200:
            raise HTTPError(status, answer["Message"])

    def node_count(self, h):
        return flux.resource.list.resource_list(h).get().all.nnodes

    def nodes(self, h):
        listing = flux.resource.list.resource_list(h).get()
        drained = []
        try:
            status = flux.resource.status.resource_status(h).get()
            ranks = ",".join(str(ids) for ids in (status.drained, status.draining) if str(ids))
            if ranks:
                drained = [str(node) for node in listing.all.copy_ranks(ranks).nodelist]
        except (OSError, AttributeError, ValueError, TypeError) as error:
            log(f"the drained nodes cannot be read: {error}")
        return {
            "up": sorted(str(node) for node in listing.up.nodelist),
            "down": sorted(str(node) for node in listing.down.nodelist),
            "drained": sorted(drained),
        }


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


def route(method, parts):
    """(handler, extra arguments) of a route under /v1, or (None, [])."""
    if parts[:1] == ["jobs"] and len(parts) >= 2 and parts[1] not in ("submit", "search"):
        handler = JOB_ROUTES.get((method, tuple(parts[2:])))
        return (handler, [parts[1]]) if handler else (None, [])
    return ROUTES.get((method, tuple(parts))), []


class Api:
    """The application under HttpServer: routes, who may call them, and the Flux threads."""

    def __init__(self, credentials, backend=None):
        self.credentials = credentials
        self.pool = concurrent.futures.ThreadPoolExecutor(FLUX_THREADS, thread_name_prefix="flux-restful-flux")
        self.pages = Pages(credentials, backend or FluxBackend(), self.run)

    async def run(self, work):
        """work(handle) in a Flux thread, within FLUX_SECONDS (else 504)."""
        call = asyncio.get_running_loop().run_in_executor(self.pool, lambda: work(handle()))
        try:
            return await asyncio.wait_for(call, FLUX_SECONDS)
        except asyncio.TimeoutError:
            raise HTTPError(504, f"Flux did not answer within {FLUX_SECONDS:g} s.")

    async def __call__(self, request, body):
        path = request.path.rstrip("/")
        # The pages: under /ui/, and where a browser (it asks for HTML) opens the server's root.
        if request.path == PAGES_PREFIX or request.path.startswith(PAGES_PREFIX + "/"):
            return await self.pages(request, body)
        if path == "" and request.method == "GET" and "text/html" in (request.header("Accept") or ""):
            return await self.pages(request, body)
        if path in ("", PREFIX) and request.method == "GET":
            await body.read()
            return 200, {"Message": "Flux RESTful API", "api": PREFIX.strip("/")}
        if not path.startswith(PREFIX + "/"):
            raise HTTPError(404, f"There is no route {path}.")
        parts = path[len(PREFIX) + 1 :].split("/")
        authorization = request.header("Authorization") or request.header(PROXY_AUTHORIZATION)
        if parts == ["token"] and request.method == "POST":
            token = self.credentials.access_token(authorization)
            # Denied with 400, not 401: a client answers a 401 by asking for a token again.
            if token is None:
                raise HTTPError(400, "Denied")
            await body.read()
            return 200, {"access_token": token, "token_type": "Bearer"}
        handler, args = route(request.method, parts)
        if handler is None:
            raise HTTPError(404, f"There is no route {request.method} {path}.")
        # Who asks, before anything else: a stranger's body is never read.
        caller = self.credentials.caller_of(authorization)
        if caller is None:
            raise HTTPError(
                401, "Incorrect user or token.", headers={"WWW-Authenticate": 'Bearer realm="flux-restful"'}
            )
        params = query_params(request.query)
        params.update(await body.params())
        return await self.run(lambda h: handler(h, params, caller, *args))


async def serve(credentials, port, host=None):
    server = HttpServer(Api(credentials))
    bound = await server.start(host, port)
    log(f"serving the Flux RESTful API on port {bound} for {len(credentials.users)} user(s)")
    await server.server.serve_forever()


def main():
    import_flux()
    if len(sys.argv) != 3:
        sys.exit("usage: flux python restful-server.py CREDENTIALS_FILE PORT")
    # Non-dumpable before the credentials are read: no job, running as this uid, can read them.
    stay_private()
    credentials = Credentials.read_once(sys.argv[1])
    port = int(sys.argv[2])
    # Probe the instance once, so a broken Flux shows in the log at once rather than per request.
    flux.Flux()
    threading.current_thread().name = "flux-restful"
    asyncio.run(serve(credentials, port))


if __name__ == "__main__":
    main()
