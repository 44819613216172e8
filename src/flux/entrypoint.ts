/**
 * The per-pod entrypoint: one bash script shared by every pod of a MiniCluster's Job. It prepares the
 * pod (flux present, flux user, directories, certificate, munge, R), finds its role from its hostname
 * and runs the lead broker with the initial program (pod index 0) or a worker broker (the others),
 * passing the TERM or INT that stops the pod on to its broker (see `STOPPING`).
 *
 * Which inputs are raw shell and which are quoted words:
 * - Raw shell, written by the MiniCluster's author and run as they wrote it: the hooks (`init`, `pre`,
 *   `brokerPre`, `workerPre`, `post`: each run with `eval` in the entrypoint's shell, so `export`
 *   in a hook reaches the broker; a hook is a quoted string in the script, so whatever it contains
 *   cannot break the script around it), `prefix` (shell words put in front of `flux start` on every
 *   pod, run as the flux user: the script holds it as a quoted string too and runs
 *   `bash -c "$flux_prefix"' "$@"' flux-prefix <flux start words>`, so the prefix is shell only for
 *   that bash and the broker's words reach it as `"$@"`, quoted),
 *   `submitCommand` (shell words replacing `flux submit`), and the program text (`command`, each
 *   `batch` line, the `batchScript` script), which runs inside the instance under `bash -c`.
 * - Quoted words, reaching their command exactly as given: everything else (names, paths, hostlist,
 *   broker options, `extraOptions`, `jobOptions`, `wrap` arguments, numbers).
 * Every absolute path is a parameter so the script can run anywhere (the tests run it in a temp dir).
 *
 * The script is this input as a prologue of quoted parameters, then a fixed body,
 * `scripts/entrypoint.sh`, which branches on them.
 */
import { FLUX_SCRIPTS } from './scripts/files.ts';
import { shellQuote, shellQuoteWords } from './shell.ts';

export interface EntrypointInput {
  /** The Job's name: pod hostnames are `<jobName>-<index>`, and index 0 is the lead broker. */
  jobName: string;
  /** True on a burst cluster: the lead broker runs elsewhere, so every pod here is a worker. */
  leadIsRemote?: boolean;
  /** Where Flux is installed in the image: `<root>/bin` is put first on PATH (unused with `view`). */
  fluxInstallRoot: string;
  /**
   * Flux from a view (copied into a volume shared with the container by an init container), not
   * from the image: see `FluxViewInput`.
   */
  view?: FluxViewInput;
  /**
   * The instance owner; created if missing. The brokers run as this user (as root when it is root).
   * Unset: the container's own user, as it is (what a Flux view runs as: no user is made).
   */
  fluxUser?: { name: string; uid: number };
  /**
   * The jobs come from users the MiniCluster's author may not trust (the RESTful API): every pod
   * refuses to start unless it starts as root and runs the brokers and jobs as `fluxUser`, not root,
   * so the keys stay root's (docs/security.md).
   */
  keepSecretsFromJobs?: boolean;
  paths: EntrypointPaths;
  /** Who writes R: the operator (already at `paths.resourcePath`) or this pod with `flux R encode`. */
  resource: { writtenBy: 'operator' } | { writtenBy: 'pod'; hostlist: string };
  /**
   * What R lists of each pod and whether Flux binds tasks to cores (docs/mpi.md). Unset: R lists the
   * cores Flux finds and Flux binds as it does by default (right only on a node of one's own).
   */
  placement?: PlacementInput;
  /** Munge (for flux-security): started only when the image has `munged`. */
  munge?: MungeInput;
  broker: BrokerRuntimeOptions;
  program: InitialProgram;
  /**
   * Flux job options (`-o mpi=openmpi@5`, `--setattr=...`), one word each: added to every `flux
   * submit` / `flux batch` the program makes, and exported to the lead broker as `FLUX_OPTION_FLAGS`
   * (for a launcher, a RESTful server or users' scripts to pass on). Never given to `flux start`:
   * the broker accepts only `-v`, `-S`, `-c`/`--config-path` and `--conf`.
   */
  jobOptions?: readonly string[];
  hooks?: EntrypointHooks;
  logging?: EntrypointLogging;
  /**
   * `completeWorkers`: a worker broker that exits with a failure ends its pod with status 0 instead of
   * starting again.
   */
  workerRestart: { delaySeconds: number; maxAttempts?: number; completeWorkers?: boolean };
  /** Folders every pod makes before its broker starts (given to the flux user), e.g. batch output. */
  makeDirs?: readonly string[];
  /** The lead restores Flux's content from this file (`-Scontent.restore`) when it exists. */
  archivePath?: string;
}

