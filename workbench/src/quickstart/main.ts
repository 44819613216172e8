/**
 * The quickstart's command line: `npm start [-- -f FILE] [--kubeconfig F] [--timeout S]` at the root of
 * the repository runs this file. It is the workbench's, not the operator's: it starts the local cluster
 * and builds images when there is no cluster, which the operator's package does not ship
 * (`flux-operator quickstart` only says so). Errors end as the operator's CLI ends them.
 */
import { Command, CommanderError } from 'commander';
import { INPUT_ERROR_EXIT_CODE, InputError } from '../../../src/cli/input-error.ts';

export function buildQuickstartProgram(): Command {
  return new Command('npm start --')
    .description(
      'use the configured cluster (or start the local control plane and its real node), install the CRD, run the operator, apply a MiniCluster and follow it until it finishes (or is Ready)',
    )
    .showHelpAfterError()
    .exitOverride()
    .option('-f, --file <file>', 'MiniCluster manifest', 'examples/hello-world.yaml')
    .option(
      '--kubeconfig <file>',
      'cluster to use (default: $KUBECONFIG, ~/.kube/config, else the local control plane)',
    )
    .option('--timeout <seconds>', 'give up after this long', (value) => Number(value), 300)
    .action(async (options: { file: string; kubeconfig?: string; timeout: number }) => {
      // Loaded when it runs, so that --help does not load the operator and the local cluster.
      const { quickstart } = await import('./quickstart-command.ts');
      process.exitCode = await quickstart({
        file: options.file,
        timeoutMs: options.timeout * 1000,
        ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
      });
    });
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildQuickstartProgram().parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof InputError) {
      for (const problem of error.problems) process.stderr.write(`error: ${problem}\n`);
      return INPUT_ERROR_EXIT_CODE;
    }
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : INPUT_ERROR_EXIT_CODE;
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
