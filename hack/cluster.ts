// npm run cluster:up|cluster:down [-- --name NAME] [--real-node] [--with-kueue]; also `node hack/cluster.ts status [--name NAME] [--json]`.
import { parseArgs } from 'node:util';
import { down, status, up } from '../workbench/src/localcluster/index.ts';

const usage =
  'usage: node hack/cluster.ts up|down|status [--name NAME] [--real-node] [--with-kueue] [--json]';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string', short: 'n' },
      'real-node': { type: 'boolean' },
      'with-kueue': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || rest.length > 0 || !command) {
    console.error(usage);
    return values.help ? 0 : 2;
  }
  const opts = values.name ? { name: values.name } : {};
  switch (command) {
    case 'up': {
      const res = await up({
        ...opts,
        realNode: values['real-node'] === true,
        kueue: values['with-kueue'] === true,
      });
      if (!res.started && !res.repaired)
        console.error(`[localcluster] cluster ${res.status.name} is already up`);
      console.log(`export KUBECONFIG=${res.kubeconfig}`);
      return 0;
    }
    case 'down': {
      const res = await down(opts);
      console.error(
        `[localcluster] ${res.stopped ? 'stopped' : 'nothing to stop for'} cluster ${opts.name ?? 'default'}`,
      );
      return 0;
    }
    case 'status': {
      const st = status(opts);
      if (values.json) {
        console.log(JSON.stringify(st, null, 2));
      } else {
        console.log(`cluster ${st.name}: ${st.running ? 'running' : st.exists ? 'stale' : 'down'}`);
        if (st.apiserver) console.log(`apiserver: ${st.apiserver}`);
        console.log(`kubeconfig: ${st.kubeconfig}`);
        for (const c of st.components) console.log(`  ${c.name}: ${c.alive ? 'alive' : 'gone'}`);
        if (st.processes.length > 0) console.log(`memory (RSS): ${(st.rssBytes / 2 ** 20).toFixed(0)} MiB`);
        const listening = st.listening.map((s) => `${s.address}:${s.port}`).join(' ');
        if (listening) console.log(`listening: ${listening}`);
        if (st.kueue) {
          const { kueue } = st;
          const where = kueue.webhookUrl ? `, webhooks at ${kueue.webhookUrl}` : '';
          console.log(
            `kueue ${kueue.version}: ${kueue.running ? `running (pid ${kueue.pid})` : 'gone'}${where}`,
          );
          console.log(`  log: ${kueue.log}`);
        }
        if (st.realNode) {
          const { realNode } = st;
          console.log(`real node ${realNode.name}: ${realNode.running ? 'running' : 'partial'}`);
          for (const c of realNode.components) console.log(`  ${c.name}: ${c.alive ? 'alive' : 'gone'}`);
          console.log(
            `  memory (RSS): ${(realNode.rssBytes / 2 ** 20).toFixed(0)} MiB; logs: ${realNode.logDir}`,
          );
        }
      }
      const dead = st.components.filter((c) => !c.alive).map((c) => c.name);
      if (st.exists && dead.length > 0) {
        console.error(
          `[localcluster] cluster ${st.name}: not running: ${dead.join(', ')} ` +
            '(`npm run cluster:up` starts them again, keeping the objects)',
        );
      }
      return st.running ? 0 : 3;
    }
    default:
      console.error(usage);
      return 2;
  }
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`[localcluster] error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
