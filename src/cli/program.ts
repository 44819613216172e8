/**
 * The `flux-operator` command line: its commands and flags, and how errors become exit codes. main.ts
 * loads it once the Node version is known to be recent enough.
 */
import { Command, CommanderError, Option } from 'commander';
import { formatProblem, miniClusterCrd, miniClusterNameProblems } from '../api/index.ts';
import { generateMiniClusterKeys } from '../render/index.ts';
import { INPUT_ERROR_EXIT_CODE, InputError } from './input-error.ts';
import { addJobsCommand } from './jobs-command.ts';
import { parseNodeSelectors, parseTolerations } from './placement-flags.ts';
import { DEFAULT_OPERATOR_WAIT_SECONDS } from './install-wait.ts';
// Each command's module is imported when it runs: `run` (the operator) then loads neither the
// official client (install, burst-status) nor what it does not use (docs/performance.md).

/** What `flux-operator quickstart` says: the command is the workbench's now. */
export const QUICKSTART_MOVED =
  'the quickstart is not part of the operator: it runs from a clone of the repository, where ' +
  '`npm start` (or `npm start -- -f examples/elastic.yaml`) starts the local cluster if needed, runs the operator ' +
  'and a MiniCluster (workbench/, see README.md)';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(): Command {
  const program = new Command('flux-operator')
    .description('Run Flux Framework MiniClusters on Kubernetes')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('render')
    .description('print every Kubernetes object of the MiniClusters in the files, as multi-document YAML')
    // No default: a list default would count as given, and render would read no file at all.
    .requiredOption(
      '-f, --file <file>',
      'MiniCluster manifest (repeatable; a file may hold several documents)',
      collect,
    )
    .addHelpText('after', '\nExample: flux-operator render -f examples/hello-world.yaml')
    .option('--curve-cert <file>', 'use this CURVE certificate instead of generating one')
    .option('--munge-key <file>', 'use this munge key instead of generating one')
    .option(
      '--flux-view-image <image>',
      "the Flux view image of v1alpha2 MiniClusters that name none (as the operator's --flux-view-image)",
    )
    .action(
      async (options: { file: string[]; curveCert?: string; mungeKey?: string; fluxViewImage?: string }) => {
        const renderOptions: {
          files: string[];
          curveCertFile?: string;
          mungeKeyFile?: string;
          fluxViewImage?: string;
        } = { files: options.file };
        if (options.curveCert !== undefined) renderOptions.curveCertFile = options.curveCert;
        if (options.mungeKey !== undefined) renderOptions.mungeKeyFile = options.mungeKey;
        if (options.fluxViewImage !== undefined) renderOptions.fluxViewImage = options.fluxViewImage;
        const { renderFiles } = await import('./render-command.ts');
        process.stdout.write(await renderFiles(renderOptions));
      },
    );

  program
    .command('run')
    .description('run the operator: reconcile MiniClusters until stopped')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config or in-cluster)')
    .option(
      '-n, --namespace <namespace>',
      'watch only this namespace (repeatable; default: all)',
      collect,
      [],
    )
    .option('--leader-elect', 'elect one active replica through a Lease', false)
    .option(
      '--allow-host-storage <namespace>',
      'allow hostpath and CSI storage in this namespace besides those labelled flux-framework.org/host-storage=allowed (repeatable)',
      collect,
      [],
    )
    .option(
      '--leader-election-namespace <namespace>',
      'namespace of the Lease (default: $POD_NAMESPACE or default)',
    )
    .option('--metrics-addr <address>', 'serve /metrics here; 0 disables', '127.0.0.1:8080')
    .option(
      '--metrics-secure',
      'serve /metrics over HTTPS (a certificate made at start) to bearer tokens the API server authenticates and allows to get /metrics (the ClusterRole flux-operator-metrics-reader), as kube-rbac-proxy did; for an address the pod network reaches',
      false,
    )
    .option('--health-addr <address>', 'serve /healthz and /readyz here; 0 disables', '127.0.0.1:8081')
    .option('--log-level <level>', 'trace, debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json, or pretty for humans', 'json')
    .option('--concurrency <n>', 'MiniClusters reconciled at once', (value) => Number(value), 4)
    .option(
      '--operator-image <image>',
      'image installed on burst target clusters (default: $OPERATOR_IMAGE, set by the Deployment, or the release image)',
    )
    .option(
      '--webhook-addr <address>',
      'serve the v1alpha1/v1alpha2 conversion webhook here (default 127.0.0.1:0, any free port, whose URL goes into the CRD); 0 serves none',
    )
    .option(
      '--webhook-service <namespace/name>',
      'in cluster: the Service in front of the webhook, which the CRD names (the Deployment sets it)',
    )
    .option(
      '--leave-crd-conversion',
      "serve the conversion webhook but leave the CRD's conversion where it points (another operator's webhook, or tests' shared one)",
      false,
    )
    .option(
      '--flux-view-image <image>',
      'the Flux view image of MiniClusters that name none (default: ghcr.io/converged-computing/flux-view-ubuntu:tag-noble)',
    )
    .action(
      async (options: {
        kubeconfig?: string;
        namespace: string[];
        leaderElect: boolean;
        leaderElectionNamespace?: string;
        metricsAddr: string;
        metricsSecure: boolean;
        healthAddr: string;
        logLevel: string;
        logFormat: string;
        concurrency: number;
        operatorImage?: string;
        webhookAddr?: string;
        webhookService?: string;
        leaveCrdConversion: boolean;
        fluxViewImage?: string;
        allowHostStorage: string[];
      }) => {
        const { runOperator } = await import('./run-command.ts');
        process.exitCode = await runOperator({
          ...(options.leaveCrdConversion ? { leaveCrdConversion: true } : {}),
          ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
          ...(options.operatorImage !== undefined ? { operatorImage: options.operatorImage } : {}),
          ...(options.webhookAddr !== undefined ? { webhookAddr: options.webhookAddr } : {}),
          ...(options.webhookService !== undefined ? { webhookService: options.webhookService } : {}),
          ...(options.fluxViewImage !== undefined ? { fluxViewImage: options.fluxViewImage } : {}),
          ...(options.allowHostStorage.length > 0 ? { hostStorageNamespaces: options.allowHostStorage } : {}),
          ...(options.leaderElectionNamespace !== undefined
            ? { leaderElectionNamespace: options.leaderElectionNamespace }
            : {}),
          namespaces: options.namespace,
          leaderElect: options.leaderElect,
          metricsAddr: options.metricsAddr,
          ...(options.metricsSecure ? { metricsSecure: true } : {}),
          healthAddr: options.healthAddr,
          logLevel: options.logLevel,
          logFormat: options.logFormat,
          concurrency: options.concurrency,
        });
      },
    );

  program
    .command('install')
    .description(
      "install the MiniCluster CRD and the operator's RBAC (and, with --with-deployment, the operator)",
    )
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)')
    .option('--namespace <namespace>', 'namespace the operator is installed in')
    .option('--with-deployment', 'also install the operator Deployment', false)
    .option('--image <image>', 'operator image for the Deployment')
    .option('--replicas <n>', 'Deployment replicas: one leads, the others stand by', (value) => Number(value))
    .option(
      '--watch-namespace <namespace>',
      'a namespace the operator watches (repeat; default: all)',
      collect,
      [],
    )
    .option('--node-selector <key=value>', "a label the operator's node must have (repeat)", collect, [])
    .option('--toleration <key[=value]:Effect>', 'a taint the operator tolerates (repeat)', collect, [])
    .option(
      '--allow-host-storage <namespace>',
      'allow MiniClusters in this namespace hostpath and CSI storage (labels it; repeat). Elsewhere they are refused',
      collect,
      [],
    )
    .option(
      '--flux-view-image <image>',
      "the Flux view image of MiniClusters that name none (the operator's --flux-view-image)",
    )
    .option(
      '--leave-crd-conversion',
      "the operator leaves the CRD's conversion where it points, and so does the install (the operator's --leave-crd-conversion)",
      false,
    )
    .option(
      '--wait-seconds <n>',
      `with --with-deployment: wait this long for a Ready operator pod, saying what it waits on (default ${DEFAULT_OPERATOR_WAIT_SECONDS}; 0: do not wait)`,
      (value) => Number(value),
    )
    .action(
      async (options: {
        kubeconfig?: string;
        namespace?: string;
        withDeployment: boolean;
        leaveCrdConversion: boolean;
        image?: string;
        fluxViewImage?: string;
        replicas?: number;
        watchNamespace: string[];
        nodeSelector: string[];
        toleration: string[];
        allowHostStorage: string[];
        waitSeconds?: number;
      }) => {
        const { installCommand } = await import('./install-command.ts');
        await installCommand({
          ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
          ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
          ...(options.image !== undefined ? { image: options.image } : {}),
          ...(options.fluxViewImage !== undefined ? { fluxViewImage: options.fluxViewImage } : {}),
          ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
          ...(options.leaveCrdConversion ? { leaveCrdConversion: true } : {}),
          ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
          watchNamespaces: options.watchNamespace,
          nodeSelector: parseNodeSelectors(options.nodeSelector),
          tolerations: parseTolerations(options.toleration),
          allowHostStorage: options.allowHostStorage,
          withDeployment: options.withDeployment,
        });
      },
    );

  addJobsCommand(program);

  // The quickstart starts the local cluster and builds images: it belongs to the workbench beside the
  // operator in the repository (workbench/), not to the operator's package. Someone who learnt
  // `flux-operator quickstart` is told where it went rather than "unknown command".
  program
    .command('quickstart', { hidden: true })
    .description('moved: the quickstart is `npm start` in a clone of the repository (the workbench)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      process.stderr.write(`error: ${QUICKSTART_MOVED}\n`);
      process.exitCode = 1;
    });

  const burst = program.command('burst').description('bursting: plan and inspect burst clusters');
  burst
    .command('plan')
    .description(
      'print what the burst planner would do for a MiniCluster and a Flux queue snapshot (dry run)',
    )
    .requiredOption(
      '-f, --file <file>',
      'MiniCluster manifest (its spec.flux.bursting.clusters are the burst slots)',
    )
    .requiredOption('--queue <file>', 'queue snapshot JSON (see src/burst/queue-file.ts)')
    .option('--policy <file>', 'burst policy JSON (default: the built-in policy)')
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .action(async (options: { file: string; queue: string; policy?: string; output: 'text' | 'json' }) => {
      const { burstPlanCommand } = await import('./burst-plan-command.ts');
      process.stdout.write(
        await burstPlanCommand({
          file: options.file,
          queueFile: options.queue,
          ...(options.policy !== undefined ? { policyFile: options.policy } : {}),
          format: options.output,
        }),
      );
    });

  burst
    .command('status')
    .description('show MiniClusters with burst slots, their burst clusters and jobs, and the burst targets')
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG or ~/.kube/config)')
    .option('-n, --namespace <namespace>', 'only this namespace (default: all)')
    .action(async (options: { kubeconfig?: string; namespace?: string }) => {
      const { burstStatusCommand } = await import('./burst-status-command.ts');
      process.stdout.write(
        await burstStatusCommand({
          ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
          ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        }),
      );
    });

  program
    .command('keygen')
    .description('print a new CURVE certificate (zcert format) for a MiniCluster')
    .option('--name <name>', 'MiniCluster the certificate is for (its metadata name)', 'flux-sample')
    .action((options: { name: string }) => {
      // The certificate names its MiniCluster and lead host (<name>-0): the smallest MiniCluster's rule.
      const problems = miniClusterNameProblems(options.name, 1, '--name');
      if (problems.length > 0) throw new InputError(problems.map(formatProblem));
      process.stdout.write(generateMiniClusterKeys(options.name).curveCertificate);
    });

  program
    .command('convert')
    .description('print v1alpha1 MiniCluster manifests as v1alpha2 (other documents as they are)')
    .requiredOption(
      '-f, --file <file>',
      'manifest to convert (repeatable; a file may hold several documents)',
      collect,
    )
    .addHelpText(
      'after',
      '\nExample: flux-operator convert -f examples/hello-world.yaml > hello-world.v1alpha2.yaml',
    )
    .action(async (options: { file: string[] }) => {
      const { convertFiles } = await import('./convert-command.ts');
      process.stdout.write(await convertFiles(options.file));
    });

  program
    .command('crd')
    .description('print the MiniCluster CustomResourceDefinition')
    .action(async () => {
      const { stringify } = await import('yaml');
      process.stdout.write(stringify(miniClusterCrd(), { lineWidth: 0 }));
    });

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof InputError) {
      for (const problem of error.problems) process.stderr.write(`error: ${problem}\n`);
      return INPUT_ERROR_EXIT_CODE;
    }
    if (error instanceof CommanderError) {
      // Commander printed the message already; help and version are not failures.
      return error.exitCode === 0 ? 0 : INPUT_ERROR_EXIT_CODE;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
