// One operator's phase of `--against-go`: start it, create the MiniClusters, wait for every pod Running,
// read its CPU, requests and memory, stop it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PLURAL } from '../../src/api/index.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import type { PhaseMeasure } from './against-go-result.ts';
import { pool, waitAllRunning } from './cluster-objects.ts';
import type { OperatorCommand } from './operator-commands.ts';
import { cpuSeconds, metricByLabel, metricsText, metricsTotal, rssMiB, settled } from './process-metrics.ts';

const REQUESTS = 'rest_client_requests_total';

/** A free loopback port (for an operator whose metrics port is set on its command line). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Requests other than GET (lists, watches and reads are GETs): what settles once the work is done. */
export function writeRequests(byMethod: Record<string, number>): number {
  return Object.entries(byMethod)
    .filter(([method]) => method !== 'GET')
    .reduce((sum, [, count]) => sum + count, 0);
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitReady(child: ChildProcess, command: OperatorCommand, log: string): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${command.command} exited (${child.exitCode}) before it was ready:\n${tail(log)}`);
    }
    if (command.readyLine.test(readFileSync(log, 'utf8'))) return;
    await sleep(100);
  }
  throw new Error(`${command.command} printed no ${command.readyLine} within 60 s:\n${tail(log)}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export interface PhaseSpec {
  clients: ApiClients;
  namespace: string;
  command: OperatorCommand;
  metricsPort: number;
  /** The operator's combined stdout and stderr go to this file. */
  log: string;
  /** The MiniClusters to create, in the operator's API version. */
  miniClusters: readonly { apiVersion: string }[];
  pods: number;
  steadySeconds: number;
}

export async function runOperatorPhase(spec: PhaseSpec): Promise<PhaseMeasure> {
  const out = openSync(spec.log, 'w');
  const child = spawn(spec.command.command, spec.command.args, {
    stdio: ['ignore', out, out],
    env: { ...process.env, ...spec.command.env },
  });
  closeSync(out);
  const pid = child.pid ?? 0;
  try {
    await waitReady(child, spec.command, spec.log);
    await sleep(1000);
    const startCpu = cpuSeconds(pid);
    const started = performance.now();
    await pool(spec.miniClusters, 16, (body) => {
      const [group, version] = body.apiVersion.split('/') as [string, string];
      return spec.clients.custom.createNamespacedCustomObject({
        group,
        version,
        namespace: spec.namespace,
        plural: PLURAL,
        body,
      });
    });
    await waitAllRunning(spec.clients, spec.namespace, spec.pods, 600_000 + spec.pods * 500);
    const secondsToRunning = (performance.now() - started) / 1000;

    // The last writes (status, labels) trail the pods: the window ends once none came for 3 s.
    const writes = await settled(
      async () => writeRequests(metricByLabel(await metricsText(spec.metricsPort), REQUESTS, 'method')),
      3000,
      60_000,
    );
    const cpu = cpuSeconds(pid);
    const text = await metricsText(spec.metricsPort);
    const requestsByMethod = metricByLabel(text, REQUESTS, 'method');
    const requests = Object.values(requestsByMethod).reduce((sum, count) => sum + count, 0);
    const apiWrites =
      spec.command.writesMetric === undefined
        ? writeRequests(requestsByMethod)
        : await metricsTotal(spec.metricsPort, spec.command.writesMetric);
    await sleep(spec.steadySeconds * 1000);
    const steadyRequests = (await metricsTotal(spec.metricsPort, REQUESTS)) - requests;
    const memory = rssMiB(pid);
    const heapUsed = await metricsTotal(spec.metricsPort, spec.command.heapMetric);
    return {
      secondsToRunning,
      settledSeconds: secondsToRunning + writes.afterMs / 1000,
      cpuSeconds: cpu,
      startCpuSeconds: startCpu,
      requests,
      requestsByMethod,
      writes: apiWrites,
      steadyRequests,
      rssMiB: memory.rss,
      peakRssMiB: memory.peak,
      heapUsedMiB: heapUsed / 2 ** 20,
    };
  } finally {
    await stop(child);
  }
}
