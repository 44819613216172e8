// The import structure of the operator (src/) and of the workbench beside it (workbench/src/): no file
// reaches itself again through its imports, and each folder is a layer that imports only the layers
// below it. The workbench's layers are all above the operator's, so the operator imports nothing of
// the workbench: its package and image hold the operator alone. Imports are read by TypeScript's own
// pre-processor (ts.preProcessFile), so `import type`, `export ... from` and `import('...')` count as
// plain imports do: a type import ties two files together as much as a value import does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The folders holding the source files, each a package's: the operator's, then the workbench's. */
const SOURCE_ROOTS = ['src', 'workbench/src'] as const;

/**
 * The folders of src/ (by name) then of workbench/src/ (as `workbench/<name>`), lowest first
 * (docs/CONVENTIONS.md says the same in words). A file may import the files of its own folder and of
 * the folders before it, never of one after it.
 */
const LAYERS = [
  'flux', // pure: what Flux reads in a MiniCluster's pods (broker config, keys, entrypoint, scripts)
  'restful', // the RESTful server a lead pod runs (Python, its pages and their tests), shipped as files
  'api', // pure: the CRDs' schemas, types, defaults and validation
  'render', // pure: a MiniCluster's Kubernetes objects
  'kube', // the transport to the API server
  'observability', // logs, metrics, health endpoints
  'runtime', // what controller-runtime gives Go operators: queue, informers, leader election, events
  'deploy', // the operator's own install objects
  'burst', // bursting to other clusters: targets, providers, the planner
  'controllers', // the MiniCluster and BurstTarget controllers (each subfolder is one controller)
  'cli', // the command line, `flux-operator`
  // The workbench: what the quickstart and the tests use, never shipped with the operator.
  'workbench/tooling', // the machine's programs and the hack/ scripts, the project's paths and pinned versions
  'workbench/images', // container images built as archives
  'workbench/localcluster', // the local control plane and its real node, which loads the images
  'workbench/quickstart', // `npm start`: the local cluster, the operator and a MiniCluster in one command
] as const;

/** Layers that may import fewer of the layers below them than their place allows. */
const ONLY: Readonly<Record<string, readonly string[]>> = {
  // The runtime is plumbing any controller could use: it knows the transport and the logs, no domain.
  runtime: ['kube', 'observability'],
  // The machine's programs and paths: nothing of the operator.
  'workbench/tooling': [],
};

/** The source files (as `src/...` and `workbench/src/...` paths) and, for each, the source files it imports. */
type ImportGraph = ReadonlyMap<string, readonly string[]>;

function tsFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** The source root holding a file, if any (`workbench/src/images/x.ts` -> `workbench/src`). */
function sourceRootOf(file: string): string | undefined {
  return SOURCE_ROOTS.find((root) => file.startsWith(`${root}/`));
}

/**
 * Reads every .ts file under the source roots and resolves its relative imports; a relative import
 * that names no file, or one outside the source roots (into test/ or hack/, say), fails here (rather
 * than slipping past the checks below).
 */
function importGraph(): ImportGraph {
  const graph = new Map<string, string[]>();
  const problems: string[] = [];
  for (const file of SOURCE_ROOTS.flatMap(tsFilesUnder).sort()) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue; // a package or node: module
      const target = path.posix.join(path.posix.dirname(file), fileName);
      if (sourceRootOf(target) === undefined)
        problems.push(`${file} imports ${fileName}, outside ${SOURCE_ROOTS.join(' and ')}`);
      else if (!existsSync(path.join(ROOT, target)))
        problems.push(`${file} imports ${fileName}: no such file`);
      else targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  assert.deepEqual(problems, [], 'relative imports that name no source file');
  return graph;
}

interface ImportCycle {
  /** The files that all reach one another through their imports (a strongly connected component). */
  files: string[];
  /** A shortest loop from the first of them back to it, ending where it starts. */
  loop: string[];
}

/** The import cycles: one per component of more than one file, or a file importing itself. */
function importCycles(graph: ImportGraph): ImportCycle[] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; next: number }[] = [{ file: start, next: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start) ?? 0);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame === undefined) break;
      const targets = graph.get(frame.file) ?? [];
      const target = targets[frame.next++];
      if (target !== undefined) {
        if (!index.has(target)) {
          index.set(target, index.size);
          low.set(target, index.get(target) ?? 0);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent.file, Math.min(low.get(parent.file) ?? 0, low.get(frame.file) ?? 0));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
        if (member === frame.file) break;
      }
      const selfImport = (graph.get(frame.file) ?? []).includes(frame.file);
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  }
  return components.map((files) => ({ files, loop: shortestLoop(graph, files) }));
}

