# The web pages of the RESTful server (restful-server.py), under /ui/ beside the API on the same
# port: log in, the jobs table (it refreshes itself), a job's page with its jobspec and its output
# (streamed while it runs), the submit form, cancel, the instance's nodes, log out.
#
# Written for the Flux Operator. Plain HTML made here, with restful_pages.js and restful_pages.css
# (files beside this one) served by the same server: no build step, nothing from the internet. Every
# link is relative and every page sits directly under ui/, so the pages work the same through
# `kubectl port-forward` and through the API server's service proxy (.../services/NAME:PORT/proxy/).
#
# Safety (docs/security.md): a login with an API user's token opens a session, held only in this
# process; its id travels only in a cookie (HttpOnly, SameSite=Strict); every form carries a CSRF
# token bound to the session (the login form one bound to a cookie of its own); every value a page
# shows is escaped; no token appears in a page, a script, a URL or the log. A user sees their own
# jobs, an administrator every job, as through the API.
#
# Flux is reached through a backend (restful-server.py's FluxBackend; the tests give their own), whose
# calls run in the server's Flux threads through run(function) -> awaitable of function(handle).
# Standard library only. Its tests are src/restful/tests/test_restful_pages.py.
import asyncio
import hmac
import html
import json
import os
import re
import secrets
import shlex
import time
from urllib.parse import quote

from restful_http import Answer, HTTPError, log, query_params

PREFIX = "/ui"
SESSION_COOKIE = "flux_restful_session"
LOGIN_COOKIE = "flux_restful_login"
# A session lasts this long from its login, and at most this many are held (the oldest goes first).
SESSION_SECONDS = 8 * 3600
MAX_SESSIONS = 1000
# A refused login answers after this pause, so guessing is slow.
LOGIN_FAILURE_SECONDS = 0.5
ASSETS = {"pages.js": ("restful_pages.js", "text/javascript; charset=utf-8"),
          "pages.css": ("restful_pages.css", "text/css; charset=utf-8")}
# On every page: nothing but this server's own files, no inline script, no framing, no referrer.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
ENVIRONMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SUBMIT_FIELDS = ("command", "num_nodes", "num_tasks", "cores_per_task", "workdir", "envars")


def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def load_assets(folder=None):
    """The pages' script and style sheet, read once from this module's folder."""
    folder = folder or os.path.dirname(os.path.abspath(__file__))
    loaded = {}
    for name, (file, kind) in ASSETS.items():
        with open(os.path.join(folder, file), "rb") as handle:
            loaded[name] = (handle.read(), kind)
    return loaded


class Session:
    def __init__(self, caller, csrf, expires):
        self.caller = caller
        self.csrf = csrf
        self.expires = expires


class Sessions:
    """Logged-in browsers: session id -> Session, in this process only."""

    def __init__(self, seconds=SESSION_SECONDS, limit=MAX_SESSIONS, clock=time.monotonic):
        self.seconds = seconds
        self.limit = limit
        self.clock = clock
        self.open_sessions = {}

    def open(self, caller):
        """A new session's id and Session."""
        while len(self.open_sessions) >= self.limit:
            oldest = min(self.open_sessions, key=lambda key: self.open_sessions[key].expires)
            del self.open_sessions[oldest]
        sid = secrets.token_urlsafe(32)
        session = Session(caller, secrets.token_urlsafe(32), self.clock() + self.seconds)
        self.open_sessions[sid] = session
        return sid, session

    def get(self, sid):
        session = self.open_sessions.get(sid) if sid else None
        if session is not None and session.expires <= self.clock():
            del self.open_sessions[sid]
            return None
        return session

    def close(self, sid):
        self.open_sessions.pop(sid, None)


def cookies_of(request):
    found = {}
    for header in request.headers.get("cookie", ()):
        for pair in header.split(";"):
            name, equals, value = pair.strip().partition("=")
            if equals:
                found.setdefault(name, value)
    return found


