/**
 * Maps a defaulted MiniCluster spec onto the inputs of the pure Flux artifacts (src/flux). Every
 * decision about what the Flux instance looks like from the spec is made here.
 */
import { FLAT_TOPOLOGY, userBrokerConfigFacts, type UserBrokerConfigFacts } from '../api/index.ts';
import {
  burstClusterHostEntries,
  expandBrokerHosts,
  miniClusterHostEntries,
  brokerHostlist,
  SPACK_SOFTWARE_DIR,
  type BrokerConfigInput,
  type BrokerHostEntry,
  type EntrypointInput,
  type InitialProgram,
} from '../flux/index.ts';
import {
  CONFIG_DIR,
  CURVE_CERT_FILE,
  CURVE_CERT_MOUNT_DIR,
  MUNGE_KEY_FILE,
  MUNGE_KEY_MOUNT_DIR,
  MUNGE_KEY_PATH,
  MUNGE_LOG_DIR,
  MUNGE_SEED_DIR,
  MUNGE_SOCKET_DIR,
  OPERATOR_DIR,
  RESOURCE_SPEC_FILE,
  DEFAULT_BATCH_OUTPUT_DIR,
  scriptFile,
  type PodLayout,
} from './paths.ts';
import { layoutOf } from './layout.ts';
import { placementInput } from './placement.ts';
import type { DefaultedContainer, DefaultedMiniCluster } from './model.ts';
import { namespaceOf, type MiniClusterNames } from './names.ts';
import { restfulProgram, servesRestful } from './restful.ts';

/** Flux's default tree (`kary:2`), unless the instance spans clusters or has a minimal Service. */
const DEFAULT_TOPOLOGY = 'kary:2';
const WORKER_RETRY_DELAY_SECONDS = 5;
/**
 * A worker broker that keeps failing ends its pod after this many starts (an hour of retries): long
 * enough for a lead that is slow to start, and a bound on what a job that kills its broker over and
 * over can make the entrypoint (root) do again.
 */
const WORKER_MAX_ATTEMPTS = 720;
/**
 * `-Slog-stderr-level` with `logging.quiet`: errors and worse only. The brokers' info lines are not
 * the job's output (the Go operator's quiet mode printed none of them).
 */
const QUIET_LOG_LEVEL = 3;

/** The one container that runs Flux (defaulting guarantees exactly one). */
export function fluxContainer(miniCluster: DefaultedMiniCluster): DefaultedContainer {
  const container = miniCluster.spec.containers.find((candidate) => candidate.runFlux);
  if (!container) throw new Error(`MiniCluster ${miniCluster.metadata.name} has no container with runFlux`);
  return container;
}

/** True when this MiniCluster's brokers join an instance whose lead broker runs elsewhere. */
export function joinsAnotherInstance(miniCluster: DefaultedMiniCluster): boolean {
  const { flux } = miniCluster.spec;
  return flux.bursting?.leadBroker !== undefined || flux.bootServer !== undefined;
}

/**
 * The instance has brokers in more than one MiniCluster. Every broker of an instance must compute
 * the same tree, so both sides (lead and burst, first and connected) choose the flat one.
 */
function spansClusters(miniCluster: DefaultedMiniCluster): boolean {
  const bursting = miniCluster.spec.flux.bursting;
  return joinsAnotherInstance(miniCluster) || (bursting?.clusters?.length ?? 0) > 0;
}

/**
 * Only rank 0 can be reached by name: across clusters only the lead is exposed (so a burst broker
 * must never get a local worker, or another burst broker, as its parent), and with a minimal Service
 * only the lead has a DNS record. A flat tree makes rank 0 every broker's parent.
 */
function onlyLeadReachable(miniCluster: DefaultedMiniCluster): boolean {
  return spansClusters(miniCluster) || miniCluster.spec.flux.minimalService === true;
}