/**
 * Flux from a view: a self-contained Flux under `path` (`<path>/bin/flux`, its own munged), whatever
 * the image holds. Its bin goes last on PATH, after the image's own programs; `flux` goes first, as a
 * link in `commandDir` (a folder the entrypoint makes), so every `flux` is the view's, run by its
 * name: `flux` run by a path puts its folder first on its jobs' PATH, before the image's programs.
 */
export interface FluxViewInput {
  path: string;
  commandDir: string;
  /** Added to PYTHONPATH (`flux.container.pythonPath`). */
  pythonPath?: string;
  /**
   * Where to write `export` lines of PATH, PYTHONPATH, `fluxsocket` (the local URI) and `environment`,
   * for users of `kubectl exec` to source.
   */
  environmentFile: string;
  /** Variables the container has already (its env), listed in the file too: shell names only. */
  environment?: Readonly<Record<string, string>>;
  /**
   * The Go Flux Operator's layout (a Spack view, docs/flux-view.md): when the init container copied a
   * view's software to `from` (`<mountPath>/software`), the entrypoint copies it to `to`
   * (/opt/software, where the view's programs load their libraries from) before it starts Flux, puts
   * the view's Python site-packages on PYTHONPATH (unless `pythonPath` is given) and its `lib` on the
   * environment file's LD_LIBRARY_PATH. Which layout the view has is known only in the pod.
   */
  spackSoftware?: { from: string; to: string };
  /** The MiniCluster wants Fluxion: a Spack view's `etc/flux/rc1.d` (Fluxion's) goes on FLUX_RC_EXTRA. */
  fluxion?: boolean;
}

/**
 * What the spec says of the Flux container's CPUs and GPUs. Each pod decides the rest when it starts,
 * from the CPUs it may run on (its cgroup's cpuset): Flux binds tasks to cores only where they are the
 * pod's own; elsewhere (a shared pool, the cores several brokers of a node share) a job's tasks are
 * bound only when the job asks (`-o cpu-affinity=on`), through a job shell initrc of the instance.
 */
export interface PlacementInput {
  /** Where the pod writes that initrc (a folder it makes anew, readable by every job). */
  shellRcDir: string;
  /**
   * The container asks for exactly this many whole CPUs, requests equal to limits (memory too): under
   * the static CPU manager, cores of its own. The pod binds when it may run on exactly that many.
   */
  exclusiveCpus?: number;
  /** Its CPU limit, rounded up: R lists no more cores per pod than this where cores are shared. */
  cpuLimit?: number;
  /** GPUs in its limits (nvidia.com/gpu and the like): R lists ids 0..gpus-1 on every broker. */
  gpus?: number;
}

export interface EntrypointPaths {
  /** Directory holding broker.toml (`flux start -o --config <dir>`). */
  configDir: string;
  /** The certificate as mounted from its Secret (read-only, group/other readable). */
  curveCertSourcePath: string;
  /** Where Flux reads it (broker.toml `curve_cert`): a copy with mode 0400 owned by the flux user. */
  curveCertPath: string;
  /** broker.toml `[resource] path`. */
  resourcePath: string;
  runDir: string;
  stateDir: string;
  /**
   * A folder with `rc1.d/forget-certificate.sh` (rc-scripts.ts), put first on the brokers'
   * FLUX_RC_EXTRA: their rc1 removes the certificate's copy once read. Unset: the copy stays while
   * the broker runs.
   */
  rcExtraDir?: string;
  /**
   * The state volume's mount: where root runs the brokers as a user of their own, the entrypoint makes
   * it root's and 0755 before any broker starts, so that a job can plant no link where root writes.
   */
  sharedDir?: string;
  /**
   * The container's `terminationMessagePath`, where the lead says which program of its command was
   * not found (see `commandProgram`). Unset: Kubernetes' default, `/dev/termination-log`.
   */
  terminationMessagePath?: string;
}

/**
 * munged as Debian/Ubuntu (and RHEL) package it (or, with `daemon`, a munged told every place): those packages leave its runtime directory to
 * systemd (`RuntimeDirectory=munge`), so without systemd the entrypoint makes it, and makes sure of
 * the others. munged 0.5.15 (seen on Debian 12) refuses to start when a directory it checks is
 * missing or writable by group or others, and when the key is not owned by the munge user or is
 * readable by anyone else.
 */