/** A shortest path from the component's first file through its imports back to that file. */
function shortestLoop(graph: ImportGraph, component: readonly string[]): string[] {
  const [first] = component;
  if (first === undefined) return [];
  const members = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue: string[] = [first];
  for (let i = 0; i < queue.length; i++) {
    const file: string = queue[i] ?? first;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === first) {
        const loop = [first];
        for (let at: string | undefined = file; at !== undefined && at !== first; at = cameFrom.get(at))
          loop.unshift(at);
        return [first, ...loop];
      }
      if (cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      queue.push(target);
    }
  }
  return [...component];
}

/**
 * The folder right under its source root that holds a file, the workbench's named with its package
 * (`src/controllers/minicluster/x.ts` -> `controllers`, `workbench/src/images/x.ts` -> `workbench/images`).
 */
function layerOf(file: string): string {
  const root = sourceRootOf(file) ?? '';
  const parts = file.slice(root.length + 1).split('/');
  const folder = parts.length > 1 ? (parts[0] ?? '') : '';
  if (folder === '' || root === 'src') return folder;
  return `${root.split('/')[0]}/${folder}`;
}

/** Imports that cross into a layer the importing file's layer may not use, each with the reason. */
function forbiddenImports(
  graph: ImportGraph,
  layers: readonly string[],
  only: Readonly<Record<string, readonly string[]>>,
): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (!layers.includes(from)) {
      found.push(`${file} is in no layer: add its folder to LAYERS`);
      continue;
    }
    for (const target of targets) {
      const to = layerOf(target);
      if (to === from) continue;
      if (layers.indexOf(to) > layers.indexOf(from))
        found.push(`${file} -> ${target}: ${from} may not import ${to}, a higher layer`);
      else if (only[from] !== undefined && !only[from].includes(to))
        found.push(
          `${file} -> ${target}: ${from} imports ${only[from].length === 0 ? 'no other layer' : `only ${only[from].join(' and ')}`}`,
        );
    }
  }
  return found;
}

describe('the checks themselves', () => {
  it('find a cycle, as a loop of files, and only the files in it', () => {
    const graph = new Map([
      ['src/a/1.ts', ['src/a/2.ts']],
      ['src/a/2.ts', ['src/a/3.ts', 'src/b/4.ts']],
      ['src/a/3.ts', ['src/a/1.ts']],
      ['src/b/4.ts', []],
      ['src/b/5.ts', ['src/a/1.ts', 'src/b/5.ts']],
    ]);
    assert.deepEqual(importCycles(graph), [
      {
        files: ['src/a/1.ts', 'src/a/2.ts', 'src/a/3.ts'],
        loop: ['src/a/1.ts', 'src/a/2.ts', 'src/a/3.ts', 'src/a/1.ts'],
      },
      { files: ['src/b/5.ts'], loop: ['src/b/5.ts', 'src/b/5.ts'] },
    ]);
    assert.deepEqual(importCycles(new Map([['src/a/1.ts', ['src/a/2.ts']]])), []);
  });

  it('find an import going up, one outside what a layer may import, and a folder in no layer', () => {
    const graph = new Map([
      ['src/low/x.ts', ['src/high/y.ts', 'src/low/z.ts']],
      ['src/high/y.ts', ['src/low/x.ts', 'src/mid/w.ts']],
      ['src/mid/w.ts', ['src/low/z.ts']],
      ['src/other/v.ts', []],
    ]);
    assert.deepEqual(forbiddenImports(graph, ['low', 'mid', 'high'], { high: ['low'] }), [
      'src/low/x.ts -> src/high/y.ts: low may not import high, a higher layer',
      'src/high/y.ts -> src/mid/w.ts: high imports only low',
      'src/other/v.ts is in no layer: add its folder to LAYERS',
    ]);
  });

  it("name the workbench's layers with its package, so that none passes for an operator's", () => {
    assert.equal(layerOf('src/controllers/minicluster/reconcile.ts'), 'controllers');
    assert.equal(layerOf('workbench/src/localcluster/real-node/node.ts'), 'workbench/localcluster');
    assert.equal(layerOf('workbench/src/main.ts'), '');
    const graph = new Map([
      ['src/cli/x.ts', ['workbench/src/images/y.ts']],
      ['workbench/src/images/y.ts', ['src/cli/x.ts', 'workbench/src/tooling/z.ts']],
      ['workbench/src/tooling/z.ts', ['src/kube/w.ts']],
      ['src/kube/w.ts', []],
    ]);
    assert.deepEqual(
      forbiddenImports(graph, ['kube', 'cli', 'workbench/tooling', 'workbench/images'], {
        'workbench/tooling': [],
      }),
      [
        'src/cli/x.ts -> workbench/src/images/y.ts: cli may not import workbench/images, a higher layer',
        'workbench/src/tooling/z.ts -> src/kube/w.ts: workbench/tooling imports no other layer',
      ],
    );
  });
});

