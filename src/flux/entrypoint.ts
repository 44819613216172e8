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
 */
import { shellQuote, shellQuoteWords } from './shell.ts';

export interface EntrypointInput {
  /** The Job's name: pod hostnames are `<jobName>-<index>`, and index 0 is the lead broker. */
  jobName: string;
  /** True on a burst cluster: the lead broker runs elsewhere, so every pod here is a worker. */
  leadIsRemote?: boolean;
  /** Where Flux is installed in the image: `<root>/bin` is put first on PATH. */
  fluxInstallRoot: string;
  /** The instance owner; created if missing. The brokers run as this user (as root when it is root). */
  fluxUser: { name: string; uid: number };
  paths: EntrypointPaths;
  /** Who writes R: the operator (already at `paths.resourcePath`) or this pod with `flux R encode`. */
  resource: { writtenBy: 'operator' } | { writtenBy: 'pod'; hostlist: string };
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
  workerRestart: { delaySeconds: number; maxAttempts?: number };
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
}

/**
 * munged as Debian/Ubuntu (and RHEL) package it: those packages leave its runtime directory to
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
  user: string;
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
  /** Each non-empty, non-comment line of `commands` submitted as its own job, then all are awaited. */
  | (CommandProgram & { kind: 'batch'; commands: string; tasks?: number; nodes?: number })
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
  if (!/^[a-z_][a-z0-9_-]*$/.test(input.fluxUser.name)) {
    throw new Error(`fluxUser.name ${JSON.stringify(input.fluxUser.name)} is not a portable user name`);
  }
  assertInteger('fluxUser.uid', input.fluxUser.uid, 0);
  assertAbsolutePath('fluxInstallRoot', input.fluxInstallRoot);
  for (const [name, path] of Object.entries(input.paths)) assertAbsolutePath(`paths.${name}`, path);
  if (input.munge) {
    for (const name of ['keySourcePath', 'keyPath', 'socketDir', 'seedDir', 'logDir'] as const) {
      assertAbsolutePath(`munge.${name}`, input.munge[name]);
    }
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
  if (broker.wrap?.some((word) => word.includes(','))) {
    throw new Error('broker.wrap arguments cannot contain commas (flux start splits --wrap at commas)');
  }
  assertInteger('workerRestart.delaySeconds', input.workerRestart.delaySeconds, 0);
  if (input.workerRestart.maxAttempts !== undefined) {
    assertInteger('workerRestart.maxAttempts', input.workerRestart.maxAttempts, 1);
  }
  const { program } = input;
  if (program.kind === 'submit') assertInteger('program.tasks', program.tasks, 1);
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
    `-Slocal-uri=local://${paths.runDir}/local`,
    `-Slog-stderr-level=${broker.logLevel}`,
    `-Stbon.connect_timeout=${broker.connectTimeout}`,
  );
  if (broker.listedSize > broker.size) words.push(`-Sbroker.quorum=${broker.size}`);
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
      const submissions = batchLines(program.commands).map((line) =>
        joinShellParts(
          'flux submit --quiet --flags=waitable',
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

/**
 * The initial program's words after `flux start ... `: `sleep inf`, or `bash -c <shell text>`
 * whose exit code becomes the lead broker's (and so the pod's). A program that stays up hands its
 * text to a bash of its own (as `$1` of the outer one: whatever the text does, `exit` or `set -e`
 * included, ends only that bash), reports its status, then keeps the instance up like an
 * interactive one.
 */
export function initialProgramWords(program: InitialProgram, context: ProgramContext = {}): string[] {
  if (program.kind === 'interactive') return ['sleep', 'inf'];
  if (program.kind === 'restful') {
    return ['flux', 'python', program.serverPath, program.credentialsPath, String(program.port)];
  }
  const text = commandText(program, context);
  if (program.whenDone !== 'stayUp') return ['bash', '-c', text];
  const stayUp = [
    'status=0',
    'bash -c "$1" || status=$?',
    ...(context.quiet
      ? []
      : [
          `printf 'flux-operator: %s\\n' "the program exited with status $status; the instance stays up (interactive)"`,
        ]),
    'exec sleep inf',
    '',
  ];
  return ['bash', '-c', stayUp.join('\n'), 'stay-up', text];
}

/** `name=value` with the value quoted: the script's parameters, set once at the top. */
function assignment(name: string, value: string | number): string {
  return `${name}=${shellQuote(String(value))}`;
}

/** The words `as_user` sets, as a bash expansion (kept out of the raw template literal below). */
const AS_USER_COMMAND = '"${as_user_command[@]}"';

/** Shell functions every script uses. */
const HELPER_FUNCTIONS = String.raw`fail() {
  printf 'flux-operator: error: %s\n' "$*" >&2
  exit 1
}

is_root() {
  [ "$(id -u)" -eq 0 ]
}

# Runs a user's shell snippet in this shell, so what it exports reaches the broker.
run_hook() {
  log "running the $1 hook"
  eval "$2"
}

# as_user USER COMMAND...: sets as_user_command to the words that run COMMAND as USER with this
# PATH, using whichever tool the image has.
as_user() {
  local user="$1"
  shift
  if [ "$(id -un)" = "$user" ]; then
    as_user_command=("$@")
  elif is_root && command -v runuser >/dev/null 2>&1; then
    as_user_command=(runuser -u "$user" -- env "PATH=$PATH" "$@")
  elif command -v sudo >/dev/null 2>&1; then
    as_user_command=(sudo -E -u "$user" -- env "PATH=$PATH" "$@")
  elif command -v su >/dev/null 2>&1; then
    as_user_command=(su -p -s /bin/bash -c "$(printf '%q ' env "PATH=$PATH" "$@")" "$user")
  else
    fail "cannot run as $user: the image has none of runuser, sudo, su"
  fi
}

# run_as USER COMMAND...: COMMAND as USER with this PATH.
run_as() {
  as_user "$@"
  ${AS_USER_COMMAND}
}

# copy_secret SOURCE DEST OWNER: a private copy of a Secret file (mounts are group/other readable).
copy_secret() {
  mkdir -p "$(dirname "$2")"
  rm -f "$2"
  cp "$1" "$2"
  chmod 0400 "$2"
  if is_root; then
    chown "$3:$(id -g "$3")" "$2"
  fi
}`;

/**
 * Stopping: a pod's TERM (the pod deleted, the MiniCluster scaled down, its Job finished) or INT
 * reaches the broker. The script is PID 1 of its container: the kernel hands PID 1 only the signals it
 * has a handler for, and bash runs a trap only once its foreground command has ended. So each broker
 * runs in the background while the script `wait`s for it, and the trap passes the signal on.
 *
 * To the broker itself, not to the tool that runs it as the flux user: util-linux `runuser` and `su`
 * (2.38) pass a TERM on to their child but SIGKILL it 2 s later, too soon for a lead broker to shut its
 * instance down, and pass an INT on only when they made a new session; `sudo` relays both and waits;
 * busybox `su` execs the command. The broker is the process named `flux-broker` (`flux-broker-<rank>`
 * once it knows its rank) nearest the background job in the process tree, read from /proc (not every
 * image has `pgrep`, not every kernel has /proc/PID/task/PID/children). When there is none (a prefix
 * or `--wrap` that renames it or runs it in another PID namespace), the background job gets the signal.
 *
 * flux-core 0.88: TERM or INT to the lead broker (rank 0) ends its initial program and shuts the whole
 * instance down; to a worker broker, makes it leave the instance.
 *
 * A plain template literal, not String.raw: `\${` and `\\` are escaped, the rest is the bash text.
 */
const STOPPING = `# The background job running a broker (empty when none runs), the signal that told the pod to
# stop (empty until one did), how many such signals came, and whether the job got the signal.
broker_job=""
stop_signal=""
stop_signals=0
stop_passed=""

# broker_in_tree PID: prints the pid of the broker process nearest PID in its process tree (PID
# included); fails when there is none. A broker names itself flux-broker-RANK once it knows its rank.
broker_in_tree() {
  local file line pid ppid level next depth=0
  local -A name_of=() children_of=()
  for file in /proc/[0-9]*/stat; do
    line=""
    { read -r line <"$file"; } 2>/dev/null || continue
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so cut at the last ")".
    pid="\${line%% *}"
    name_of[$pid]="\${line#*(}"
    name_of[$pid]="\${name_of[$pid]%)*}"
    line="\${line##*) }"
    line="\${line#* }"
    ppid="\${line%% *}"
    children_of[$ppid]="\${children_of[$ppid]-} $pid"
  done
  level="$1"
  # The depth bound keeps a /proc read while pids were reused from looping.
  while [ -n "$level" ] && [ "$depth" -lt 64 ]; do
    next=""
    # shellcheck disable=SC2086 # a list of pids, split on purpose
    for pid in $level; do
      case "\${name_of[$pid]-}" in
        flux-broker | flux-broker-[0-9]*)
          printf '%s\\n' "$pid"
          return 0
          ;;
      esac
      next="$next\${children_of[$pid]-}"
    done
    level="$next"
    depth=$((depth + 1))
  done
  return 1
}

# pass_stop SIGNAL: SIGNAL to the running broker.
pass_stop() {
  local target
  target="$(broker_in_tree "$broker_job")" || target="$broker_job"
  log "passing SIG$1 on to the broker (pid $target)"
  kill -s "$1" "$target" 2>/dev/null || true
  stop_passed=yes
}

# on_stop SIGNAL: the trap of TERM and INT.
on_stop() {
  stop_signal="$1"
  stop_signals=$((stop_signals + 1))
  log "got SIG$1: stopping"
  if [ -n "$broker_job" ]; then
    pass_stop "$1"
  fi
}
trap 'on_stop TERM' TERM
trap 'on_stop INT' INT

# run_broker COMMAND...: COMMAND (flux start, behind the prefix if there is one) as the flux user, in
# the background, waited for until it is gone; its exit status in $status.
run_broker() {
  local seen
  as_user "$flux_user" "$@"
  stop_passed=""
  "\${as_user_command[@]}" &
  broker_job=$!
  # A signal that came while the job was being started has not reached it.
  if [ -n "$stop_signal" ] && [ -z "$stop_passed" ]; then
    pass_stop "$stop_signal"
  fi
  while :; do
    seen="$stop_signals"
    status=0
    wait "$broker_job" || status=$?
    # A trapped signal ends wait early (with 128 + its number): then wait again for the broker's status.
    if [ "$stop_signals" = "$seen" ]; then
      break
    fi
  done
  broker_job=""
}

# pause SECONDS: sleeps, unless told to stop before or meanwhile.
pause() {
  [ -z "$stop_signal" ] || return 0
  sleep "$1" &
  wait "$!" || kill "$!" 2>/dev/null || true
}`;

/**
 * The flux user: used as it is when it exists. A new one gets uid `$flux_uid` unless another user
 * already has it (uid 1000 is `ubuntu` in Ubuntu 24.04 images, and `useradd --uid` then fails "UID
 * 1000 is not unique"): then useradd/adduser choose a free one, and the log says which.
 */
/** `-u <uid>` or nothing; the `+` form keeps an empty array valid under `set -u` in bash < 4.4. */
const UID_OPTION = '${uid_option[@]+"${uid_option[@]}"}';

const SETUP_FLUX_USER = String.raw`# user_with_uid UID: the name of the user that has UID (empty when none has).
user_with_uid() {
  if command -v getent >/dev/null 2>&1; then
    getent passwd "$1" | cut -d: -f1 || true
  else
    local name uid rest
    while IFS=: read -r name _ uid rest; do
      if [ "$uid" = "$1" ]; then
        printf '%s\n' "$name"
        return 0
      fi
    done </etc/passwd
  fi
}

if id -u "$flux_user" >/dev/null 2>&1; then
  log "using the existing user $flux_user (uid $(id -u "$flux_user"))"
else
  uid_owner="$(user_with_uid "$flux_uid")"
  if [ -n "$uid_owner" ]; then
    log "uid $flux_uid belongs to $uid_owner: creating user $flux_user with a free uid"
    uid_option=()
  else
    log "creating user $flux_user (uid $flux_uid)"
    uid_option=(-u "$flux_uid")
  fi
  if command -v useradd >/dev/null 2>&1; then
    useradd ${UID_OPTION} --create-home --shell /bin/bash "$flux_user"
  elif command -v adduser >/dev/null 2>&1; then
    adduser -D ${UID_OPTION} -s /bin/sh "$flux_user"
  else
    fail "user $flux_user does not exist and the image has neither useradd nor adduser"
  fi
  log "created user $flux_user with uid $(id -u "$flux_user")"
fi
mkdir -p "$run_dir" "$state_dir" "$config_dir"
if is_root; then
  chown "$flux_user:$(id -g "$flux_user")" "$run_dir" "$state_dir"
fi
copy_secret "$curve_cert_source" "$curve_cert" "$flux_user"`;

/**
 * munged checks its directories before it starts (see `MungeInput`): each is made here and given to
 * the munge user, not writable by others. The socket's directory stays searchable by everyone:
 * the flux user's brokers connect to the socket in it.
 */
const START_MUNGE = String.raw`# munge_dir DIR MODE: DIR owned by the munge user, with MODE.
munge_dir() {
  mkdir -p "$1"
  if is_root; then
    chown "$munge_user:$(id -g "$munge_user")" "$1"
  fi
  if is_root || [ -O "$1" ]; then
    chmod "$2" "$1"
  fi
}

if command -v munged >/dev/null 2>&1; then
  log "starting munged"
  munge_dir "$munge_socket_dir" 0755
  munge_dir "$munge_seed_dir" 0700
  munge_dir "$munge_log_dir" 0700
  munge_dir "$(dirname "$munge_key")" 0700
  copy_secret "$munge_key_source" "$munge_key" "$munge_user"
  run_as "$munge_user" munged
else
  log "munged is not in the image: not starting munge"
fi`;

/**
 * How a broker starts (`flux start` and the words after it) as the flux user: behind the `prefix`
 * words when there are some. The prefix is the quoted `$flux_prefix`, so its text is shell only for
 * the `bash -c` that runs it, and the broker's words reach it as that bash's `"$@"`, quoted.
 */
function brokerCommand(input: EntrypointInput, after = ''): string {
  const start = `"$flux_bin" start "\${start_args[@]}"${after === '' ? '' : ` ${after}`}`;
  return hasPrefix(input)
    ? `run_broker bash -c "$flux_prefix"' "$@"' flux-prefix ${start}`
    : `run_broker ${start}`;
}

/**
 * The call of a setup hook (init, pre, brokerPre, workerPre). Quiet: its standard output is dropped
 * (errors stay), as the program's output is all a quiet MiniCluster prints; the redirection of a
 * function call keeps it in this shell, so what the hook exports still reaches the broker.
 */
function setupHook(input: EntrypointInput, name: 'init' | 'pre' | 'brokerPre' | 'workerPre'): string[] {
  const text = input.hooks?.[name];
  if (text === undefined) return [];
  return [`run_hook ${name} ${shellQuote(text)}${input.logging?.quiet ? ' >/dev/null' : ''}`];
}

function hasPrefix(input: EntrypointInput): boolean {
  return (input.hooks?.prefix?.trim() ?? '') !== '';
}

function leadSection(input: EntrypointInput, time: string): string[] {
  const context: ProgramContext = {};
  if (input.jobOptions !== undefined) context.jobOptions = input.jobOptions;
  if (input.logging?.quiet) context.quiet = true;
  const programWords = initialProgramWords(input.program, context);
  const lines: string[] = [];
  lines.push(...setupHook(input, 'brokerPre'));
  if (input.jobOptions !== undefined && input.jobOptions.length > 0) {
    lines.push(`export FLUX_OPTION_FLAGS=${shellQuote(input.jobOptions.join(' '))}`);
  }
  const { program } = input;
  if (program.kind === 'restful') {
    lines.push(
      `copy_secret ${shellQuoteWords([program.credentialsSourcePath, program.credentialsPath])} "$flux_user"`,
      `log ${shellQuote(`RESTful instance: the API is served on port ${program.port}`)}`,
    );
    if (program.ignoredBranch !== undefined) {
      lines.push(
        `log ${shellQuote(`fluxRestful.branch ${program.ignoredBranch} is ignored: the server ships with the operator, nothing is cloned`)}`,
      );
    }
  }
  if (staysUp(program)) {
    lines.push('log "interactive instance: connect with flux proxy local://$run_dir/local"');
  }
  lines.push(
    'if [ -n "$stop_signal" ]; then',
    '  log "told to stop (SIG$stop_signal) before the lead broker started"',
    '  exit "$((128 + $(kill -l "$stop_signal")))"',
    'fi',
    'log "starting the lead broker"',
    `${time}${brokerCommand(input, shellQuoteWords(programWords))}`,
    'log "the lead broker exited with status $status"',
  );
  if (input.hooks?.post !== undefined) {
    lines.push(
      `if ! run_hook post ${shellQuote(input.hooks.post)}; then`,
      '  log "the post hook failed"',
      'fi',
    );
  }
  lines.push('exit "$status"');
  return lines;
}

function workerSection(input: EntrypointInput, time: string): string {
  const { maxAttempts } = input.workerRestart;
  const lines: string[] = [];
  lines.push(...setupHook(input, 'workerPre'));
  lines.push(
    '# A worker broker exits 0 when the instance shuts down; anything else is retried so the pod',
    '# rejoins (the lead may not be up yet, or restarted). A pod told to stop is done, whatever the status.',
    'attempt=0',
    'while :; do',
    '  if [ -n "$stop_signal" ]; then',
    '    log "told to stop (SIG$stop_signal): worker done"',
    '    exit 0',
    '  fi',
    '  attempt=$((attempt + 1))',
    '  log "starting a worker broker (attempt $attempt)"',
    `  ${time}${brokerCommand(input)}`,
    '  if [ -n "$stop_signal" ]; then',
    '    log "told to stop (SIG$stop_signal): the worker broker exited with status $status, worker done"',
    '    exit 0',
    '  fi',
    '  if [ "$status" -eq 0 ]; then',
    '    log "the instance shut down: worker done"',
    '    exit 0',
    '  fi',
  );
  if (maxAttempts !== undefined) {
    lines.push(
      `  if [ "$attempt" -ge ${maxAttempts} ]; then`,
      '    printf \'flux-operator: error: worker broker failed %s times, last status %s\\n\' "$attempt" "$status" >&2',
      '    exit "$status"',
      '  fi',
    );
  }
  lines.push(
    '  log "the worker broker exited with status $status: retrying in $worker_retry_delay s"',
    '  pause "$worker_retry_delay"',
    'done',
  );
  return lines.join('\n');
}

/** The entrypoint script text (bash). Same input, same bytes. */
export function entrypointScript(input: EntrypointInput): string {
  validate(input);
  const { paths, logging } = input;
  const time = logging?.timed ? 'time ' : '';
  const sections: string[] = [];

  sections.push(
    [
      '#!/bin/bash',
      `# Entrypoint of the pods of Flux MiniCluster job ${input.jobName}, generated by the Flux Operator.`,
      input.leadIsRemote
        ? '# The lead broker runs in another cluster: every pod here runs a worker broker.'
        : `# Pod ${input.jobName}-0 runs the lead broker and the program; the other pods run worker brokers.`,
      '# User snippets are passed in single quotes on purpose: they expand where they run, not here.',
      '# shellcheck disable=SC2016',
      ...(logging?.strict ? ['set -eEu -o pipefail'] : []),
      ...(logging?.debug ? ['set -x'] : []),
    ].join('\n'),
  );

  const parameters = [
    assignment('job_name', input.jobName),
    assignment('flux_user', input.fluxUser.name),
    assignment('flux_uid', input.fluxUser.uid),
    assignment('flux_install_root', input.fluxInstallRoot),
    assignment('config_dir', paths.configDir),
    assignment('curve_cert_source', paths.curveCertSourcePath),
    assignment('curve_cert', paths.curveCertPath),
    assignment('run_dir', paths.runDir),
    assignment('state_dir', paths.stateDir),
  ];
  if (input.resource.writtenBy === 'pod') {
    parameters.push(
      assignment('resource_path', paths.resourcePath),
      assignment('resource_hostlist', input.resource.hostlist),
    );
  }
  if (input.munge) {
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
  sections.push(parameters.join('\n'));

  sections.push(
    logging?.quiet
      ? "# Quiet: only errors and the program's own output.\nlog() {\n  :\n}"
      : 'log() {\n  printf \'flux-operator: %s\\n\' "$*"\n}',
  );
  sections.push(HELPER_FUNCTIONS, STOPPING);

  sections.push(...setupHook(input, 'init'));

  sections.push(
    [
      'export PATH="$flux_install_root/bin:$PATH"',
      'if ! flux_bin="$(command -v flux)"; then',
      '  fail "flux is not in this container (looked in $flux_install_root/bin and PATH=$PATH): use an image with Flux installed, or set the Flux install root to where it is"',
      'fi',
    ].join('\n'),
  );

  sections.push(
    [
      '# The broker finds its rank by its hostname; index 0 of the Job is the lead broker.',
      'pod_hostname="$(hostname)"',
      'case "$pod_hostname" in',
      '  "$job_name"-*) pod_index="${pod_hostname#"$job_name"-}" ;;',
      '  *) fail "hostname $pod_hostname is not a pod of job $job_name (expected $job_name-<index>)" ;;',
      'esac',
      'case "$pod_index" in',
      '  "" | *[!0-9]*) fail "hostname $pod_hostname does not end in a pod index" ;;',
      'esac',
      input.leadIsRemote ? 'role=worker' : 'if [ "$pod_index" -eq 0 ]; then role=lead; else role=worker; fi',
      'log "pod $pod_hostname: $role"',
    ].join('\n'),
  );

  sections.push(SETUP_FLUX_USER);
  if (input.munge) sections.push(START_MUNGE);
  if (input.resource.writtenBy === 'pod') {
    sections.push(
      [
        'log "writing R for $resource_hostlist"',
        'mkdir -p "$(dirname "$resource_path")"',
        '"$flux_bin" R encode "--hosts=$resource_hostlist" --local >"$resource_path"',
      ].join('\n'),
    );
  }
  sections.push(...setupHook(input, 'pre'));

  sections.push(`start_args=(${shellQuoteWords(fluxStartWords(input))})`);
  if (input.leadIsRemote) {
    sections.push(workerSection(input, time));
  } else {
    sections.push(
      [
        'if [ "$role" = lead ]; then',
        // Indents the statements only: a quoted multi-line word must keep its lines as they are.
        ...leadSection(input, time).map((statement) => `  ${statement}`),
        'fi',
        '',
        workerSection(input, time),
      ].join('\n'),
    );
  }
  return `${sections.join('\n\n')}\n`;
}