def cookie(name, value, max_age):
    # No Path: it defaults to the folder of the page that set it (ui/), wherever that is mounted.
    return f"{name}={value}; HttpOnly; SameSite=Strict; Max-Age={max_age}"


def same(given, expected):
    return isinstance(given, str) and bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def redirect(location, headers=None):
    return Answer(303, b"", headers={"Location": location, **PAGE_HEADERS, **(headers or {})})


def html_answer(status, text, headers=None):
    return Answer(status, text.encode("utf-8"), "text/html; charset=utf-8", {**PAGE_HEADERS, **(headers or {})})


def json_answer(status, data):
    return Answer(status, json.dumps(data, default=str).encode("utf-8"), "application/json", dict(PAGE_HEADERS))


def when(seconds):
    """An epoch time as UTC text, or "" for none."""
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)) if seconds > 0 else ""


# --- HTML -------------------------------------------------------------------------------------


def document(title, main, session=None, script=True):
    nav = ""
    if session is not None:
        nav = (
            '<nav><a href="./">Jobs</a> <a href="submit">Submit</a>'
            f'<span class="who">{esc(session.caller.name)}{" (administrator)" if session.caller.admin else ""}</span>'
            '<form method="post" action="logout" class="inline">'
            f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
            '<button type="submit">Log out</button></form></nav>'
        )
    scripts = '<script src="pages.js" defer></script>' if script else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} - Flux</title><link rel="stylesheet" href="pages.css">{scripts}</head>'
        f"<body><header><h1>Flux</h1>{nav}</header><main>{main}</main></body></html>\n"
    )


def login_page(csrf, user="", error=""):
    problem = f'<p class="error" role="alert">{esc(error)}</p>' if error else ""
    return document(
        "Log in",
        "<h2>Log in</h2>"
        f"{problem}"
        '<form method="post" action="login" class="stacked">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<label>User <input name="user" autocomplete="username" required value="{esc(user)}"></label>'
        '<label>Token <input name="token" type="password" autocomplete="current-password" required></label>'
        '<button type="submit">Log in</button></form>'
        '<p class="hint">The users and tokens are in the Secret &lt;minicluster&gt;-restful.</p>',
        script=False,
    )


JOB_COLUMNS = (("jobid", "Id"), ("name", "Name"), ("user", "User"), ("state", "State"), ("result", "Result"),
               ("nnodes", "Nodes"), ("submitted", "Submitted"), ("started", "Started"), ("ended", "Ended"),
               ("runtime", "Runtime"))


def job_rows(jobs):
    rows = []
    for job in jobs:
        cells = [f'<td><a href="job?id={quote(str(job["id"]))}">{esc(job["jobid"])}</a></td>']
        cells += [f"<td>{esc(job.get(key, ''))}</td>" for key, _ in JOB_COLUMNS[1:]]
        rows.append(f'<tr data-state="{esc(job.get("state"))}" data-result="{esc(job.get("result"))}">'
                    + "".join(cells) + "</tr>")
    return "".join(rows)


def node_lists(nodes):
    parts = []
    for key in ("up", "down", "drained"):
        names = nodes.get(key, [])
        items = "".join(f"<li>{esc(name)}</li>" for name in names)
        parts.append(f'<div class="nodes-{key}"><h3>{key} <span data-count="{key}">{len(names)}</span></h3>'
                     f'<ul data-nodes="{key}">{items}</ul></div>')
    return "".join(parts)


def jobs_page(session, jobs, nodes):
    head = "".join(f"<th>{esc(title)}</th>" for _, title in JOB_COLUMNS)
    return document(
        "Jobs",
        f'<section id="nodes" class="nodes"><h2>Nodes</h2>{node_lists(nodes)}</section>'
        '<section><h2>Jobs</h2>'
        f'<table id="jobs"><thead><tr>{head}</tr></thead><tbody>{job_rows(jobs)}</tbody></table>'
        f'<p class="hint">{"Every job" if session.caller.admin else "Your jobs"}; the table refreshes by itself.</p>'
        "</section>",
        session,
    )