/** The rank-ordered `[[bootstrap.hosts]]` entries, identical (but for rank 0's alias) on every side. */
export function brokerHostEntries(miniCluster: DefaultedMiniCluster): BrokerHostEntry[] {
  const { spec, metadata } = miniCluster;
  const bursting = spec.flux.bursting;
  if (bursting?.hostlist) return [{ host: bursting.hostlist }];
  const slots = (bursting?.clusters ?? []).map((cluster) => ({ name: cluster.name, size: cluster.size }));
  const lead = bursting?.leadBroker;
  if (lead) {
    // The external side: this MiniCluster fills its slot (named, or named like it): pods `<slot>-<i>`.
    const ownSlot = bursting.slot ?? metadata.name;
    const ownSlots = slots.some((slot) => slot.name === ownSlot)
      ? slots
      : [...slots, { name: ownSlot, size: spec.maxSize }];
    return burstClusterHostEntries({
      lead: { name: lead.name, maxSize: lead.size },
      leadAlias: `${lead.name}-0`,
      leadAddress: lead.address,
      leadPort: lead.port,
      burstSlots: ownSlots,
      ownSlot,
    });
  }
  if (spec.flux.bootServer !== undefined && spec.flux.bootServerSize !== undefined) {
    // Connecting in one cluster: the first MiniCluster's hosts, then this one's as its burst slot.
    return miniClusterHostEntries({
      name: spec.flux.bootServer,
      maxSize: spec.flux.bootServerSize,
      burstSlots: [{ name: metadata.name, size: spec.maxSize }],
    });
  }
  return miniClusterHostEntries({ name: metadata.name, maxSize: spec.maxSize, burstSlots: slots });
}

/** Hosts in rank order, as R must name them. */
export function brokerHosts(miniCluster: DefaultedMiniCluster): string[] {
  return expandBrokerHosts(brokerHostEntries(miniCluster));
}

/** What the user's own broker.toml says about the pod's files; nothing without one. */
function userBrokerConfig(miniCluster: DefaultedMiniCluster): UserBrokerConfigFacts {
  const text = miniCluster.spec.flux.brokerConfig;
  return text === undefined ? {} : userBrokerConfigFacts(text);
}

const OPERATOR_RESOURCE_SPEC_PATH = `${OPERATOR_DIR}/${RESOURCE_SPEC_FILE}`;

/**
 * R is written by the operator when the cores per pod are known; otherwise each pod encodes it, as
 * it also does when the user's broker.toml reads R from another path than the operator's.
 */
export function operatorWritesResourceSpec(miniCluster: DefaultedMiniCluster): boolean {
  const userPath = userBrokerConfig(miniCluster).resourcePath;
  return (
    fluxContainer(miniCluster).cores !== undefined &&
    (userPath === undefined || userPath === OPERATOR_RESOURCE_SPEC_PATH)
  );
}

/** Where the brokers read R: where the user's broker.toml says, else where the operator puts it. */
export function resourceSpecPath(miniCluster: DefaultedMiniCluster): string {
  return (
    userBrokerConfig(miniCluster).resourcePath ??
    (operatorWritesResourceSpec(miniCluster)
      ? OPERATOR_RESOURCE_SPEC_PATH
      : layoutOf(miniCluster).podResourceSpecPath)
  );
}

export function brokerConfigInput(
  miniCluster: DefaultedMiniCluster,
  names: MiniClusterNames,
): BrokerConfigInput {
  const config: BrokerConfigInput = {
    curveCertPath: layoutOf(miniCluster).curveCertPath,
    hosts: brokerHostEntries(miniCluster),
    serviceName: names.service,
    namespace: namespaceOf(miniCluster),
    // The hardware of a pod is whatever its node gives; Flux would drain ranks whose R differs.
    resource: { path: resourceSpecPath(miniCluster), noverify: true },
    // The instance owner is the flux user while pods start as root (the entrypoint drops privileges).
    access: { allowGuestUser: true, allowRootOwner: true },
  };
  const { scheduler } = miniCluster.spec.flux;
  if (scheduler?.queuePolicy !== undefined) config.queuePolicy = scheduler.queuePolicy;
  // flux-core's scheduler: what runs anyway where Fluxion is not installed (the view, the local images).
  if (scheduler?.simple === true) config.scheduler = 'sched-simple';
  return config;
}

