/**
 * `flux-operator jobs submit|list|info|logs|cancel|ui`: a client of a RESTful MiniCluster's API
 * (docs/restful-api.md), reached through the Kubernetes API server's service proxy by MiniCluster
 * name and namespace, or at `--url`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { InputError } from './input-error.ts';
import { isFinished, type JobRecord, type RestfulClient, type SubmitRequest } from './restful-client.ts';

const POLL_MS = 1_000;

interface TargetFlags {
  namespace: string;
  kubeconfig?: string;
  url?: string;
  user?: string;
  token?: string;
}

interface SubmitFlags extends TargetFlags {
  nodes?: number;
  tasks?: number;
  coresPerTask?: number;
  gpusPerTask?: number;
  exclusive?: boolean;
  workdir?: string;
  env: string[];
  option: string[];
  wait?: boolean;
}

export interface JobsOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const STANDARD_OUTPUT: JobsOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(flag: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isSafeInteger(number) || number < 1) {
      throw new InputError([`${flag} must be a whole number >= 1, got ${JSON.stringify(value)}`]);
    }
    return number;
  };
}

function portNumber(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0 || number > 65535) {
    throw new InputError([`--port must be a port number from 0 to 65535, got ${JSON.stringify(value)}`]);
  }
  return number;
}

/** `KEY=VALUE` flags as a map; the flag is named in the error. */
export function keyValues(flag: string, pairs: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals < 1) throw new InputError([`${flag} ${JSON.stringify(pair)}: expected KEY=VALUE`]);
    map[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return map;
}

/** The submit payload of the flags (field names of flux-restful-api's `/v1/jobs/submit`). */
export function submitRequest(words: readonly string[], flags: SubmitFlags): SubmitRequest {
  if (words.length === 0)
    throw new InputError(['give the command to run after --, e.g. jobs submit NAME -- hostname']);
  const request: Record<string, unknown> = { command: words.join(' ') };
  if (flags.tasks !== undefined) request.num_tasks = flags.tasks;
  if (flags.nodes !== undefined) request.num_nodes = flags.nodes;
  if (flags.coresPerTask !== undefined) request.cores_per_task = flags.coresPerTask;
  if (flags.gpusPerTask !== undefined) request.gpus_per_task = flags.gpusPerTask;
  if (flags.exclusive) request.exclusive = true;
  if (flags.workdir !== undefined) request.workdir = flags.workdir;
  if (flags.env.length > 0) request.envars = keyValues('--env', flags.env);
  if (flags.option.length > 0) request.option_flags = keyValues('--option', flags.option);
  return request as unknown as SubmitRequest;
}

async function client(name: string, flags: TargetFlags): Promise<RestfulClient> {
  // flux-restful-client's variables: a token need not be on the command line (nor in its history).
  const user = flags.user ?? process.env.FLUX_USER;
  const token = flags.token ?? process.env.FLUX_TOKEN;
  // Loaded when a jobs command runs: `flux-operator run` registers these commands but never loads
  // the official client they use (docs/performance.md).
  const { loadKubeConfig } = await import('../kube/clients.ts');
  const { restfulClientFor } = await import('./restful-target.ts');
  return restfulClientFor({
    config: () => loadKubeConfig(flags.kubeconfig),
    name,
    namespace: flags.namespace,
    ...(flags.url !== undefined ? { url: flags.url } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(token !== undefined ? { token } : {}),
  });
}

/** Waits for the job to end, writing its output as it comes when `output` is given. */
export async function followJob(
  api: RestfulClient,
  id: string | number,
  output?: (text: string) => void,
): Promise<JobRecord> {
  let written = 0;
  for (;;) {
    // The state first: output read after the job ended is all of it.
    const job = await api.job(id);
    const pieces = await api.output(id);
    if (output) {
      for (const piece of pieces.slice(written)) output(piece);
    }
    written = Math.max(written, pieces.length);
    if (isFinished(job)) return job;
    await sleep(POLL_MS);
  }
}

/** The process exit code for a finished job: its own, or 1 when it has none (canceled, failed to start). */
export function jobExitCode(job: JobRecord): number {
  const code = Number(job.returncode);
  if (job.result === 'COMPLETED') return 0;
  return Number.isInteger(code) && code > 0 ? code : 1;
}

function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

export function jobsTable(jobs: readonly JobRecord[]): string {
  const rows = jobs.map((job) => [
    String(job.id),
    job.jobid ?? '',
    job.name ?? '',
    job.state,
    job.result ?? '',
    String(job.nnodes ?? ''),
    job.runtime === undefined || job.runtime === '' ? '' : `${Number(job.runtime).toFixed(1)}s`,
  ]);
  return table([['ID', 'JOBID', 'NAME', 'STATE', 'RESULT', 'NODES', 'RUNTIME'], ...rows]);
}

function targetOptions(command: Command): Command {
  return command
    .option('-n, --namespace <namespace>', 'namespace of the MiniCluster', 'default')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)')
    .option('--url <url>', "the API's URL (e.g. of a port-forward) instead of the API server's service proxy")
    .option(
      '--user <user>',
      'user of the API (default: $FLUX_USER, else the one in the Secret <name>-restful)',
    )
    .option(
      '--token <token>',
      "the user's token (default: $FLUX_TOKEN, else the one in the Secret <name>-restful)",
    );
}