describe('the imports of src/ and workbench/src/', () => {
  const graph = importGraph();

  it('are read from every file, type imports and dynamic imports included', () => {
    // The pre-processor sees the kinds of import the checks rely on; a sample that has each.
    const seen = ts
      .preProcessFile(
        "import type { A } from './a.ts';\nexport * from './b.ts';\nawait import('./c.ts');\n",
        true,
        true,
      )
      .importedFiles.map((imported) => imported.fileName);
    assert.deepEqual(seen, ['./a.ts', './b.ts', './c.ts']);
    const read = (root: string) => [...graph.keys()].filter((file) => sourceRootOf(file) === root).length;
    assert.ok(read('src') > 100, `only ${read('src')} files read under src/`);
    assert.ok(read('workbench/src') > 50, `only ${read('workbench/src')} files read under workbench/src/`);
  });

  it("leave the operator's files importing none of the workbench's", () => {
    // What the layers imply, said apart: the operator's package and image must build without it.
    const intoWorkbench = [...graph].flatMap(([file, targets]) =>
      sourceRootOf(file) === 'src'
        ? targets.filter((target) => sourceRootOf(target) !== 'src').map((target) => `${file} -> ${target}`)
        : [],
    );
    assert.deepEqual(intoWorkbench, []);
  });

  it('form no cycle', () => {
    const cycles = importCycles(graph);
    const described = cycles.map(
      ({ files, loop }) => `${files.length} files: ${files.join(', ')}\n    (one loop: ${loop.join(' -> ')})`,
    );
    assert.equal(cycles.length, 0, `import cycles:\n  ${described.join('\n  ')}`);
  });

  it('never go up a layer', () => {
    const forbidden = forbiddenImports(graph, LAYERS, ONLY);
    assert.equal(forbidden.length, 0, `imports against the layers:\n  ${forbidden.join('\n  ')}`);
  });
});

/**
 * The hub's imports of the spoke that remain, each needed: the index is the API's one entry and
 * exports both versions; the installed CRD serves both, so it holds the spoke's version
 * (minicluster-crd.ts); and the hub's validator runs v1alpha1's rules of the fields both versions
 * share on the object's v1alpha1 form (v1alpha1/rules-on-hub.ts), until those rules are written
 * against shared/ views of both. Listed so that no new one slips in.
 */
const HUB_IMPORTS_OF_THE_SPOKE: readonly string[] = [
  'src/api/index.ts -> src/api/v1alpha1/index.ts',
  'src/api/minicluster-crd.ts -> src/api/v1alpha1/crd.ts',
  'src/api/validate.ts -> src/api/v1alpha1/rules-on-hub.ts',
];

describe('the MiniCluster API (src/api): a hub, a spoke and what they share', () => {
  const graph = importGraph();
  const inside = (folder: string) => (file: string) => file.startsWith(`src/api/${folder}/`);
  const isShared = inside('shared');
  const isSpoke = inside('v1alpha1');
  const isHub = (file: string) => file.startsWith('src/api/') && !isShared(file) && !isSpoke(file);

  it('shared/ imports neither version: only itself and the API identity (group.ts)', () => {
    const wrong = [...graph]
      .filter(([file]) => isShared(file))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => !isShared(target) && target !== 'src/api/group.ts')
          .map((t) => `${file} -> ${t}`),
      );
    assert.deepEqual(wrong, []);
  });

  it('the hub imports the spoke only where listed', () => {
    const hubToSpoke = [...graph]
      .filter(([file]) => isHub(file))
      .flatMap(([file, targets]) => targets.filter(isSpoke).map((target) => `${file} -> ${target}`))
      .sort();
    assert.deepEqual(hubToSpoke, [...HUB_IMPORTS_OF_THE_SPOKE].sort());
  });
});