export interface MungeInput {
  /** The key as mounted from its Secret (read-only, group/other readable). */
  keySourcePath: string;
  /** Where munged reads it (its default: `/etc/munge/munge.key`); the key's directory is given to the munge user. */
  keyPath: string;
  /** The user munged runs as; empty: the container's own user (with `daemon`). */
  user: string;
  /**
   * This munged (a view's), run as the container's user with every place given: the key, the socket
   * (`<socketDir>/munge.socket.2`), its pid, log and seed files. Unset: the image's `munged`, as
   * `user`, at its compiled-in places, and only when the image has one.
   */
  daemon?: string;
  /**
   * munged's compiled-in directories: the socket's (`/run/munge`), the PRNG seed's (`/var/lib/munge`)
   * and the log's (`/var/log/munge`). Made here, not passed to munged: Flux's libmunge looks for the
   * socket only at its compiled-in path.
   */
  socketDir: string;
  seedDir: string;
  logDir: string;
}

export interface BrokerRuntimeOptions {
  tbon: { fanout: number } | { topology: string };
  /** 0-7, `-Slog-stderr-level`. */
  logLevel: number;
  /** RFC 23 duration such as "5s": DNS names of new pods can take a while to resolve at scale. */
  connectTimeout: string;
  /** Brokers started now (the Job's parallelism). */
  size: number;
  /** Hosts listed in broker.toml (maximum size plus burst hosts). When more than `size`, the lead
   * starts with quorum `size` and the others join later; without it the program would never start. */
  listedSize: number;
  /**
   * Brokers the instance waits for before it starts (`-Sbroker.quorum`), at most `size`. Unset:
   * `size` when more hosts are listed than start, else Flux's own (all of them).
   */
  quorum?: number;
  /** No `-Slocal-uri`: Flux's default local URI, in the rundir all the same. */
  defaultLocalUri?: boolean;
  /** More broker options, one word each (e.g. `-Sbroker.rc2_none`). */
  extraOptions?: readonly string[];
  /** Run the broker under these arguments: `--wrap=strace,-e,network,-tt`. */
  wrap?: readonly string[];
}

/**
 * What the lead broker does once a program ends: `exit` with the program's status (the MiniCluster
 * finishes with it), or `stayUp` for interactive use, as an instance without a program does.
 */
export type WhenDone = 'exit' | 'stayUp';

/** A program that runs a command; `whenDone` defaults to `exit`. */
interface CommandProgram {
  whenDone?: WhenDone;
}

export type InitialProgram =
  /** No program: the lead broker stays up (`sleep inf`) for users of `flux proxy`. */
  | { kind: 'interactive' }
  /**
   * `command` submitted as one job of `tasks` tasks on `nodes` nodes (Flux refuses more nodes than
   * tasks: then the nodes are left to Flux); the lead exits with the job's exit code.
   */
  | (CommandProgram & {
      kind: 'submit';
      command: string;
      tasks: number;
      nodes?: number;
      submitCommand?: string;
    })
  /**
   * The RESTful API server, run with `flux python` as the flux user: the instance lives as long as
   * it serves. Its credentials file is copied from the Secret mount first (see `copy_secret`).
   */
  | {
      kind: 'restful';
      /** fluxRestful.branch, when given: meaningless here (nothing is cloned), said so in the log. */
      ignoredBranch?: string;
      serverPath: string;
      credentialsSourcePath: string;
      credentialsPath: string;
      port: number;
    }
  /** `command` is itself the initial program (it submits its own jobs). */
  | (CommandProgram & { kind: 'launcher'; command: string })
  /**
   * Each non-empty, non-comment line of `commands` submitted as its own job, then all are awaited.
   * With `outputDir`, job N (from 0, in line order) writes its output to `<outputDir>/job-N.out` and
   * its errors to `job-N.err` there.
   */
  | (CommandProgram & {
      kind: 'batch';
      commands: string;
      tasks?: number;
      nodes?: number;
      outputDir?: string;
    })
  /** `script` submitted with `flux batch` and awaited. */
  | (CommandProgram & { kind: 'batchScript'; script: string; nodes: number; tasks?: number });

