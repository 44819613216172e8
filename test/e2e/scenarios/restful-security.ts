// The RESTful lead against its own users and against strangers, on the real node (docs/security.md):
// a job submitted by an API user searches every file it can read, every process's environment and
// memory it can read, and its own environment for the MiniCluster's secrets, and finds none; a user
// sees and cancels only their own jobs, an administrator all; from inside the lead pod, 500 slow
// connections and hostile requests leave the server answering a well-formed request within 1 s, its
// threads as they were and the lead broker alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { it, type TestContext } from 'node:test';
import { cluster } from '../../harness/cluster.ts';
import { apiUpWithNodes } from '../../harness/restful-api.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { fluxInLead, podAt, realMiniCluster, scenario } from '../../harness/real-node.ts';
import { binDir, readVersions } from '../../../workbench/src/localcluster/index.ts';
import { RestfulApiError, RestfulClient, type ApiLocation } from '../../../src/cli/restful-client.ts';
import { followJob } from '../../../src/cli/jobs-command.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { z85Decode } from '../../../src/flux/z85.ts';
import { GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../../src/api/index.ts';
import { NON_ROOT_START_MESSAGE } from '../../../src/api/shared/restful-schema.ts';
import { API_VERSION } from '../../../src/api/index.ts';
import { PLAIN_IMAGE_REPOSITORY, PLAIN_SUITES } from '../../../workbench/src/images/plain-image.ts';

/**
 * The job that looks for secrets: every regular file of every mounted file system but /proc, /sys
 * and /dev (Secret volumes and emptyDirs included), every process's environ and cmdline and the
 * readable memory of every other process, and its own environment. It is given the secrets masked
 * (each byte XOR 0x5a), so that its own command line does not hold them. Prints one JSON line.
 */
const SEARCH = String.raw`
import base64, json, os, sys
needles = {name: bytes(b ^ 0x5A for b in bytes.fromhex(value)) for name, value in json.loads(base64.b64decode(sys.argv[1])).items()}
found = set()
def scan(where, data):
    for name, needle in needles.items():
        if needle in data:
            found.add(name + " in " + where)
skipped = {"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "securityfs", "debugfs", "tracefs", "bpf", "pstore", "fusectl", "configfs", "hugetlbfs", "binfmt_misc"}
roots = sorted({line.split()[1] for line in open("/proc/self/mounts") if line.split()[2] not in skipped})
files, seen = 0, set()
for root in roots:
    for folder, _, names in os.walk(root):
        if folder.startswith(("/proc/", "/sys/")):
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                status = os.lstat(path)
                if not os.path.isfile(path) or os.path.islink(path) or (status.st_dev, status.st_ino) in seen:
                    continue
                seen.add((status.st_dev, status.st_ino))
                with open(path, "rb") as handle:
                    data = handle.read(64 << 20)
            except OSError:
                continue
            files += 1
            scan(path, data)
me, memories, memory_bytes, processes = os.getpid(), 0, 0, 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    processes += 1
    for part in ("environ", "cmdline"):
        try:
            scan("/proc/" + pid + "/" + part, open("/proc/" + pid + "/" + part, "rb").read())
        except OSError:
            pass
    if int(pid) == me:
        continue
    try:
        maps = open("/proc/" + pid + "/maps").read().splitlines()
        memory = open("/proc/" + pid + "/mem", "rb")
    except OSError:
        continue
    memories += 1
    for line in maps:
        span, permissions = line.split()[:2]
        if "r" not in permissions:
            continue
        start, end = (int(x, 16) for x in span.split("-"))
        try:
            memory.seek(start)
            data = memory.read(end - start)
        except (OSError, ValueError, OverflowError):
            continue
        memory_bytes += len(data)
        scan("/proc/" + pid + "/mem", data)
scan("its own environment", b"\0".join((k + "=" + v).encode() for k, v in os.environ.items()))
print(json.dumps({"host": os.uname()[1], "uid": os.getuid(), "found": sorted(found), "files": files,
                  "processes": processes, "memories": memories, "memoryBytes": memory_bytes,
                  "serviceAccountToken": os.path.exists("/var/run/secrets/kubernetes.io/serviceaccount/token")}))
`;

/** What one task of the search reports. */
interface SearchReport {
  host: string;
  uid: number;
  found: string[];
  files: number;
  processes: number;
  memories: number;
  memoryBytes: number;
  serviceAccountToken: boolean;
}

/**
 * From inside the lead pod (kubectl exec, as root), against the server on loopback: hostile
 * requests, then 500 slow connections; the server's threads and the lead broker before and after.
 * Reads the port and a user's Basic credentials from its stdin (never on a command line).
 */
const SIEGE = String.raw`
import json, os, socket, sys, threading, time
port, authorization = json.loads(sys.stdin.readline())
def process(pattern):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if pattern(open("/proc/" + pid + "/cmdline", "rb").read().split(b"\0")):
                return int(pid)
        except OSError:
            pass
def is_server(args):
    return len(args) > 1 and b"python" in args[0].rsplit(b"/", 1)[-1] and args[1].endswith(b"restful-server.py")
server = process(is_server)
broker = process(lambda args: args[0].rsplit(b"/", 1)[-1].startswith(b"flux-broker"))
def threads():
    for line in open("/proc/%d/status" % server):
        if line.startswith("Threads:"):
            return int(line.split()[1])
def exchange(data, timeout=15):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else None
def well_formed():
    started = time.monotonic()
    status = exchange(("GET /v1/nodes HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nConnection: close\r\n\r\n" % authorization).encode())
    return status, time.monotonic() - started
# The Flux threads warmed up (made as requests need them), so that what follows is compared alike.
warm = [threading.Thread(target=well_formed) for _ in range(24)]
[thread.start() for thread in warm]
[thread.join() for thread in warm]
report = {"threadsBefore": threads(), "brokerBefore": broker}
auth = ("Authorization: %s\r\n" % authorization).encode()
hostile = {
    "garbage": b"GARBAGE\r\n\r\n",
    "http2": b"GET /v1 HTTP/2.0\r\n\r\n",
    "long line": b"GET /v1/" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n",
    "huge header": b"GET /v1 HTTP/1.1\r\nX-Big: " + b"b" * 40000 + b"\r\n\r\n",
    "many headers": b"GET /v1 HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % n for n in range(200)) + b"\r\n",
    "traversal": b"GET /v1/../../etc/passwd HTTP/1.1\r\n" + auth + b"\r\n",
    "encoded traversal": b"GET /v1/jobs/%2e%2e%2f%2e%2e%2fetc%2fpasswd HTTP/1.1\r\n" + auth + b"\r\n",
    "stranger's body": b"POST /v1/jobs/submit HTTP/1.1\r\nContent-Length: 100000\r\n\r\n",
    "body over the limit": b"POST /v1/jobs/submit HTTP/1.1\r\n" + auth + b"Content-Length: 2000000\r\n\r\n",
    "chunked body": b"POST /v1/jobs/submit HTTP/1.1\r\n" + auth + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "invalid JSON": b"POST /v1/jobs/submit HTTP/1.1\r\n" + auth + b"Content-Length: 9\r\n\r\n{not json",
    "deep JSON": b"POST /v1/jobs/submit HTTP/1.1\r\n" + auth + b"Content-Length: 100000\r\n\r\n" + b"[" * 100000,
    "unknown method": b"DELETE /v1/jobs/1 HTTP/1.1\r\n" + auth + b"\r\n",
}
report["hostile"] = {name: exchange(data) for name, data in hostile.items()}
# 500 slow connections: each sends a request head a byte at a time, every 2 s, never finishing it.
flood, started = [], time.monotonic()
for _ in range(500):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setblocking(False)
    sock.send(b"GET /v1/nodes HTTP/1.1\r\nX-Slow: ")
    flood.append(sock)
report["floodOpenedSeconds"] = round(time.monotonic() - started, 2)
times, closed = [], set()
def trickle():
    for index, sock in enumerate(flood):
        if index in closed:
            continue
        try:
            if sock.recv(65536) == b"":
                closed.add(index)
                continue
        except BlockingIOError:
            pass
        except OSError:
            closed.add(index)
            continue
        try:
            sock.send(b"x")
        except OSError:
            closed.add(index)
# The well-formed requests go while the 500 hold their connections (the server has taken them in:
# the oldest beyond 256 are closed at once).
trickle()
time.sleep(1)
deadline = time.monotonic() + 25
while time.monotonic() < deadline and len(closed) < len(flood):
    trickle()
    if len(times) < 10:
        times.append(well_formed())
    time.sleep(2)
report["wellFormed"] = [[status, round(seconds, 3)] for status, seconds in times]
report["slowClosedByServer"] = len(closed)
report["slowClosedWithinSeconds"] = round(time.monotonic() - started, 1)
report["threadsDuringFloodMax"] = threads()
for sock in flood:
    sock.close()
time.sleep(1)
report["threadsAfter"] = threads()
report["brokerAfter"] = broker if os.path.exists("/proc/%d" % broker) else None
report["serverAfter"] = process(is_server) == server
print(json.dumps(report))
`;

interface SiegeReport {
  threadsBefore: number;
  threadsAfter: number;
  threadsDuringFloodMax: number;
  brokerBefore: number;
  brokerAfter: number | null;
  serverAfter: boolean;
  hostile: Record<string, number | null>;
  floodOpenedSeconds: number;
  wellFormed: [number, number][];
  slowClosedByServer: number;
  slowClosedWithinSeconds: number;
}

/** `kubectl exec -i` with `input` on the command's stdin; its stdout. */
async function execWithInput(
  namespace: string,
  pod: string,
  command: string[],
  input: string,
): Promise<string> {
  const { kubeconfig } = await cluster();
  const kubectl = `${binDir(readVersions())}/kubectl`;
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl, [
      '--kubeconfig',
      kubeconfig,
      'exec',
      '-i',
      '-n',
      namespace,
      pod,
      '--',
      ...command,
    ]);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`kubectl exec ${command.join(' ')} exited ${code}: ${stderr}`));
    });
    child.stdin.end(input);
  });
}

