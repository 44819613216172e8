#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { stringify } from 'yaml';
import { miniClusterCrd } from '../api/index.ts';
import { generateMiniClusterKeys } from '../render/index.ts';
import { INPUT_ERROR_EXIT_CODE, InputError } from './input-error.ts';
import { renderFiles } from './render-command.ts';

function collect(value: string, previous: string[]): string[] {
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
    .requiredOption(
      '-f, --file <file>',
      'MiniCluster manifest (repeatable; a file may hold several documents)',
      collect,
      [],
    )
    .option('--curve-cert <file>', 'use this CURVE certificate instead of generating one')
    .option('--munge-key <file>', 'use this munge key instead of generating one')
    .action(async (options: { file: string[]; curveCert?: string; mungeKey?: string }) => {
      const renderOptions: { files: string[]; curveCertFile?: string; mungeKeyFile?: string } = {
        files: options.file,
      };
      if (options.curveCert !== undefined) renderOptions.curveCertFile = options.curveCert;
      if (options.mungeKey !== undefined) renderOptions.mungeKeyFile = options.mungeKey;
      process.stdout.write(await renderFiles(renderOptions));
    });

  program
    .command('keygen')
    .description('print a new CURVE certificate (zcert format) for a MiniCluster')
    .option('--name <name>', 'MiniCluster the certificate is for (its metadata name)', 'flux-sample')
    .action((options: { name: string }) => {
      process.stdout.write(generateMiniClusterKeys(options.name).curveCertificate);
    });

  program
    .command('crd')
    .description('print the MiniCluster CustomResourceDefinition')
    .action(() => {
      process.stdout.write(stringify(miniClusterCrd(), { lineWidth: 0 }));
    });

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return 0;
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

process.exitCode = await main(process.argv.slice(2));
