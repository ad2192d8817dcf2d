import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'rolldown/utils';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * What each part of the code may import (docs/architecture.md, "The layers"): the core only
 * itself; adapters the core; each app `apps/http` (the shared edge) and the core; `apps/server`
 * composes api and content with the adapters; the CLI uses the server's composition. The same
 * table is written as the TypeScript project references, which make a wrong import a compile error.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  adapters: ['core'],
  'apps/http': ['core'],
  'apps/api': ['core', 'apps/http'],
  'apps/content': ['core', 'apps/http'],
  'apps/server': ['core', 'adapters', 'apps/http', 'apps/api', 'apps/content'],
  'apps/cli': ['core', 'adapters', 'apps/http', 'apps/server'],
};
const PARTS = Object.keys(MAY_IMPORT).sort((a, b) => b.length - a.length);
/** Folders with a build of their own, outside the graph: the dashboard is a Vite project that only calls the public API. */
const OUTSIDE = ['apps/dashboard'];

/** One import of a source file: the file it names (relative to ROOT, `.ts`) and where. */
interface Edge {
  to: string;
  line: number;
}

/** Every `.ts` file under `dir` (relative to ROOT), skipping {@link OUTSIDE}. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!OUTSIDE.includes(relative)) files.push(...sourceFiles(relative));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      files.push(relative);
    }
  }
  return files;
}

/** The part of the code `file` belongs to (a key of {@link MAY_IMPORT}), or undefined. */
function partOf(file: string): string | undefined {
  return PARTS.find((part) => file === part || file.startsWith(`${part}/`));
}

/**
 * The relative imports of one source file, type-only ones included: `import`, `export … from`,
 * `import(…)` with a literal, and `new URL('./x.js', import.meta.url)` (how a worker thread's file
 * is named). Package imports are left out. Parsed with oxc (rolldown's parser), so text in comments
 * and strings is never taken for an import.
 */
function importsOf(file: string): Edge[] {
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  const parsed = parseSync(file, source);
  if (parsed.errors.length > 0) throw new Error(`${file}: ${parsed.errors[0].message}`);
  const lineAt = (offset: number) => source.slice(0, offset).split('\n').length;
  const edges: Edge[] = [];
  const add = (specifier: unknown, offset: number) => {
    if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
    edges.push({ to: target, line: lineAt(offset) });
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, any>;
    switch (n.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (n.source) add(n.source.value, n.start);
        break;
      case 'ImportExpression':
        if (n.source?.type === 'Literal') add(n.source.value, n.start);
        break;
      case 'NewExpression':
        // new URL('./worker.js', import.meta.url): a module started as a worker thread (other URLs name data, not modules).
        if (
          n.callee?.type === 'Identifier' &&
          n.callee.name === 'URL' &&
          n.arguments?.[0]?.type === 'Literal' &&
          String(n.arguments[0].value).endsWith('.js') &&
          n.arguments[1]?.type === 'MemberExpression' &&
          n.arguments[1].object?.type === 'MetaProperty'
        ) {
          add(n.arguments[0].value, n.start);
        }
        break;
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'parent' && value && typeof value === 'object') visit(value);
  };
  visit(parsed.program);
  return edges;
}

/** The import graph of core, adapters and apps: each source file and the source files it imports. */
function importGraph(): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  for (const dir of ['core', 'adapters', 'apps']) for (const file of sourceFiles(dir)) graph.set(file, importsOf(file));
  return graph;
}

/**
 * The strongly connected components of more than one file, or of one file that imports itself
 * (Tarjan's algorithm): each is one or more import cycles.
 */
function cycles(graph: Map<string, Edge[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).some(({ to }) => to === file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

/** The imports of `graph` that {@link MAY_IMPORT} forbids, or that name a file outside every part, as `file:line` lines. */
function crossings(graph: Map<string, Edge[]>): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    const from = partOf(file);
    for (const { to, line } of edges) {
      const target = partOf(to);
      if (from === undefined || target === undefined) found.push(`${file}:${line} imports ${to}, outside every part`);
      else if (target !== from && !MAY_IMPORT[from].includes(target)) found.push(`${file}:${line} (${from}) imports ${to} (${target})`);
    }
  }
  return found;
}

describe('Import boundaries: layers, apps and cycles', function () {
  this.timeout(60_000);
  let graph: Map<string, Edge[]>;
  before(() => {
    graph = importGraph();
  });

  it('reads every source file and its imports, worker files named by URL included', () => {
    expect(graph.size).to.be.greaterThan(300);
    expect(graph.get('apps/server/start.ts')!.map(({ to }) => to)).to.include('apps/api/api-app.ts');
    const targets = [...graph.values()].flat().map(({ to }) => to);
    expect(
      targets.some((to) => to.endsWith('/wal-checkpoint-worker.ts')),
      'the WAL worker, started by new URL(…, import.meta.url)',
    ).to.equal(true);
  });

  it('puts every file of core, adapters and apps in a part with rules', () => {
    const unplaced = [...graph.keys()].filter((file) => partOf(file) === undefined);
    expect(unplaced, 'files outside every part of MAY_IMPORT: add the folder to the table (and its tsconfig.json)').to.deep.equal([]);
  });

  it('has no import that crosses a boundary (no sibling app, no core → adapters or apps, no adapters → apps)', () => {
    expect(crossings(graph)).to.deep.equal([]);
  });

  it('has no import cycle in core, adapters or apps (type-only imports and worker files included)', () => {
    expect(cycles(graph)).to.deep.equal([]);
  });

  it('declares exactly the allowed parts as TypeScript project references, so the compiler enforces the table', () => {
    for (const [part, allowed] of Object.entries(MAY_IMPORT)) {
      const tsconfig = JSON.parse(readFileSync(path.join(ROOT, part, 'tsconfig.json'), 'utf8')) as { references?: { path: string }[] };
      const references = (tsconfig.references ?? []).map((reference) => path.posix.normalize(path.posix.join(part, reference.path)));
      expect(references.sort(), `${part}/tsconfig.json references`).to.deep.equal([...allowed].sort());
    }
  });

  it('reports a cycle and a sibling-app import when a graph has them (the checks can fail)', () => {
    const made = new Map<string, Edge[]>([
      [
        'apps/api/a.ts',
        [
          { to: 'apps/content/b.ts', line: 3 },
          { to: 'apps/http/d.ts', line: 4 },
        ],
      ],
      ['apps/content/b.ts', [{ to: 'apps/content/c.ts', line: 1 }]],
      ['apps/content/c.ts', [{ to: 'apps/content/b.ts', line: 2 }]],
      ['apps/http/d.ts', []],
    ]);
    expect(cycles(made)).to.deep.equal([['apps/content/b.ts', 'apps/content/c.ts']]);
    expect(crossings(made)).to.deep.equal(['apps/api/a.ts:3 (apps/api) imports apps/content/b.ts (apps/content)']);
  });
});