async function secretData(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<Record<string, Buffer>> {
  const secret = await clients.core.readNamespacedSecret({ name, namespace });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  );
}

async function refusedWith(promise: Promise<unknown>): Promise<number> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof RestfulApiError, `a RestfulApiError, got ${String(error)}`);
  return error.status;
}

interface RestfulCredentialsFile {
  secretKey: string;
  users: Record<string, string>;
  administrators: string[];
}

/**
 * A job of `client`'s user, on both brokers, searches the pods for every secret of MiniCluster `name`
 * (every user's token, the signing key, the CURVE secret key as written and as bytes, the munge
 * key) and for a canary it is given in its environment, which it must find; asserts that it finds
 * nothing else, runs as uid 1000, has no ServiceAccount token, and searched thousands of files and
 * another process's memory. `python` runs the search (`python3`, or `flux python` on an image without
 * Python). The job's id.
 */
async function searchForSecrets(
  t: TestContext,
  clients: ApiClients,
  namespace: string,
  name: string,
  client: RestfulClient,
  credentials: RestfulCredentialsFile,
  python: string,
): Promise<number> {
  const certificate =
    (await secretData(clients, namespace, `${name}-curve-cert`))['curve.cert']?.toString('utf8') ?? '';
  const curveSecret = /secret-key = "([^"]+)"/.exec(certificate)?.[1] ?? '';
  assert.equal(curveSecret.length, 40);
  const mungeKey =
    (await secretData(clients, namespace, `${name}-munge-key`))['munge.key'] ?? Buffer.alloc(0);
  const canary = randomBytes(24).toString('base64url');
  const needles: Record<string, Buffer> = {
    'the signing key': Buffer.from(credentials.secretKey),
    'the CURVE secret key': Buffer.from(curveSecret),
    'the CURVE secret key bytes': Buffer.from(z85Decode(curveSecret)),
    'the munge key': mungeKey.subarray(0, 64),
    canary: Buffer.from(canary),
    ...Object.fromEntries(
      Object.entries(credentials.users).map(([user, token]) => [`the token of ${user}`, Buffer.from(token)]),
    ),
  };
  const masked = Object.fromEntries(
    Object.entries(needles).map(([needle, value]) => [
      needle,
      Buffer.from(value.map((byte) => byte ^ 0x5a)).toString('hex'),
    ]),
  );
  const argument = Buffer.from(JSON.stringify(masked)).toString('base64');
  const program = Buffer.from(SEARCH).toString('base64');
  const started = Date.now();
  const search = await client.submit({
    command: `${python} -c "import base64, sys; exec(base64.b64decode('${program}'))" ${argument}`,
    num_nodes: 2,
    num_tasks: 2,
    envars: { CANARY: canary },
  });
  const searched = await followJob(client, search);
  assert.equal(searched.result, 'COMPLETED', JSON.stringify(searched));
  const reports = (await client.output(search))
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SearchReport);
  t.diagnostic(`search: ${((Date.now() - started) / 1000).toFixed(1)} s, ${JSON.stringify(reports)}`);
  assert.deepEqual(reports.map((report) => report.host).sort(), [`${name}-0`, `${name}-1`]);
  for (const report of reports) {
    // Only the canary, where it was put; not one secret.
    assert.deepEqual(
      report.found.filter((where) => !where.startsWith('canary in ')),
      [],
      `${report.host}: ${report.found.join(', ')}`,
    );
    assert.ok(report.found.includes('canary in its own environment'), report.found.join(', '));
    assert.equal(report.uid, 1000, 'the job runs as the flux user');
    assert.equal(report.serviceAccountToken, false, 'no ServiceAccount token in the pod');
    // Not vacuous: thousands of files, and the memory of the processes it may read (its shell's).
    assert.ok(report.files > 1000, `${report.files} files`);
    assert.ok(report.memories >= 1 && report.memoryBytes > 0, `${report.memories} processes' memory`);
  }
  return search;
}

