// The import rules of docs/architecture.md, read from the source: a layer that may not depend on
// another fails here with the offending file and import, before it becomes a habit.
//
// Decision on type-only imports: `import type` of pino's `Logger` or prom-client's `Registry` is allowed
// anywhere (erased at compile time: no second logger or registry can be built from a type); a value
// import of pino or prom-client outside observability/ is a violation. undici has no such exception.
// Type-only imports between our own files count fully: a type still ties the layers together, and the
// import graph must have no cycle with them included.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

interface Edge {
  /** Path of the importing file, relative to src/, with `/` separators. */
  from: string;
  /** The module specifier as written. */
  specifier: string;
  /** For our own files: the imported file relative to src/; undefined for packages and node: builtins. */
  target?: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const rel = (path: string) => relative(SRC, path).split(sep).join('/');

/** The import and re-export edges of one file, including dynamic `import('…')`. */
function importsOf(path: string): Edge[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const target = specifier.startsWith('.') ? rel(resolve(dirname(path), specifier.replace(/\.js$/, '.ts'))) : undefined;
    edges.push({ from: rel(path), specifier, target, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allNamedTypes =
        !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier.text, !!clause && (clause.isTypeOnly || (!clause.name && allNamedTypes)));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return edges;
}

const FILES = sourceFiles(SRC).map(rel).sort();
const EDGES = sourceFiles(SRC).flatMap(importsOf);

const topFolder = (p: string) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : undefined);
/** `drivers/openai-chat/x.ts` → `drivers/openai-chat`; `drivers/types.ts` → `drivers`. */
const folderOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
const packageName = (s: string) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!);

/** Which of our files a file in a pure layer may import. */
function pureLayerAllows(from: string, target: string): boolean {
  const layer = topFolder(from)!;
  if (target === 'errors.ts') return true;
  if (topFolder(target) === 'ir' || topFolder(target) === 'protocols') return true;
  // The layer's shared files (drivers/http-client.ts, codecs/sse.ts, …) from anywhere in the layer; a
  // protocol folder only its own files. Shared files (the driver registry) may reach every protocol folder.
  if (folderOf(target) === layer || folderOf(target) === folderOf(from)) return true;
  return folderOf(from) === layer && topFolder(target) === layer;
}

/** A platform addresses, signs and frames a request a driver encoded: it sees the resolved config and the
 * driver contract as types only, never http/, router/ or a driver's code. */
function platformsAllow(target: string, typeOnly: boolean): boolean {
  if (target === 'errors.ts' || topFolder(target) === 'platforms') return true;
  return typeOnly && (target === 'config/types.ts' || target === 'drivers/types.ts');
}

function violations(allow: ReadonlySet<string>, edges: readonly Edge[] = EDGES): string[] {
  const found: string[] = [];
  for (const e of edges) {
    const layer = topFolder(e.from);
    const line = `${e.from} → ${e.specifier}`;
    if (e.target) {
      if ((layer === 'ir' || layer === 'protocols') && topFolder(e.target) !== layer) {
        found.push(`${line}: ${layer}/ imports nothing of ours outside itself`);
      }
      if ((layer === 'codecs' || layer === 'drivers') && !pureLayerAllows(e.from, e.target)) {
        found.push(`${line}: ${layer}/ may import only ir/, protocols/, errors.ts and its own files`);
      }
      if (layer === 'platforms' && !platformsAllow(e.target, e.typeOnly)) {
        found.push(`${line}: platforms/ may import only errors.ts, its own files and the types of config/ and drivers/`);
      }
      continue;
    }
    const pkg = packageName(e.specifier);
    if (pkg === 'undici' && e.from !== 'drivers/http-client.ts') {
      found.push(`${line}: only drivers/http-client.ts imports undici`);
    }
    if ((pkg === 'prom-client' || pkg === 'pino') && layer !== 'observability' && !e.typeOnly) {
      found.push(`${line}: only observability/ imports ${pkg} (type-only imports excepted)`);
    }
    if ((layer === 'ir' || layer === 'protocols' || layer === 'codecs') && !e.typeOnly) {
      // Pure translation layers: TypeBox for shapes and compiled validators, nothing with I/O.
      if (!['@sinclair/typebox', 'fast-json-stringify'].includes(pkg) && !e.specifier.startsWith('node:')) {
        found.push(`${line}: ${layer}/ is pure; ${pkg} is not one of its allowed packages`);
      }
    }
  }
  return found.filter((v) => !allow.has(v.slice(0, v.indexOf(':'))));
}

/** Every cycle's path, found by depth-first search over our own edges (type-only included). */
function cycles(skip: ReadonlySet<string>, edges: readonly Edge[] = EDGES): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!e.target || skip.has(`${e.from} → ${e.specifier}`)) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.target]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const walk = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') found.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!state.has(to)) walk(to);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const f of [...next.keys()].sort()) if (!state.has(f)) walk(f);
  return found;
}