/**
 * The lead broker's program. With `interactive`, a command still runs as the job it would be (its
 * output in the lead's log), and the instance then stays up like one without a command.
 */
export function initialProgram(miniCluster: DefaultedMiniCluster): InitialProgram {
  const container = fluxContainer(miniCluster);
  const { spec } = miniCluster;
  const command = commandOf(container);
  if (!command) return servesRestful(miniCluster) ? restfulProgram(miniCluster) : { kind: 'interactive' };
  const whenDone = spec.interactive ? { whenDone: 'stayUp' as const } : {};
  if (container.launcher) return { kind: 'launcher', command, ...whenDone };
  if (container.batch && container.batchRaw)
    return { kind: 'batchScript', script: command, nodes: spec.size, ...whenDone };
  if (container.batch) {
    return {
      kind: 'batch',
      commands: command,
      tasks: spec.tasks,
      outputDir: batchOutputDir(container),
      ...whenDone,
    };
  }
  // `-N size` only where Flux takes it (tasks >= size): the entrypoint's sizeFlags decides.
  const program: InitialProgram = {
    kind: 'submit',
    command,
    tasks: spec.tasks,
    nodes: spec.size,
    ...whenDone,
  };
  if (spec.flux.submitCommand !== undefined) program.submitCommand = spec.flux.submitCommand;
  return program;
}

/** The Flux container's command: its text, or its script (commands.script) run with bash. */
function commandOf(container: DefaultedContainer): string | undefined {
  if (container.commands.script !== undefined)
    return `/bin/bash ${OPERATOR_DIR}/${scriptFile(container.name)}`;
  return container.command?.trim();
}

/** Where the jobs of a batch command write their output (`logs`), on every pod. */
function batchOutputDir(container: DefaultedContainer): string {
  return container.logs ?? DEFAULT_BATCH_OUTPUT_DIR;
}

/** Splits user option text into words the way a shell would split plain words. */
function words(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((word) => word !== '');
}

/** A name bash can export: only these go into the view's environment file. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Where Flux is and who runs it. From the view: the container's own user (as the Go operator's
 * view does), with the view's environment file. From the image: its install root, and the flux
 * user (root with runFluxAsRoot).
 */
function fluxSource(
  miniCluster: DefaultedMiniCluster,
  container: DefaultedContainer,
  layout: PodLayout,
): Pick<EntrypointInput, 'fluxInstallRoot' | 'fluxUser' | 'view' | 'keepSecretsFromJobs'> {
  const { flux } = miniCluster.spec;
  // The API's users' jobs run as the flux user, never as the container's own user (root in most
  // images), who holds the keys: from the view too (docs/security.md).
  const restful = servesRestful(miniCluster);
  if (layout.view) {
    const environment = Object.entries(flux.environment ?? {}).filter(([name]) => SHELL_NAME.test(name));
    return {
      fluxInstallRoot: layout.view.path,
      view: {
        path: layout.view.path,
        commandDir: layout.view.commandDir,
        environmentFile: layout.view.environmentFile,
        spackSoftware: { from: layout.view.spackSoftware, to: SPACK_SOFTWARE_DIR },
        fluxion: flux.scheduler?.simple !== true,
        ...(flux.container.pythonPath !== undefined ? { pythonPath: flux.container.pythonPath } : {}),
        ...(environment.length > 0 ? { environment: Object.fromEntries(environment) } : {}),
      },
      ...(restful ? { fluxUser: container.fluxUser, keepSecretsFromJobs: true } : {}),
    };
  }
  return {
    fluxInstallRoot: flux.installRoot,
    // runFluxAsRoot: the brokers run as root, which the entrypoint does when the user is root.
    fluxUser: container.commands.runFluxAsRoot ? { name: 'root', uid: 0 } : container.fluxUser,
    ...(restful ? { keepSecretsFromJobs: true } : {}),
  };
}