/** Raw shell snippets (see the module comment). */
export interface EntrypointHooks {
  /** First thing in every pod, before Flux is looked for. */
  init?: string;
  /** Every pod, after setup, before its broker starts. */
  pre?: string;
  /** The lead pod only, just before the lead broker. */
  brokerPre?: string;
  /** Worker pods only, just before the worker broker. */
  workerPre?: string;
  /** The lead pod, after the lead broker exits. A failure is reported; the exit code stays the program's. */
  post?: string;
  /**
   * Words in front of `flux start` on every pod (a wrapper that sets up mounts, `strace -f`, ...),
   * run as the flux user. Only there: the jobs the program submits run inside that broker already.
   */
  prefix?: string;
}

export interface EntrypointLogging {
  /** Only errors and the program's own output. */
  quiet?: boolean;
  /** `set -x`. */
  debug?: boolean;
  /** `time` the broker. */
  timed?: boolean;
  /** `-Stbon.zmqdebug=1`. */
  zeromq?: boolean;
  /** `set -eEu -o pipefail`: stop at the first failing setup step or hook. */
  strict?: boolean;
}

/**
 * `--watch` streams the job's output into the pod log, waits for the job (it implies `--wait`) and
 * exits with the job's exit code, which thus becomes the lead broker's and the pod's.
 */
const DEFAULT_SUBMIT_COMMAND = 'flux submit --quiet --watch';

/** A name bash can export. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function assertAbsolutePath(name: string, path: string): void {
  if (!path.startsWith('/')) throw new Error(`${name} must be an absolute path, got ${JSON.stringify(path)}`);
}

function assertInteger(
  name: string,
  value: number,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): void {
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new Error(`${name} must be an integer in [${minimum}, ${maximum}], got ${value}`);
  }
}

function validate(input: EntrypointInput): void {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(input.jobName)) {
    throw new Error(`jobName ${JSON.stringify(input.jobName)} is not a DNS label`);
  }
  if (input.fluxUser !== undefined) {
    if (!/^[a-z_][a-z0-9_-]*$/.test(input.fluxUser.name)) {
      throw new Error(`fluxUser.name ${JSON.stringify(input.fluxUser.name)} is not a portable user name`);
    }
    assertInteger('fluxUser.uid', input.fluxUser.uid, 0);
  }
  assertAbsolutePath('fluxInstallRoot', input.fluxInstallRoot);
  if (input.view) {
    assertAbsolutePath('view.path', input.view.path);
    assertAbsolutePath('view.commandDir', input.view.commandDir);
    assertAbsolutePath('view.environmentFile', input.view.environmentFile);
    if (input.view.spackSoftware !== undefined) {
      assertAbsolutePath('view.spackSoftware.from', input.view.spackSoftware.from);
      assertAbsolutePath('view.spackSoftware.to', input.view.spackSoftware.to);
    }
    for (const name of Object.keys(input.view.environment ?? {})) {
      if (!SHELL_NAME.test(name))
        throw new Error(`view.environment: ${JSON.stringify(name)} is not a shell name`);
    }
  }
  for (const [index, dir] of (input.makeDirs ?? []).entries()) assertAbsolutePath(`makeDirs[${index}]`, dir);
  if (input.archivePath !== undefined) assertAbsolutePath('archivePath', input.archivePath);
  for (const [name, path] of Object.entries(input.paths)) assertAbsolutePath(`paths.${name}`, path);
  if (input.munge) {
    for (const name of ['keySourcePath', 'keyPath', 'socketDir', 'seedDir', 'logDir'] as const) {
      assertAbsolutePath(`munge.${name}`, input.munge[name]);
    }
    if (input.munge.daemon !== undefined) assertAbsolutePath('munge.daemon', input.munge.daemon);
    if (input.munge.daemon === undefined && input.munge.user === '')
      throw new Error("munge.user must name the image's munge user when munge.daemon is not given");
  }
  if (input.jobOptions?.some((word) => word.trim() === ''))
    throw new Error('jobOptions must not hold empty words');
  const { broker } = input;
  if ('fanout' in broker.tbon) assertInteger('broker.tbon.fanout', broker.tbon.fanout, 1);
  else if (broker.tbon.topology.trim() === '') throw new Error('broker.tbon.topology must not be empty');
  assertInteger('broker.logLevel', broker.logLevel, 0, 7);
  if (broker.connectTimeout.trim() === '') throw new Error('broker.connectTimeout must not be empty');
  assertInteger('broker.size', broker.size, 1);
  assertInteger('broker.listedSize', broker.listedSize, broker.size);
  if (broker.quorum !== undefined) assertInteger('broker.quorum', broker.quorum, 1, broker.size);
  if (broker.wrap?.some((word) => word.includes(','))) {
    throw new Error('broker.wrap arguments cannot contain commas (flux start splits --wrap at commas)');
  }
  if (input.placement) {
    assertAbsolutePath('placement.shellRcDir', input.placement.shellRcDir);
    const { exclusiveCpus, cpuLimit, gpus } = input.placement;
    if (exclusiveCpus !== undefined) assertInteger('placement.exclusiveCpus', exclusiveCpus, 1);
    if (cpuLimit !== undefined) assertInteger('placement.cpuLimit', cpuLimit, 1);
    if (gpus !== undefined) assertInteger('placement.gpus', gpus, 0);
  }
  assertInteger('workerRestart.delaySeconds', input.workerRestart.delaySeconds, 0);
  if (input.workerRestart.maxAttempts !== undefined) {
    assertInteger('workerRestart.maxAttempts', input.workerRestart.maxAttempts, 1);
  }
  const { program } = input;
  if (program.kind === 'submit') assertInteger('program.tasks', program.tasks, 1);
  if (program.kind === 'batch' && program.outputDir !== undefined)
    assertAbsolutePath('program.outputDir', program.outputDir);
  if ((program.kind === 'batch' || program.kind === 'batchScript') && program.tasks !== undefined) {
    assertInteger('program.tasks', program.tasks, 1);
  }
  if (program.kind === 'restful') {
    assertAbsolutePath('program.serverPath', program.serverPath);
    assertAbsolutePath('program.credentialsSourcePath', program.credentialsSourcePath);
    assertAbsolutePath('program.credentialsPath', program.credentialsPath);
    assertInteger('program.port', program.port, 1, 65535);
  }
  if (
    program.kind !== 'interactive' &&
    program.kind !== 'restful' &&
    program.kind !== 'launcher' &&
    program.nodes !== undefined
  ) {
    assertInteger('program.nodes', program.nodes, 1);
  }
  if (program.kind === 'batchScript') assertInteger('program.nodes', program.nodes, 1);
  if ((program.kind === 'submit' || program.kind === 'launcher') && program.command.trim() === '') {
    throw new Error('program.command must not be empty');
  }
  if (program.kind === 'batchScript' && program.script.trim() === '') {
    throw new Error('program.script must not be empty');
  }
  if (program.kind === 'batch' && batchLines(program.commands).length === 0) {
    throw new Error('program.commands has no command lines');
  }
}

/**
 * The words after `flux start`, shared by the lead and the workers (the lead adds its program).
 * In `-o --config <dir>`, `--config` is the value of `-o` (a broker option), so `flux start` stops
 * reading its own options at `<dir>` and hands the rest to the broker, which reads `--config <dir>`
 * and the `-S` options itself. `--wrap`, an option of `flux start`, must therefore come first.
 */