// removed by the request-path refactor: the known violations of today's src/, as `importer → specifier`.
// Delete entries (and finally this list) as the refactor lands; the tests fail on any new violation.
const KNOWN_LAYER_VIOLATIONS = new Set<string>([
  'drivers/http-client.ts → ../config/types.js',
]);
// Cycles none may close; an entry here would be skipped by the cycle check.
const KNOWN_CYCLE_EDGES = new Set<string>([]);

const edge = (from: string, specifier: string, target?: string, typeOnly = false): Edge => ({ from, specifier, target, typeOnly });

describe('import rules: the checker itself', () => {
  it('flags each kind of violation and lets the allowed imports through', () => {
    const edges = [
      edge('codecs/openai-responses/a.ts', '../../http/context.js', 'http/context.ts'),
      edge('drivers/openai-chat/a.ts', '../anthropic-messages/b.js', 'drivers/anthropic-messages/b.ts'),
      edge('ir/a.ts', '../errors.js', 'errors.ts'),
      edge('http/a.ts', 'pino'),
      edge('router/a.ts', 'undici'),
      edge('codecs/sse.ts', 'node:stream'),
      // Allowed: own folder, shared layer file, ir/, protocols/, errors.ts, the registry, type-only pino.
      edge('drivers/openai-chat/a.ts', './b.js', 'drivers/openai-chat/b.ts'),
      edge('drivers/openai-chat/a.ts', '../sse-parser.js', 'drivers/sse-parser.ts'),
      edge('drivers/registry.ts', './openai-chat/index.js', 'drivers/openai-chat/index.ts'),
      edge('codecs/anthropic-messages/a.ts', '../../protocols/x.js', 'protocols/x.ts'),
      edge('codecs/anthropic-messages/a.ts', '../../errors.js', 'errors.ts'),
      edge('app.ts', 'pino', undefined, true),
      edge('drivers/http-client.ts', 'undici'),
      edge('platforms/bedrock.ts', '../config/types.js', 'config/types.ts', true),
      edge('platforms/bedrock.ts', '../router/model-table.js', 'router/model-table.ts'),
    ];
    expect(violations(new Set(), edges).map((v) => v.slice(0, v.indexOf(':')))).toEqual([
      'codecs/openai-responses/a.ts → ../../http/context.js',
      'drivers/openai-chat/a.ts → ../anthropic-messages/b.js',
      'ir/a.ts → ../errors.js',
      'http/a.ts → pino',
      'router/a.ts → undici',
      'platforms/bedrock.ts → ../router/model-table.js',
    ]);
  });

  it('reports a cycle as the path that closes it, type-only edges included', () => {
    const edges = [edge('a.ts', './b.js', 'b.ts'), edge('b.ts', './c.js', 'c.ts', true), edge('c.ts', './a.js', 'a.ts'), edge('c.ts', './d.js', 'd.ts')];
    expect(cycles(new Set(), edges)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(cycles(new Set(['c.ts → ./a.js']), edges)).toEqual([]);
  });
});

describe('import rules (docs/architecture.md)', () => {
  it('reads the imports of every file in src/', () => {
    expect(FILES.length).toBeGreaterThan(100);
    // A fixed point of the layout: the HTTP client is the one file that speaks undici.
    expect(EDGES).toContainEqual(expect.objectContaining({ from: 'drivers/http-client.ts', specifier: 'undici', typeOnly: false }));
    expect(EDGES.filter((e) => e.target).every((e) => FILES.includes(e.target!))).toBe(true);
  });

  it('ir/ and protocols/ import nothing of ours; codecs/ and drivers/ stay off http/, config/, router/, observability/; undici, pino, prom-client where they belong', () => {
    expect(violations(KNOWN_LAYER_VIOLATIONS)).toEqual([]);
  });

  it('the allow-list names only violations that still exist', () => {
    const all = new Set(violations(new Set()).map((v) => v.slice(0, v.indexOf(':'))));
    expect([...KNOWN_LAYER_VIOLATIONS].filter((v) => !all.has(v))).toEqual([]);
    const edges = new Set(EDGES.map((e) => `${e.from} → ${e.specifier}`));
    expect([...KNOWN_CYCLE_EDGES].filter((v) => !edges.has(v))).toEqual([]);
  });

  it('the import graph of src/ has no cycle', () => {
    expect(cycles(KNOWN_CYCLE_EDGES).map((c) => c.join(' → '))).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  it('mentions every top-level folder of src/', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((f) => !doc.includes(`${f}/`))).toEqual([]);
  });
});