JOB_FIELDS = (("jobid", "Id"), ("id", "Number"), ("name", "Name"), ("user", "User"), ("state", "State"),
              ("result", "Result"), ("returncode", "Exit code"), ("nnodes", "Nodes"), ("nodelist", "Node list"),
              ("ntasks", "Tasks"), ("submitted", "Submitted"), ("started", "Started"), ("ended", "Ended"),
              ("runtime", "Runtime"))
JOBSPEC_FIELDS = (("command", "Command"), ("tasks", "Tasks"), ("nodes", "Nodes"), ("cores_per_task", "Cores per task"),
                  ("gpus_per_task", "GPUs per task"), ("cwd", "Working directory"), ("duration", "Time limit"))


def definitions(data, fields, attribute):
    return "".join(f'<dt>{esc(title)}</dt><dd {attribute}="{esc(key)}">{esc(data.get(key, ""))}</dd>'
                   for key, title in fields)


def job_page(session, job, jobspec, output):
    active = job.get("state") != "INACTIVE"
    cancel = (
        '<form method="post" action="cancel" id="cancel" class="inline">'
        f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
        f'<input type="hidden" name="id" value="{esc(job["id"])}">'
        '<button type="submit" class="danger">Cancel</button></form>'
    ) if active else ""
    return document(
        f"Job {job['jobid']}",
        f'<article id="job" data-job="{esc(job["id"])}" data-active="{"true" if active else "false"}">'
        f'<h2>Job {esc(job["jobid"])} {cancel}</h2>'
        f'<dl class="fields">{definitions(job, JOB_FIELDS, "data-field")}</dl>'
        f'<h3>Jobspec</h3><dl class="fields">{definitions(jobspec, JOBSPEC_FIELDS, "data-spec")}</dl>'
        f'<h3>Output</h3><pre id="output">{esc("".join(output))}</pre></article>',
        session,
    )


def field(name, label, values, errors, kind="text", hint=""):
    error = errors.get(name)
    described = f' aria-describedby="{name}-error" aria-invalid="true"' if error else ""
    message = f'<span class="error" id="{name}-error" data-error="{name}">{esc(error)}</span>' if error else ""
    note = f'<span class="hint">{esc(hint)}</span>' if hint else ""
    if kind == "textarea":
        control = f'<textarea name="{name}" rows="3"{described}>{esc(values.get(name, ""))}</textarea>'
    else:
        control = f'<input name="{name}" type="{kind}" value="{esc(values.get(name, ""))}"{described}>'
    return f'<label>{esc(label)} {control}</label>{note}{message}'


def submit_page(session, values=None, errors=None, problem=""):
    values, errors = values or {}, errors or {}
    general = f'<p class="error" role="alert">{esc(problem)}</p>' if problem else ""
    return document(
        "Submit",
        "<h2>Submit a job</h2>"
        f"{general}"
        '<form method="post" action="submit" class="stacked" novalidate>'
        f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
        + field("command", "Command", values, errors, hint="as on a command line, e.g. hostname")
        + field("num_nodes", "Nodes", values, errors, "number")
        + field("num_tasks", "Tasks", values, errors, "number", "default: the nodes, else 1")
        + field("cores_per_task", "Cores per task", values, errors, "number")
        + field("workdir", "Working directory", values, errors)
        + field("envars", "Environment", values, errors, "textarea", "one KEY=VALUE a line")
        + '<button type="submit">Submit</button></form>',
        session,
    )


def message_page(session, title, message, status):
    return html_answer(status, document(title, f"<h2>{esc(title)}</h2><p>{esc(message)}</p>", session))


# --- the form ---------------------------------------------------------------------------------