export function restfulSecurityScenarios(): void {
  it('RESTful security: an API job finds none of the secrets; users see and cancel only their own jobs; 500 slow connections and hostile requests leave the server answering within 1 s, its threads and the lead broker as they were', async (t) => {
    const { namespace, clients } = await scenario(t, 'restful-sec');
    const users = [{ name: 'peenut' }, { name: 'squidward' }, { name: 'boss', administrator: true }];
    await applyMiniCluster(clients, realMiniCluster(namespace, 'vault', { size: 2, users }));
    await waitForCondition(clients, namespace, 'vault', 'Ready', 'True', 180_000);
    const restful = await secretData(clients, namespace, 'vault-restful');
    const credentials = JSON.parse(
      restful['credentials.json']?.toString('utf8') ?? '{}',
    ) as RestfulCredentialsFile;
    assert.deepEqual(credentials.administrators, ['flux', 'boss']);
    const { kc } = await cluster();
    const location: ApiLocation = { kind: 'proxy', config: kc, namespace, service: 'vault-restful' };
    const as = (user: string) => new RestfulClient(location, { user, token: credentials.users[user] ?? '' });
    const peenut = as('peenut');
    await apiUpWithNodes(peenut, 2);
    const lead = (await podAt(clients, namespace, 'vault')).metadata?.name ?? '';
    const pod = await clients.core.readNamespacedPod({ name: lead, namespace });
    assert.equal(pod.spec?.automountServiceAccountToken, false);

    // 1. The secrets, searched for by a job of an API user.
    const search = await searchForSecrets(t, clients, namespace, 'vault', peenut, credentials, 'python3');
    // 2. Each user sees and cancels only their own jobs; an administrator all of them.
    const squidward = as('squidward');
    const mine = await peenut.submit({ command: 'sleep 600' });
    const theirs = await squidward.submit({ command: 'sleep 600' });
    const ids = async (client: RestfulClient) =>
      (await client.jobs()).map((job) => job.id).sort((a, b) => a - b);
    assert.deepEqual(
      await ids(peenut),
      [search, mine].sort((a, b) => a - b),
    );
    assert.deepEqual(await ids(squidward), [theirs]);
    for (const admin of [as('boss'), as('flux')]) {
      assert.deepEqual(
        await ids(admin),
        [search, mine, theirs].sort((a, b) => a - b),
      );
    }
    assert.equal(await refusedWith(squidward.job(mine)), 404);
    assert.equal(await refusedWith(squidward.output(mine)), 404);
    assert.equal(await refusedWith(squidward.cancel(mine)), 404);
    assert.equal(await refusedWith(squidward.call('GET', `/v1/jobs/${mine}/output/stream`)), 404);
    const searchedBySquidward = (await squidward.call('GET', '/v1/jobs/search?search=sleep')) as {
      data: { id: number }[];
    };
    assert.deepEqual(
      searchedBySquidward.data.map((job) => job.id),
      [theirs],
    );
    assert.equal((await peenut.job(mine)).state, 'RUN');
    assert.equal(await peenut.cancel(mine), 'Job is requested to cancel.');
    assert.equal((await followJob(peenut, mine)).result, 'CANCELED');
    assert.equal(await as('boss').cancel(theirs), 'Job is requested to cancel.');
    assert.equal((await followJob(squidward, theirs)).result, 'CANCELED');

    // 3. From inside the lead pod: hostile requests, then 500 slow connections.
    const basic = `Basic ${Buffer.from(`peenut:${credentials.users.peenut}`).toString('base64')}`;
    const siegeOutput = await execWithInput(
      namespace,
      lead,
      ['python3', '-c', SIEGE],
      `${JSON.stringify([5000, basic])}\n`,
    );
    const siege = JSON.parse(siegeOutput.trim().split('\n').at(-1) ?? '{}') as SiegeReport;
    t.diagnostic(`siege: ${JSON.stringify(siege)}`);
    assert.deepEqual(siege.hostile, {
      garbage: 400,
      http2: 505,
      'long line': 414,
      'huge header': 431,
      'many headers': 431,
      traversal: 404,
      'encoded traversal': 404,
      "stranger's body": 401,
      'body over the limit': 413,
      'chunked body': 411,
      'invalid JSON': 400,
      'deep JSON': 400,
      'unknown method': 501,
    });
    assert.ok(siege.wellFormed.length >= 5, JSON.stringify(siege.wellFormed));
    for (const [status, seconds] of siege.wellFormed) {
      assert.equal(status, 200);
      assert.ok(seconds < 1, `a well-formed request took ${seconds} s during the flood`);
    }
    // Every slow connection closed by the server (the oldest at once beyond 256, the others when
    // their 10 s for a head ran out); the threads as they were; the broker and the server alive.
    assert.equal(siege.slowClosedByServer, 500);
    assert.ok(
      siege.threadsAfter <= siege.threadsBefore,
      `${siege.threadsBefore} -> ${siege.threadsAfter} threads`,
    );
    assert.equal(siege.brokerAfter, siege.brokerBefore);
    assert.equal(siege.serverAfter, true);
    const { stdout: uptime } = await fluxInLead(namespace, lead, ['uptime']);
    assert.match(uptime, /run/);
    assert.deepEqual(await peenut.nodes(), ['vault-0', 'vault-1']);
  });
  it("RESTful from the view on plain:bookworm and plain:trixie (root images, v1alpha2): the API's jobs run as uid 1000 and find none of the secrets, the tokens work for their owners; a Flux container set to start as uid 1000 is refused at apply", async (t) => {
    const { namespace, clients } = await scenario(t, 'restful-view-sec');
    const { kc } = await cluster();
    for (const suite of PLAIN_SUITES) {
      const name = `view-${suite}`;
      const object = realMiniCluster(
        namespace,
        name,
        { size: 2, fluxRestful: {}, users: [{ name: 'peenut' }] },
        { image: `${PLAIN_IMAGE_REPOSITORY}:${suite}` },
      );
      await applyMiniCluster(clients, { ...object, apiVersion: API_VERSION });
      await waitForCondition(clients, namespace, name, 'Ready', 'True', 180_000);
      const restful = await secretData(clients, namespace, `${name}-restful`);
      const credentials = JSON.parse(
        restful['credentials.json']?.toString('utf8') ?? '{}',
      ) as RestfulCredentialsFile;
      const location: ApiLocation = { kind: 'proxy', config: kc, namespace, service: `${name}-restful` };
      const as = (user: string) =>
        new RestfulClient(location, { user, token: credentials.users[user] ?? '' });
      const peenut = as('peenut');
      await apiUpWithNodes(peenut, 2);
      // The plain images have no Python: the search runs on the view's, as a job's program may.
      const search = await searchForSecrets(t, clients, namespace, name, peenut, credentials, 'flux python');
      // Each token works for its owner; a wrong one does not.
      assert.deepEqual(
        (await as('flux').jobs()).map((job) => job.id),
        [search],
      );
      const stranger = new RestfulClient(location, { user: 'peenut', token: credentials.users.flux ?? '' });
      assert.equal(await refusedWith(stranger.jobs()), 401);
      await clients.custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        namespace,
        plural: PLURAL,
        name,
      });
    }
    // A container that starts as uid 1000 would hold the keys as the jobs' own user: refused at apply.
    const asUser = realMiniCluster(
      namespace,
      'as-1000',
      { size: 2, fluxRestful: {} },
      { image: `${PLAIN_IMAGE_REPOSITORY}:trixie`, container: { securityContext: { runAsUser: 1000 } } },
    );
    const refusal = await applyMiniCluster(clients, { ...asUser, apiVersion: API_VERSION }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(refusal instanceof Error, 'the apply is refused');
    assert.match(refusal.message, /securityContext/);
    assert.ok(refusal.message.includes(NON_ROOT_START_MESSAGE), refusal.message);
  });
}