/** Adds `jobs` and its subcommands to the program. */
export function addJobsCommand(program: Command, io: JobsOutput = STANDARD_OUTPUT): void {
  const jobs = program
    .command('jobs')
    .description(
      'submit, list, follow and cancel jobs of a RESTful MiniCluster through its API (docs/restful-api.md)',
    );

  targetOptions(
    jobs
      .command('submit')
      .description(
        'submit a job; prints its id (with --wait: waits, prints its output, exits with its status)',
      )
      .argument('<minicluster>', 'name of the MiniCluster')
      .argument('<command...>', 'the command, after --'),
  )
    .option('-N, --nodes <n>', 'nodes (num_nodes)', positiveInteger('--nodes'))
    .option('--tasks <n>', 'tasks (num_tasks; default 1, or the nodes)', positiveInteger('--tasks'))
    .option('--cores-per-task <n>', 'cores per task', positiveInteger('--cores-per-task'))
    .option('--gpus-per-task <n>', 'GPUs per task', positiveInteger('--gpus-per-task'))
    .option('--exclusive', 'whole nodes')
    .option('--workdir <dir>', 'working directory of the job')
    .option('--env <KEY=VALUE>', 'an environment variable of the job (repeat)', collect, [])
    .option('--option <KEY=VALUE>', 'a job shell option, as flux submit -o (repeat)', collect, [])
    .option('--wait', 'wait for the job, print its output and exit with its status')
    .action(async (name: string, words: string[], flags: SubmitFlags) => {
      const request = submitRequest(words, flags);
      // Flux refuses more nodes than tasks: one task per node unless told otherwise.
      const sized =
        request.num_nodes !== undefined && request.num_tasks === undefined
          ? { ...request, num_tasks: request.num_nodes }
          : request;
      const api = await client(name, flags);
      const id = await api.submit(sized);
      if (!flags.wait) {
        io.out(`${id}\n`);
        return;
      }
      io.err(`submitted job ${id}\n`);
      const job = await followJob(api, id, io.out);
      io.err(`job ${id}: ${job.result ?? job.state}\n`);
      process.exitCode = jobExitCode(job);
    });

  targetOptions(
    jobs
      .command('list')
      .description("the MiniCluster's jobs")
      .argument('<minicluster>', 'name of the MiniCluster'),
  ).action(async (name: string, flags: TargetFlags) => {
    io.out(jobsTable(await (await client(name, flags)).jobs()));
  });

  targetOptions(
    jobs
      .command('info')
      .description("a job's record, as JSON")
      .argument('<minicluster>', 'name of the MiniCluster')
      .argument('<id>', 'job id'),
  ).action(async (name: string, id: string, flags: TargetFlags) => {
    io.out(`${JSON.stringify(await (await client(name, flags)).job(id), null, 2)}\n`);
  });

  targetOptions(
    jobs
      .command('logs')
      .description("a job's output (stdout and stderr)")
      .argument('<minicluster>', 'name of the MiniCluster')
      .argument('<id>', 'job id'),
  )
    .option('-f, --follow', 'write the output as it comes until the job ends, and exit with its status')
    .action(async (name: string, id: string, flags: TargetFlags & { follow?: boolean }) => {
      const api = await client(name, flags);
      if (!flags.follow) {
        await api.job(id);
        for (const piece of await api.output(id)) io.out(piece);
        return;
      }
      const job = await followJob(api, id, io.out);
      process.exitCode = jobExitCode(job);
    });

  jobs
    .command('ui')
    .description(
      "the MiniCluster's web pages on a local port (a port-forward to its lead pod); prints the URL and forwards until Ctrl-C",
    )
    .argument('<minicluster>', 'name of the MiniCluster')
    .option('-n, --namespace <namespace>', 'namespace of the MiniCluster', 'default')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)')
    .option('--port <port>', 'local port (0: any free one)', portNumber, 0)
    .action(async (name: string, flags: { namespace: string; kubeconfig?: string; port: number }) => {
      const { loadKubeConfig } = await import('../kube/clients.ts');
      const { forwardPages } = await import('./pages-forward.ts');
      const forward = await forwardPages({
        config: loadKubeConfig(flags.kubeconfig),
        name,
        namespace: flags.namespace,
        port: flags.port,
        problem: io.err,
      });
      // The URL alone on the first line (scripts read it); no credential is ever printed.
      io.out(`${forward.url}\n`);
      io.err(
        `the pages of MiniCluster ${flags.namespace}/${name}, forwarded to its Service ${forward.service}; log in with a user ` +
          `and token of Secret ${flags.namespace}/${forward.service} (kubectl get secret -n ${flags.namespace} ${forward.service} ` +
          `-o jsonpath='{.data.token}' | base64 -d); Ctrl-C stops\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await forward.close();
    });

  targetOptions(
    jobs
      .command('cancel')
      .description('cancel a job')
      .argument('<minicluster>', 'name of the MiniCluster')
      .argument('<id>', 'job id'),
  ).action(async (name: string, id: string, flags: TargetFlags) => {
    io.out(`${await (await client(name, flags)).cancel(id)}\n`);
  });
}