export function entrypointInput(miniCluster: DefaultedMiniCluster, names: MiniClusterNames): EntrypointInput {
  const { spec } = miniCluster;
  const container = fluxContainer(miniCluster);
  const hosts = brokerHostEntries(miniCluster);
  const listedSize = expandBrokerHosts(hosts).length;
  const topology = spec.flux.topology ?? (onlyLeadReachable(miniCluster) ? FLAT_TOPOLOGY : DEFAULT_TOPOLOGY);
  // optionFlags are job options (`-o mpi=...`): the broker refuses them, the submissions take them.
  const jobOptions = words(spec.flux.optionFlags);
  const extraOptions: string[] = [];
  // Flux writes its content to this file when the instance exits, to be restored by a later one.
  if (spec.archive) extraOptions.push(`-Scontent.dump=${spec.archive.path}`);

  const broker: EntrypointInput['broker'] = {
    tbon: { topology },
    logLevel: spec.logging.quiet ? Math.min(spec.flux.logLevel, QUIET_LOG_LEVEL) : spec.flux.logLevel,
    connectTimeout: spec.flux.connectTimeout,
    size: spec.size,
    listedSize,
    extraOptions,
  };
  // minSize: Flux starts once that many brokers are up (its quorum); the others join when they come.
  if (spec.minSize !== undefined) broker.quorum = Math.min(spec.minSize, spec.size);
  if (spec.flux.disableSocket === true) broker.defaultLocalUri = true;
  if (spec.flux.wrap !== undefined) broker.wrap = spec.flux.wrap.split(',').filter((word) => word !== '');

  const { commands } = container;
  const hooks: EntrypointInput['hooks'] = {};
  for (const hook of ['init', 'pre', 'brokerPre', 'workerPre', 'post', 'prefix'] as const) {
    const value = commands[hook];
    if (value !== undefined) hooks[hook] = value;
  }

  const layout = layoutOf(miniCluster);
  const { view } = layout;
  const keySourcePath = `${MUNGE_KEY_MOUNT_DIR}/${MUNGE_KEY_FILE}`;
  return {
    jobName: names.job,
    leadIsRemote: joinsAnotherInstance(miniCluster),
    ...fluxSource(miniCluster, container, layout),
    paths: {
      configDir: CONFIG_DIR,
      curveCertSourcePath: `${CURVE_CERT_MOUNT_DIR}/${CURVE_CERT_FILE}`,
      // The brokers read the certificate where broker.toml says: the user's own may name another place.
      curveCertPath: userBrokerConfig(miniCluster).curveCertPath ?? layout.curveCertPath,
      resourcePath: resourceSpecPath(miniCluster),
      runDir: layout.runDir,
      stateDir: layout.fluxStateDir,
      // The ConfigMap's files: rc1.d/forget-certificate.sh removes the certificate's copy once read.
      rcExtraDir: OPERATOR_DIR,
      sharedDir: layout.stateRoot,
    },
    resource: operatorWritesResourceSpec(miniCluster)
      ? { writtenBy: 'operator' }
      : { writtenBy: 'pod', hostlist: brokerHostlist(hosts) },
    placement: placementInput(miniCluster, container),
    // The view's munged runs as the container's user, told every place; the image's as `munge`.
    munge: view
      ? { keySourcePath, ...view.munge, user: '' }
      : {
          keySourcePath,
          keyPath: MUNGE_KEY_PATH,
          user: 'munge',
          socketDir: MUNGE_SOCKET_DIR,
          seedDir: MUNGE_SEED_DIR,
          logDir: MUNGE_LOG_DIR,
        },
    broker,
    program: initialProgram(miniCluster),
    ...(jobOptions.length > 0 ? { jobOptions } : {}),
    hooks,
    logging: { ...spec.logging },
    workerRestart: {
      delaySeconds: WORKER_RETRY_DELAY_SECONDS,
      maxAttempts: WORKER_MAX_ATTEMPTS,
      ...(spec.flux.completeWorkers === true ? { completeWorkers: true } : {}),
    },
    // Flux dumps its content there when the instance exits (above); the next lead loads it.
    ...(spec.archive ? { archivePath: spec.archive.path } : {}),
    ...(container.batch && !container.batchRaw && commandOf(container) !== undefined
      ? { makeDirs: [batchOutputDir(container)] }
      : {}),
  };
}