export function fluxStartWords(input: EntrypointInput): string[] {
  const { broker, paths } = input;
  const words: string[] = [];
  if (broker.wrap && broker.wrap.length > 0) words.push(`--wrap=${broker.wrap.join(',')}`);
  words.push(
    '-o',
    '--config',
    paths.configDir,
    'fanout' in broker.tbon ? `-Stbon.fanout=${broker.tbon.fanout}` : `-Stbon.topo=${broker.tbon.topology}`,
    `-Srundir=${paths.runDir}`,
    `-Sstatedir=${paths.stateDir}`,
    ...(broker.defaultLocalUri ? [] : [`-Slocal-uri=local://${paths.runDir}/local`]),
    `-Slog-stderr-level=${broker.logLevel}`,
    `-Stbon.connect_timeout=${broker.connectTimeout}`,
  );
  if (broker.quorum !== undefined) words.push(`-Sbroker.quorum=${broker.quorum}`);
  else if (broker.listedSize > broker.size) words.push(`-Sbroker.quorum=${broker.size}`);
  if (input.logging?.zeromq) words.push('-Stbon.zmqdebug=1');
  words.push(...(broker.extraOptions ?? []));
  return words;
}

function batchLines(commands: string): string[] {
  return commands
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function joinShellParts(...parts: (string | undefined)[]): string {
  return parts
    .map((part) => part?.trim())
    .filter((part): part is string => part !== undefined && part !== '')
    .join(' ');
}

/**
 * `-n <tasks> -N <nodes>`, leaving out what Flux would refuse: `flux submit` and `flux batch` reject
 * a node count greater than the task (slot) count ("node count must not be greater than task
 * count"), so then only the tasks are asked for and Flux places them (the Go operator's rule). Either
 * alone is valid: `-N` alone gives one task (slot) per node.
 */
export function sizeFlags(tasks: number | undefined, nodes: number | undefined): string[] {
  const words: string[] = [];
  if (tasks !== undefined) words.push('-n', String(tasks));
  if (nodes !== undefined && (tasks === undefined || tasks >= nodes)) words.push('-N', String(nodes));
  return words;
}

/** What the program text needs besides the program. */
export interface ProgramContext {
  /** Added to every submission (see `EntrypointInput.jobOptions`). */
  jobOptions?: readonly string[];
  /** No status line of the operator's own when the program ends and the instance stays up. */
  quiet?: boolean;
}

/** The job options of a submission, quoted: they reach Flux as the words given. */
function submitOptions(
  tasks: number | undefined,
  nodes: number | undefined,
  context: ProgramContext,
): string {
  return shellQuoteWords([...sizeFlags(tasks, nodes), ...(context.jobOptions ?? [])]);
}

/** The shell text of a program that runs a command; its exit status is the program's. */
function commandText(
  program: Exclude<InitialProgram, { kind: 'interactive' } | { kind: 'restful' }>,
  context: ProgramContext,
): string {
  switch (program.kind) {
    case 'submit':
      return joinShellParts(
        program.submitCommand ?? DEFAULT_SUBMIT_COMMAND,
        submitOptions(program.tasks, program.nodes, context),
        program.command,
      );
    case 'launcher':
      return program.command.trim();
    case 'batch': {
      // `waitable` jobs let `flux job wait --all` collect every exit code: it fails if any job failed.
      const { outputDir } = program;
      const submissions = batchLines(program.commands).map((line, index) =>
        joinShellParts(
          'flux submit --quiet --flags=waitable',
          outputDir === undefined
            ? undefined
            : shellQuoteWords([
                `--output=${outputDir}/job-${index}.out`,
                `--error=${outputDir}/job-${index}.err`,
              ]),
          submitOptions(program.tasks, program.nodes, context),
          line,
        ),
      );
      return ['set -e', ...submissions, 'flux job wait --all', ''].join('\n');
    }
    case 'batchScript': {
      const submit = joinShellParts(
        'flux batch --quiet --flags=waitable',
        submitOptions(program.tasks, program.nodes, context),
      );
      // `flux batch` reads the script from stdin when given no file.
      return [
        'set -e -o pipefail',
        `printf '%s\\n' ${shellQuote(program.script)} | ${submit}`,
        'flux job wait --all',
        '',
      ].join('\n');
    }
  }
}

/** True when the lead broker stays up once its program (if any) ended. */
export function staysUp(program: InitialProgram): boolean {
  return program.kind === 'interactive' || program.kind === 'restful' || program.whenDone === 'stayUp';
}

/** Kubernetes' default `terminationMessagePath` of a container. */
export const TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** The longest program name the lead reports. */
const PROGRAM_NAME_MAX = 100;
/** A word bash runs as written: nothing quoted, expanded, globbed or redirected. */
const PLAIN_WORD = /^[A-Za-z0-9_./+,:@-]+$/;
/** A `NAME=value` word in front of a program (for its environment), its value plain too. */
const PLAIN_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_./+,:@=-]*$/;