def submit_params(form, total_nodes):
    """The API parameters of a submit form, or {field: error} for the fields that are wrong."""
    errors, params = {}, {}
    command = (form.get("command") or "").strip()
    if not command:
        errors["command"] = "Give the command to run."
    else:
        try:
            if not shlex.split(command):
                errors["command"] = "Give the command to run."
        except ValueError as error:
            errors["command"] = f"The command cannot be read: {error}."
    for name, what in (("num_nodes", "nodes"), ("num_tasks", "tasks"), ("cores_per_task", "cores per task")):
        text = (form.get(name) or "").strip()
        if not text:
            continue
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            errors[name] = f"The {what} must be a whole number of at least 1."
        else:
            params[name] = int(text)
    nodes = params.get("num_nodes")
    if nodes is not None and total_nodes is not None and nodes > total_nodes:
        plural = "s" if total_nodes != 1 else ""
        errors["num_nodes"] = f"The instance has {total_nodes} node{plural}: ask for at most that."
    if nodes is not None and "num_tasks" not in errors:
        params.setdefault("num_tasks", nodes)
        if params["num_tasks"] < nodes and "num_nodes" not in errors:
            errors["num_tasks"] = f"Flux needs at least one task a node: give at least {nodes} tasks."
    workdir = (form.get("workdir") or "").strip()
    if workdir:
        if not workdir.startswith("/"):
            errors["workdir"] = "The working directory must be an absolute path (starting with /)."
        else:
            params["workdir"] = workdir
    envars = {}
    for number, line in enumerate((form.get("envars") or "").splitlines(), 1):
        if not line.strip():
            continue
        key, equals, value = line.strip().partition("=")
        if not equals or not ENVIRONMENT_NAME.match(key):
            errors["envars"] = f"Line {number} is not KEY=VALUE with a name of letters, digits and _."
            break
        envars[key] = value
    if envars:
        params["envars"] = envars
    if errors:
        return None, errors
    params["command"] = command
    return params, {}


# --- the pages --------------------------------------------------------------------------------


