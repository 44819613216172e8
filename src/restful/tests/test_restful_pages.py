"""Unit tests of the RESTful server's web pages (src/restful/restful_pages.py), served over real
HTTP on a loopback port by the server's own Api, with a small in-memory instance in place of Flux
(Flux's side is the e2e's: test/e2e/scenarios/restful-pages.ts): log in and out, sessions and their
expiry, CSRF refusals, the cookie's flags, escaping, per-field errors, who sees which job, and that
no token reaches a page, a URL or the log. Run with `npm run test:python`."""
import asyncio
import http.client
import json
import re
import threading
from urllib.parse import urlencode

import pytest

from conftest import OTHER, OTHER_TOKEN, TOKEN, USER, credentials, restful_http, server

import restful_pages as pages  # noqa: E402 (conftest puts src/restful on the path)

HOSTILE = "<script>alert(1)</script>"


class Instance:
    """Jobs held in memory, seen and canceled as the Flux backend does: own jobs, or all for an
    administrator; another's job does not exist."""

    def __init__(self):
        self.records = {}

    def add(self, owner, command, output=(), state="RUN"):
        jobid = 1000 + len(self.records)
        self.records[jobid] = {"owner": owner, "command": command, "output": list(output), "state": state,
                               "result": ""}
        return jobid

    def visible(self, caller, text):
        try:
            record = self.records[int(text)]
        except (KeyError, ValueError):
            raise restful_http.HTTPError(404, f"There is no job with id {text!r}.")
        if not caller.admin and record["owner"] != caller.name:
            raise restful_http.HTTPError(404, f"There is no job with id {text!r}.")
        return int(text), record

    def summary(self, jobid, record):
        return {"id": jobid, "jobid": f"f{jobid}", "name": record["command"].split()[0], "user": record["owner"],
                "state": record["state"], "result": record["result"], "nnodes": 1}

    def jobs(self, h, caller):
        return [self.summary(jobid, record) for jobid, record in self.records.items()
                if caller.admin or record["owner"] == caller.name]

    def job(self, h, caller, text):
        jobid, record = self.visible(caller, text)
        return self.summary(jobid, record), {"command": record["command"], "tasks": 1, "cwd": "/tmp"}

    def output(self, h, caller, text):
        return self.visible(caller, text)[1]["output"]

    def stream(self, h, caller, text):
        lines = self.visible(caller, text)[1]["output"]

        def produce(stopped, emit):
            for line in lines:
                emit(line)

        return restful_http.Stream(produce)

    def submit(self, h, caller, params):
        if params["command"] == "refused":
            raise restful_http.HTTPError(400, "There was an issue submitting that job.", extra={"Error": "no"})
        jobid = self.add(caller.name, params["command"])
        self.records[jobid]["params"] = params
        return jobid

    def cancel(self, h, caller, text):
        _, record = self.visible(caller, text)
        record.update(state="INACTIVE", result="CANCELED")

    def node_count(self, h):
        return 2

    def nodes(self, h):
        return {"up": ["api-0", "api-1"], "down": ["api-2"], "drained": [HOSTILE]}


class Served:
    def __init__(self, port, app, instance, clock):
        self.port = port
        self.app = app
        self.instance = instance
        self.clock = clock