/**
 * The program a command runs, to name it when it is not found: the command's first word after any
 * `NAME=value` assignments (skipped, their values never kept), when that word is plain and at most
 * PROGRAM_NAME_MAX characters long; undefined otherwise (a quoted or expanded word, a redirection, a
 * subshell: then no program is named). Only that word, never the rest of the command, which may
 * carry anything.
 */
export function commandProgram(command: string): string | undefined {
  for (const word of command.trim().split(/\s+/)) {
    if (PLAIN_ASSIGNMENT.test(word)) continue;
    return PLAIN_WORD.test(word) && word.length <= PROGRAM_NAME_MAX ? word : undefined;
  }
  return undefined;
}

/**
 * The one program whose end is the lead broker's end, when there is one: a submitted command's, or
 * a launcher's (which is the initial program itself). Batches run many, and a program that stays up
 * does not end the lead.
 */
function leadProgram(program: InitialProgram): string | undefined {
  if ((program.kind !== 'submit' && program.kind !== 'launcher') || staysUp(program)) return undefined;
  return commandProgram(program.command);
}

/**
 * The initial program's words after `flux start ... `: `sleep inf`, or `bash -c <shell text>`
 * whose exit code becomes the lead broker's (and so the pod's). A program that stays up hands its
 * text to scripts/stay-up.sh, which runs it in a bash of its own, reports its status and keeps the
 * instance up like an interactive one.
 */