class Pages:
    """The application of /ui/... (called by restful-server.py's Api with the request and its body)."""

    def __init__(self, credentials, backend, run, sessions=None, assets=None):
        self.credentials = credentials
        self.backend = backend
        self.run = run
        self.sessions = sessions or Sessions()
        self.assets = assets if assets is not None else load_assets()

    async def __call__(self, request, body):
        name = request.path[len(PREFIX) + 1:] if request.path.startswith(PREFIX + "/") else None
        if name is None:
            await body.read()
            return redirect("ui/")
        if name in self.assets and request.method == "GET":
            await body.read()
            data, kind = self.assets[name]
            return Answer(200, data, kind, {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})
        if name == "login":
            return await self.login(request, body)
        sid = cookies_of(request).get(SESSION_COOKIE)
        session = self.sessions.get(sid)
        route = (request.method, name)
        if session is None:
            # Before anything else: without a session, a body is never read.
            if name.endswith(".json") or name == "output":
                raise HTTPError(401, "Log in first (ui/login).")
            return redirect("login")
        if request.method == "POST":
            form = await body.params()
            if not same(form.get("csrf"), session.csrf):
                log(f"user {session.caller.name}: POST {request.path} refused (no valid CSRF token)")
                return message_page(session, "Refused",
                                    "This form is out of date or came from another page: open it again.", 403)
        else:
            await body.read()
            form = query_params(request.query)
        handler = {
            ("GET", ""): self.jobs,
            ("GET", "jobs.json"): self.jobs_json,
            ("GET", "nodes.json"): self.nodes_json,
            ("GET", "job"): self.job,
            ("GET", "job.json"): self.job_json,
            ("GET", "output"): self.output,
            ("GET", "submit"): self.submit_form,
            ("POST", "submit"): self.submit,
            ("POST", "cancel"): self.cancel,
            ("POST", "logout"): self.logout,
        }.get(route)
        if handler is None:
            return message_page(session, "Not found", f"There is no page {name or '/'}.", 404)
        return await handler(session, form, sid)

    async def login(self, request, body):
        cookies = cookies_of(request)
        if request.method == "GET":
            await body.read()
            if self.sessions.get(cookies.get(SESSION_COOKIE)) is not None:
                return redirect("./")
            csrf = secrets.token_urlsafe(32)
            return html_answer(200, login_page(csrf), {"Set-Cookie": cookie(LOGIN_COOKIE, csrf, 3600)})
        if request.method != "POST":
            raise HTTPError(405, "Use GET or POST.")
        form = await body.params()
        user = str(form.get("user") or "")
        csrf = secrets.token_urlsafe(32)
        fresh = {"Set-Cookie": cookie(LOGIN_COOKIE, csrf, 3600)}
        if not same(form.get("csrf"), cookies.get(LOGIN_COOKIE)):
            return html_answer(403, login_page(csrf, user, "This form is out of date: log in again."), fresh)
        if not self.credentials.check(user, str(form.get("token") or "")):
            log("a login to the pages was refused")
            await asyncio.sleep(LOGIN_FAILURE_SECONDS)
            return html_answer(401, login_page(csrf, user, "Wrong user or token."), fresh)
        sid, _ = self.sessions.open(self.credentials.caller(user))
        log(f"user {user} logged in to the pages")
        return redirect("./", {"Set-Cookie": cookie(SESSION_COOKIE, sid, self.sessions.seconds)})

    async def logout(self, session, form, sid):
        self.sessions.close(sid)
        log(f"user {session.caller.name} logged out of the pages")
        return redirect("login", {"Set-Cookie": cookie(SESSION_COOKIE, "", 0)})

    async def jobs(self, session, form, sid):
        jobs = await self.run(lambda h: self.backend.jobs(h, session.caller))
        nodes = await self.run(lambda h: self.backend.nodes(h))
        return html_answer(200, jobs_page(session, jobs, nodes))

    async def jobs_json(self, session, form, sid):
        return json_answer(200, {"jobs": await self.run(lambda h: self.backend.jobs(h, session.caller))})

    async def nodes_json(self, session, form, sid):
        return json_answer(200, await self.run(lambda h: self.backend.nodes(h)))

    async def job(self, session, form, sid):
        jobid = str(form.get("id") or "")
        try:
            job, jobspec = await self.run(lambda h: self.backend.job(h, session.caller, jobid))
            output = await self.run(lambda h: self.backend.output(h, session.caller, jobid))
        except HTTPError as error:
            return message_page(session, "No such job", error.body["Message"], error.status)
        return html_answer(200, job_page(session, job, jobspec, output))

    async def job_json(self, session, form, sid):
        jobid = str(form.get("id") or "")
        job, _ = await self.run(lambda h: self.backend.job(h, session.caller, jobid))
        return json_answer(200, job)

    async def output(self, session, form, sid):
        jobid = str(form.get("id") or "")
        stream = await self.run(lambda h: self.backend.stream(h, session.caller, jobid))
        stream.headers.update({"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})
        return stream

    async def submit_form(self, session, form, sid):
        return html_answer(200, submit_page(session))

    async def submit(self, session, form, sid):
        values = {name: str(form.get(name) or "") for name in SUBMIT_FIELDS}
        total = await self.run(lambda h: self.backend.node_count(h))
        params, errors = submit_params(values, total)
        if errors:
            return html_answer(400, submit_page(session, values, errors))
        try:
            jobid = await self.run(lambda h: self.backend.submit(h, session.caller, params))
        except HTTPError as error:
            details = error.body.get("Errors") or [error.body.get("Error")]
            problem = " ".join([error.body["Message"] + ":"] + [str(item) for item in details if item])
            return html_answer(400, submit_page(session, values, {}, problem))
        return redirect(f"job?id={quote(str(jobid))}")

    async def cancel(self, session, form, sid):
        jobid = str(form.get("id") or "")
        try:
            await self.run(lambda h: self.backend.cancel(h, session.caller, jobid))
        except HTTPError as error:
            return message_page(session, "Not canceled", error.body["Message"], error.status)
        return redirect(f"job?id={quote(jobid)}")