@pytest.fixture
def site(tmp_path, monkeypatch):
    """The server with the users flux (an administrator) and peenut, over an Instance, with a
    session clock the test moves (clock[0], seconds)."""
    monkeypatch.setattr(server, "handle", lambda: None)
    monkeypatch.setattr(pages, "LOGIN_FAILURE_SECONDS", 0)
    instance = Instance()
    clock = [1000.0]
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-loop", daemon=True)
    thread.start()
    app = server.Api(credentials(tmp_path), backend=instance)
    app.pages.sessions = pages.Sessions(clock=lambda: clock[0])
    http_server = restful_http.HttpServer(app)
    port = asyncio.run_coroutine_threadsafe(http_server.start("127.0.0.1", 0), loop).result(10)
    yield Served(port, app, instance, clock)
    asyncio.run_coroutine_threadsafe(http_server.close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()
    app.pool.shutdown(wait=True)


class Answer:
    def __init__(self, status, headers, cookies, text):
        self.status = status
        self.headers = headers
        self.cookies = cookies  # the Set-Cookie headers, whole
        self.text = text


class Browser:
    """Cookies kept as a browser keeps them (by name; Max-Age=0 removes), every answer remembered."""

    def __init__(self, port):
        self.port = port
        self.jar = {}
        self.seen = []

    def go(self, method, path, form=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            sent = dict(headers or {})
            if self.jar:
                sent["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.jar.items())
            body = None
            if form is not None:
                body = urlencode(form)
                sent["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8")
            set_cookies = response.msg.get_all("Set-Cookie") or []
            headers = {name.lower(): value for name, value in response.getheaders()}
        finally:
            connection.close()
        for line in set_cookies:
            name, _, rest = line.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in line:
                self.jar.pop(name, None)
            else:
                self.jar[name] = value
        answer = Answer(response.status, headers, set_cookies, text)
        self.seen.append((path, answer))
        return answer

    def get(self, path):
        return self.go("GET", path)

    def post(self, path, form):
        return self.go("POST", path, form)


def csrf_of(text):
    found = re.search(r'name="csrf" value="([^"]+)"', text)
    assert found, text
    return found.group(1)


def logged_in(port, user=USER, token=TOKEN):
    browser = Browser(port)
    form = browser.get("/ui/login")
    answer = browser.post("/ui/login", {"csrf": csrf_of(form.text), "user": user, "token": token})
    assert (answer.status, answer.headers["location"]) == (303, "./"), answer.text
    return browser


def test_the_login_page_and_its_cookie(site):
    browser = Browser(site.port)
    answer = browser.get("/ui/login")
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert '<form method="post" action="login"' in answer.text
    [login_cookie] = answer.cookies
    assert re.fullmatch(r"flux_restful_login=[\w-]{40,}; HttpOnly; SameSite=Strict; Max-Age=3600", login_cookie)
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    assert answer.headers["x-frame-options"] == "DENY"


def test_a_wrong_token_is_refused_without_a_session(site):
    browser = Browser(site.port)
    form = browser.get("/ui/login")
    for user, token in ((USER, "not-the-token"), (USER, OTHER_TOKEN), ("nobody", TOKEN), (USER, "")):
        answer = browser.post("/ui/login", {"csrf": csrf_of(form.text), "user": user, "token": token})
        assert answer.status == 401
        assert "Wrong user or token." in answer.text
        assert pages.SESSION_COOKIE not in browser.jar
        form = answer
    assert browser.get("/ui/").headers["location"] == "login"


def test_login_needs_its_csrf_token(site):
    browser = Browser(site.port)
    browser.get("/ui/login")
    for token in ("", "forged"):
        answer = browser.post("/ui/login", {"csrf": token, "user": USER, "token": TOKEN})
        assert answer.status == 403
        assert pages.SESSION_COOKIE not in browser.jar
    # A form of another browser (its cookie is not this one's).
    other = Browser(site.port)
    other_form = other.get("/ui/login")
    answer = browser.post("/ui/login", {"csrf": csrf_of(other_form.text), "user": USER, "token": TOKEN})
    assert answer.status == 403


def test_a_login_opens_a_session_in_an_httponly_strict_cookie(site):
    browser = Browser(site.port)
    form = browser.get("/ui/login")
    answer = browser.post("/ui/login", {"csrf": csrf_of(form.text), "user": OTHER, "token": OTHER_TOKEN})
    assert answer.status == 303
    [session_cookie] = answer.cookies
    assert re.fullmatch(
        r"flux_restful_session=[\w-]{40,}; HttpOnly; SameSite=Strict; Max-Age=28800", session_cookie
    ), session_cookie
    page = browser.get("/ui/")
    assert page.status == 200
    assert f'<span class="who">{OTHER}</span>' in page.text


def test_each_user_sees_their_own_jobs_an_administrator_all(site):
    mine = site.instance.add(OTHER, "hostname")
    theirs = site.instance.add(USER, "secret-work")
    other = logged_in(site.port, OTHER, OTHER_TOKEN)
    listed = json.loads(other.get("/ui/jobs.json").text)["jobs"]
    assert [job["id"] for job in listed] == [mine]
    assert f"job?id={mine}" in other.get("/ui/").text
    assert "secret-work" not in other.get("/ui/").text
    assert other.get(f"/ui/job?id={theirs}").status == 404
    refused = other.post("/ui/cancel", {"csrf": csrf_of(other.get("/ui/").text), "id": str(theirs)})
    assert refused.status == 404
    assert site.instance.records[theirs]["state"] == "RUN"
    admin = logged_in(site.port)
    assert sorted(job["id"] for job in json.loads(admin.get("/ui/jobs.json").text)["jobs"]) == [mine, theirs]


def test_everything_a_job_prints_or_is_called_is_shown_as_text(site):
    jobid = site.instance.add(USER, f"echo {HOSTILE}", output=[HOSTILE + "\n", "a & b \"quoted\" 'single'\n"])
    browser = logged_in(site.port)
    page = browser.get(f"/ui/job?id={jobid}")
    assert page.status == 200
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "a &amp; b &quot;quoted&quot; &#x27;single&#x27;" in page.text
    table = browser.get("/ui/")
    for text in (page.text, table.text):
        # The only script a page has is the pages' own file.
        assert re.findall(r"<script[^>]*>", text) in ([], ['<script src="pages.js" defer>'])
        assert "alert(1)</script>" not in text.replace("&lt;/script&gt;", "")
    stream = browser.get(f"/ui/output?id={jobid}")
    assert stream.headers["content-type"] == "text/plain; charset=utf-8"
    assert stream.headers["x-content-type-options"] == "nosniff"
    assert stream.text.startswith(HOSTILE)
    # A job id that is HTML is escaped in the refusal too.
    missing = browser.get("/ui/job?id=%3Cb%3E")
    assert missing.status == 404 and "<b>" not in missing.text


def test_every_form_needs_the_session_csrf_token(site):
    jobid = site.instance.add(USER, "sleep 300")
    browser = logged_in(site.port)
    other = logged_in(site.port, OTHER, OTHER_TOKEN)
    foreign = csrf_of(other.get("/ui/").text)
    for token in (None, "", "forged", foreign):
        with_token = {} if token is None else {"csrf": token}
        assert browser.post("/ui/submit", {**with_token, "command": "hostname"}).status == 403
        assert browser.post("/ui/cancel", {**with_token, "id": str(jobid)}).status == 403
        assert browser.post("/ui/logout", with_token).status == 403
    assert len(site.instance.records) == 1
    assert site.instance.records[jobid]["state"] == "RUN"
    assert browser.get("/ui/").status == 200
    # With it, the same forms work.
    csrf = csrf_of(browser.get("/ui/").text)
    canceled = browser.post("/ui/cancel", {"csrf": csrf, "id": str(jobid)})
    assert (canceled.status, canceled.headers["location"]) == (303, f"job?id={jobid}")
    assert site.instance.records[jobid]["result"] == "CANCELED"


def test_forms_without_a_session_are_not_read(site):
    browser = Browser(site.port)
    answer = browser.post("/ui/submit", {"csrf": "x", "command": "hostname"})
    assert (answer.status, answer.headers["location"]) == (303, "login")
    assert browser.get("/ui/jobs.json").status == 401
    assert browser.get("/ui/output?id=1").status == 401
    assert site.instance.records == {}


def test_a_session_expires(site):
    browser = logged_in(site.port)
    site.clock[0] += pages.SESSION_SECONDS - 1
    assert browser.get("/ui/").status == 200
    site.clock[0] += 1
    assert browser.get("/ui/").headers["location"] == "login"
    assert browser.get("/ui/jobs.json").status == 401
    assert site.app.pages.sessions.open_sessions == {}


def test_sessions_are_bounded_oldest_first():
    clock = [0.0]
    sessions = pages.Sessions(limit=3, clock=lambda: clock[0])
    ids = []
    for _ in range(4):
        clock[0] += 1
        ids.append(sessions.open(object())[0])
    assert [sessions.get(sid) is not None for sid in ids] == [False, True, True, True]


def test_logout_ends_the_session(site):
    browser = logged_in(site.port)
    stolen = dict(browser.jar)
    answer = browser.post("/ui/logout", {"csrf": csrf_of(browser.get("/ui/").text)})
    assert (answer.status, answer.headers["location"]) == (303, "login")
    assert "flux_restful_session=; HttpOnly; SameSite=Strict; Max-Age=0" in answer.cookies
    assert pages.SESSION_COOKIE not in browser.jar
    replay = Browser(site.port)
    replay.jar = stolen
    assert replay.get("/ui/").headers["location"] == "login"


def test_the_submit_form_shows_each_error_beside_its_field(site):
    browser = logged_in(site.port)
    csrf = csrf_of(browser.get("/ui/submit").text)
    form = {"csrf": csrf, "command": "echo 'unclosed", "num_nodes": "3", "num_tasks": "x", "cores_per_task": "0",
            "workdir": "relative/dir", "envars": f"GOOD=1\n{HOSTILE}"}
    answer = browser.post("/ui/submit", form)
    assert answer.status == 400
    errors = dict(re.findall(r'data-error="(\w+)">([^<]*)<', answer.text))
    assert sorted(errors) == ["command", "cores_per_task", "envars", "num_nodes", "num_tasks", "workdir"]
    assert "The instance has 2 nodes" in errors["num_nodes"]
    assert "absolute path" in errors["workdir"]
    assert errors["envars"].startswith("Line 2 ")
    # What was typed stays, escaped.
    assert 'value="echo &#x27;unclosed"' in answer.text
    assert "&lt;script&gt;" in answer.text and HOSTILE not in answer.text
    assert site.instance.records == {}
    # Fewer tasks than nodes: Flux would refuse it.
    answer = browser.post("/ui/submit", {"csrf": csrf, "command": "hostname", "num_nodes": "2", "num_tasks": "1"})
    assert answer.status == 400 and re.findall(r'data-error="(\w+)"', answer.text) == ["num_tasks"]
    # The API's own refusal is shown above the form.
    answer = browser.post("/ui/submit", {"csrf": csrf, "command": "refused"})
    assert answer.status == 400 and "There was an issue submitting that job.: no" in answer.text


def test_a_submitted_job_opens_its_page(site):
    browser = logged_in(site.port, OTHER, OTHER_TOKEN)
    csrf = csrf_of(browser.get("/ui/submit").text)
    answer = browser.post("/ui/submit", {"csrf": csrf, "command": "hostname", "num_nodes": "2",
                                         "workdir": "/tmp", "envars": "A=1\nB=two words\n"})
    [jobid] = site.instance.records
    assert (answer.status, answer.headers["location"]) == (303, f"job?id={jobid}")
    params = site.instance.records[jobid]["params"]
    assert params == {"command": "hostname", "num_nodes": 2, "num_tasks": 2, "workdir": "/tmp",
                      "envars": {"A": "1", "B": "two words"}}
    page = browser.get(f"/ui/job?id={jobid}")
    assert '<dd data-spec="command">hostname</dd>' in page.text
    assert 'id="cancel"' in page.text


def test_the_nodes_at_a_glance(site):
    browser = logged_in(site.port)
    page = browser.get("/ui/").text
    assert '<span data-count="up">2</span>' in page and '<span data-count="down">1</span>' in page
    assert "<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>" in page
    assert json.loads(browser.get("/ui/nodes.json").text)["down"] == ["api-2"]


def test_links_are_relative_and_browsers_find_the_pages(site):
    browser = Browser(site.port)
    root = browser.go("GET", "/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert (root.status, root.headers["location"]) == (303, "ui/")
    assert browser.get("/ui").headers["location"] == "ui/"
    # The API's clients still get JSON at the root.
    assert json.loads(browser.get("/").text) == {"Message": "Flux RESTful API", "api": "v1"}
    browser = logged_in(site.port)
    jobid = site.instance.add(USER, "hostname")
    for path in ("/ui/", "/ui/submit", f"/ui/job?id={jobid}"):
        for link in re.findall(r'(?:href|src|action)="([^"]*)"', browser.get(path).text):
            assert not link.startswith(("/", "http:", "https:", "//")), (path, link)
    script = browser.get("/ui/pages.js")
    assert script.status == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "innerHTML" not in script.text
    assert browser.get("/ui/pages.css").headers["content-type"].startswith("text/css")


def test_no_token_reaches_a_page_a_url_or_the_log(site, capsys):
    jobid = site.instance.add(USER, "hostname", output=["api-0\n"])
    browser = Browser(site.port)
    form = browser.get("/ui/login")
    browser.post("/ui/login", {"csrf": csrf_of(form.text), "user": USER, "token": "wrong-" + TOKEN})
    browser.post("/ui/login", {"csrf": csrf_of(browser.seen[-1][1].text), "user": USER, "token": TOKEN})
    session = browser.jar[pages.SESSION_COOKIE]
    csrf = csrf_of(browser.get("/ui/").text)
    for path in ("/ui/", "/ui/submit", f"/ui/job?id={jobid}", "/ui/jobs.json", "/ui/nodes.json",
                 f"/ui/job.json?id={jobid}", f"/ui/output?id={jobid}", "/ui/pages.js", "/ui/nope"):
        browser.get(path)
    browser.post("/ui/submit", {"csrf": csrf, "command": ""})
    browser.post("/ui/submit", {"csrf": csrf, "command": "hostname"})
    browser.post("/ui/logout", {"csrf": csrf})
    assert len(browser.seen) == 16
    for path, answer in browser.seen:
        for secret in (TOKEN, OTHER_TOKEN, session):
            assert secret not in answer.text, path
            assert secret not in answer.headers.get("location", ""), path
            assert secret not in path
    logged = capsys.readouterr()
    assert "logged in" in logged.err
    for secret in (TOKEN, session, csrf):
        assert secret not in logged.out + logged.err


def test_an_option_key_given_with_dash_o_is_refused_in_the_peer_words():
    caller = server.Credentials({"secretKey": "k", "users": {USER: TOKEN}}).caller(USER)
    with pytest.raises(restful_http.HTTPError) as refused:
        server.submit_job(None, {"command": "hostname", "option_flags": {"-ocpu-affinity": "per-task"}}, caller)
    assert refused.value.status == 400
    assert refused.value.body["Message"] == "Invalid submit request"
    [error] = refused.value.body["Errors"]
    # flux-restful-client's test_option_flags matches on these words.
    assert "keys without -o" in error and "-ocpu-affinity" in error


def test_a_jobspec_summary_counts_tasks_across_nodes():
    on_nodes = {
        "resources": [{"type": "node", "count": 2, "with": [
            {"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}]}],
        "tasks": [{"command": ["echo", "a b"], "slot": "task", "count": {"per_slot": 1}}],
        "attributes": {"system": {"cwd": "/tmp", "duration": 0}},
    }
    assert server.jobspec_summary(on_nodes) == {
        "nodes": 2, "cores_per_task": 1, "command": "echo 'a b'", "tasks": 2, "cwd": "/tmp", "duration": "none"}
    on_slots = {
        "resources": [{"type": "slot", "count": 3, "label": "task", "with": [
            {"type": "core", "count": 2}, {"type": "gpu", "count": 1}]}],
        "tasks": [{"command": ["hostname"], "slot": "task", "count": {"per_slot": 1}}],
        "attributes": {"system": {"cwd": "/", "duration": 60}},
    }
    assert server.jobspec_summary(on_slots) == {
        "cores_per_task": 2, "gpus_per_task": 1, "command": "hostname", "tasks": 3, "cwd": "/", "duration": "60.0s"}
    assert server.jobspec_summary({}) == {"cwd": "", "duration": "none"}