export function initialProgramWords(program: InitialProgram, context: ProgramContext = {}): string[] {
  if (program.kind === 'interactive') return ['sleep', 'inf'];
  if (program.kind === 'restful') {
    return ['flux', 'python', program.serverPath, program.credentialsPath, String(program.port)];
  }
  const text = commandText(program, context);
  if (program.whenDone !== 'stayUp') return ['bash', '-c', text];
  const stayUp = FLUX_SCRIPTS.text('stay-up.sh');
  return ['bash', '-c', stayUp, 'stay-up', text, ...(context.quiet ? ['quiet'] : [])];
}

/** `name=value` with the value quoted: the script's parameters, set once at the top. */
function assignment(name: string, value: string | number): string {
  return `${name}=${shellQuote(String(value))}`;
}

/** `name=(words...)`, each word quoted: a bash array parameter. */
function arrayAssignment(name: string, words: readonly string[]): string {
  return `${name}=(${shellQuoteWords(words)})`;
}

/** `yes` or empty: how the body's switches are set. */
function flag(on: boolean | undefined): string {
  return on ? 'yes' : '';
}

/**
 * The hooks' parameters (`hook_<name>`), each set only when the MiniCluster has that hook: the body
 * runs a hook when its parameter is set, even to an empty text, as it always has.
 */
const HOOK_PARAMETERS = {
  init: 'hook_init',
  pre: 'hook_pre',
  brokerPre: 'hook_broker_pre',
  workerPre: 'hook_worker_pre',
  post: 'hook_post',
} as const;

function hasPrefix(input: EntrypointInput): boolean {
  return (input.hooks?.prefix?.trim() ?? '') !== '';
}

/** The Flux view's parameters (see FluxViewInput). */
function viewParameters(view: FluxViewInput): string[] {
  const lines = [
    assignment('flux_view', view.path),
    assignment('flux_command_dir', view.commandDir),
    assignment('flux_environment_file', view.environmentFile),
  ];
  if (view.spackSoftware !== undefined) {
    lines.push(
      assignment('flux_view_software', view.spackSoftware.from),
      assignment('flux_view_software_dir', view.spackSoftware.to),
      assignment('flux_view_fluxion', flag(view.fluxion)),
    );
  }
  if (view.pythonPath !== undefined) lines.push(assignment('flux_python_path', view.pythonPath));
  const environment = Object.entries(view.environment ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (environment.length > 0) {
    lines.push(
      arrayAssignment(
        'flux_environment',
        environment.map(([name, value]) => `${name}=${value}`),
      ),
    );
  }
  return lines;
}

/** The placement's parameters, each set only when known (see PlacementInput). */
function placementParameters(placement: PlacementInput): string[] {
  const lines = [assignment('placement_shell_rc_dir', placement.shellRcDir)];
  if (placement.exclusiveCpus !== undefined) {
    lines.push(assignment('placement_exclusive_cpus', placement.exclusiveCpus));
  }
  if (placement.cpuLimit !== undefined) lines.push(assignment('placement_cpu_limit', placement.cpuLimit));
  if (placement.gpus !== undefined) lines.push(assignment('placement_gpus', placement.gpus));
  return lines;
}

/** The lead broker's parameters: its initial program and what it needs before it starts. */
function leadParameters(input: EntrypointInput): string[] {
  const context: ProgramContext = {};
  if (input.jobOptions !== undefined) context.jobOptions = input.jobOptions;
  if (input.logging?.quiet) context.quiet = true;
  const { program } = input;
  const lines = [
    arrayAssignment('program_args', initialProgramWords(program, context)),
    assignment('stays_up', flag(staysUp(program))),
  ];
  const programName = leadProgram(program);
  if (programName !== undefined) {
    lines.push(
      // Quoted even when plain (a plain word holds no quote): `program_name=echo` reads to
      // shellcheck as a command's output assigned by mistake (SC2209).
      `program_name='${programName}'`,
      assignment('termination_log', input.paths.terminationMessagePath ?? TERMINATION_MESSAGE_PATH),
    );
  }
  if (input.jobOptions !== undefined && input.jobOptions.length > 0) {
    lines.push(assignment('flux_option_flags', input.jobOptions.join(' ')));
  }
  if (program.kind === 'restful') {
    lines.push(
      assignment('restful_credentials_source', program.credentialsSourcePath),
      assignment('restful_credentials', program.credentialsPath),
      assignment('restful_port', program.port),
    );
    if (program.ignoredBranch !== undefined) {
      lines.push(assignment('restful_ignored_branch', program.ignoredBranch));
    }
  }
  return lines;
}

/**
 * The entrypoint script text (bash): a prologue of the input as quoted parameters, then the fixed
 * body (scripts/entrypoint.sh, which branches on them). Same input, same bytes.
 */
export function entrypointScript(input: EntrypointInput): string {
  validate(input);
  const { paths, logging } = input;
  const header = [
    '#!/bin/bash',
    `# Entrypoint of the pods of Flux MiniCluster job ${input.jobName}, generated by the Flux Operator.`,
    input.leadIsRemote
      ? '# The lead broker runs in another cluster: every pod here runs a worker broker.'
      : `# Pod ${input.jobName}-0 runs the lead broker and the program; the other pods run worker brokers.`,
    '# User snippets are passed in single quotes on purpose: they expand where they run, not here.',
    '# shellcheck disable=SC2016',
    ...(logging?.strict ? ['set -eEu -o pipefail'] : []),
    ...(logging?.debug ? ['set -x'] : []),
  ];

  const parameters = [
    '# The parameters of this MiniCluster (the body below says what each means).',
    assignment('job_name', input.jobName),
    assignment('lead_is_remote', flag(input.leadIsRemote)),
    assignment('flux_user', input.fluxUser?.name ?? ''),
    assignment('flux_uid', input.fluxUser?.uid ?? ''),
    ...(input.keepSecretsFromJobs === true ? [assignment('keep_secrets_from_jobs', 'yes')] : []),
    assignment('flux_install_root', input.fluxInstallRoot),
    assignment('config_dir', paths.configDir),
    assignment('curve_cert_source', paths.curveCertSourcePath),
    assignment('curve_cert', paths.curveCertPath),
    assignment('run_dir', paths.runDir),
    assignment('state_dir', paths.stateDir),
  ];
  if (paths.rcExtraDir !== undefined) parameters.push(assignment('rc_extra_dir', paths.rcExtraDir));
  if (paths.sharedDir !== undefined) parameters.push(assignment('shared_dir', paths.sharedDir));
  if (input.view) parameters.push(...viewParameters(input.view));
  if (input.resource.writtenBy === 'pod') {
    parameters.push(
      assignment('resource_path', paths.resourcePath),
      assignment('resource_hostlist', input.resource.hostlist),
    );
  }
  if (input.placement) parameters.push(...placementParameters(input.placement));
  if (input.munge) {
    if (input.munge.daemon !== undefined) parameters.push(assignment('munge_daemon', input.munge.daemon));
    parameters.push(
      assignment('munge_user', input.munge.user),
      assignment('munge_key_source', input.munge.keySourcePath),
      assignment('munge_key', input.munge.keyPath),
      assignment('munge_socket_dir', input.munge.socketDir),
      assignment('munge_seed_dir', input.munge.seedDir),
      assignment('munge_log_dir', input.munge.logDir),
    );
  }
  if (hasPrefix(input)) parameters.push(assignment('flux_prefix', input.hooks?.prefix?.trim() ?? ''));
  parameters.push(assignment('worker_retry_delay', input.workerRestart.delaySeconds));
  if (input.workerRestart.maxAttempts !== undefined) {
    parameters.push(assignment('worker_max_attempts', input.workerRestart.maxAttempts));
  }
  if (input.workerRestart.completeWorkers) parameters.push(assignment('complete_workers', 'yes'));
  if (input.makeDirs !== undefined && input.makeDirs.length > 0) {
    parameters.push(arrayAssignment('make_dirs', input.makeDirs));
  }
  if (input.archivePath !== undefined) parameters.push(assignment('archive_path', input.archivePath));
  parameters.push(
    assignment('log_quiet', flag(logging?.quiet)),
    assignment('log_timed', flag(logging?.timed)),
    arrayAssignment('start_args', fluxStartWords(input)),
  );
  for (const [name, parameter] of Object.entries(HOOK_PARAMETERS)) {
    const text = input.hooks?.[name as keyof typeof HOOK_PARAMETERS];
    if (text !== undefined) parameters.push(assignment(parameter, text));
  }
  // The body runs the lead part only when the lead broker runs here; the program is set either way.
  parameters.push(...leadParameters(input));

  return [header.join('\n'), parameters.join('\n'), FLUX_SCRIPTS.text('entrypoint.sh')].join('\n\n');
}
