// Every protocol-note citation in the source (`mapping.md §15.10–12`, `messages.md §3–§8, §15`, …) must
// point to a doc in the repository and to a section heading that exists there, so a contributor who
// clones the repo can follow it. Bare names resolve in docs/protocols/; a name with a folder
// (`docs/clients.md`) or README.md resolves from the repository root. A section exists when the doc
// has a heading carrying its number: `## §13 Errors`, `#### §15.10 …`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PROTOCOL_DOCS = join(ROOT, 'docs', 'protocols');

interface Citation {
  /** `file:line` of the § reference. */
  at: string;
  doc: string;
  section: string;
}

/** The comment text of a line (`// …`, or a line inside a block comment), or undefined for code. */
function commentOf(line: string): string | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*')) return trimmed.replace(/^\/?\*+\/?/, '');
  const slashes = line.indexOf('//');
  return slashes < 0 ? undefined : line.slice(slashes + 2);
}

const DOC = String.raw`[A-Za-z0-9_./-]+\.md`;
const NUM = String.raw`\d+(?:\.\d+)*`;
// A doc name, or one § reference with an optional range end (`§15.10–12`, `§1–§12`, `§9-§13`).
const TOKEN = new RegExp(String.raw`(${DOC})|§\s?(${NUM})(?:\s*[–-]\s*§?(${NUM}))?`, 'g');

/** `15.10`…`15.12` from `15.10` and `12`; `3`…`8` from `3` and `8`. */
function expandRange(first: string, last: string | undefined): string[] {
  if (!last) return [first];
  const a = first.split('.').map(Number);
  const b = last.split('.').map(Number);
  // A short end (`15.10–12`) replaces the last parts of the start.
  const end = [...a.slice(0, a.length - b.length), ...b];
  if (end.length !== a.length || a.slice(0, -1).join('.') !== end.slice(0, -1).join('.') || end.at(-1)! < a.at(-1)!) {
    return [first, last];
  }
  const prefix = a.slice(0, -1);
  const out: string[] = [];
  for (let n = a.at(-1)!; n <= end.at(-1)!; n++) out.push([...prefix, n].join('.'));
  return out;
}

/**
 * The citations in one source text. Comment lines that follow each other form one block, so a list
 * broken across lines (`(responses.md` / `// §10, mapping.md §14)`) keeps its doc; a bare `§6` later in
 * the block belongs to the doc named last before it. A § with no doc named before it in its block
 * (`RFC 9110 §7.6.1`) is not a citation of ours.
 */
function citationsIn(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  let doc: string | undefined;
  text.split('\n').forEach((line, i) => {
    const comment = commentOf(line);
    if (comment === undefined) {
      doc = undefined;
      return;
    }
    for (const m of comment.matchAll(TOKEN)) {
      if (m[1]) doc = m[1].replace(/^\.\//, '');
      else if (doc && !/RFC\s*\d+\s*$/.test(comment.slice(0, m.index))) {
        for (const section of expandRange(m[2]!, m[3])) found.push({ at: `${file}:${i + 1}`, doc, section });
      }
    }
  });
  return found;
}

/** The section numbers a markdown doc declares in its headings (`### §15.10 Empty tool input`). */
function sectionsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6}\s+§(\d+(?:\.\d+)*)(?=[\s.:—-]|$)/gm)].map((m) => m[1]!));
}

function docPath(doc: string): string {
  return doc.includes('/') || doc === 'README.md' ? join(ROOT, doc) : join(PROTOCOL_DOCS, doc);
}

/** Every problem as `file:line: message`; empty when all citations resolve. */
function unresolved(citations: readonly Citation[], read: (path: string) => string | undefined): string[] {
  const sections = new Map<string, Set<string> | undefined>();
  const problems: string[] = [];
  for (const c of citations) {
    const path = docPath(c.doc);
    if (!sections.has(path)) {
      const text = read(path);
      sections.set(path, text === undefined ? undefined : sectionsOf(text));
    }
    const known = sections.get(path);
    const shown = relative(ROOT, path).split(sep).join('/');
    if (!known) problems.push(`${c.at}: ${c.doc} → ${shown} does not exist`);
    else if (!known.has(c.section)) problems.push(`${c.at}: ${c.doc} §${c.section} → no heading "§${c.section}" in ${shown}`);
  }
  return [...new Set(problems)];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const readIfThere = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

describe('protocol-note citations', () => {
  it('reads lists, ranges, line-broken lists and bare references; skips other standards', () => {
    const text = [
      '// IR → Messages (messages.md §3–§5, mapping.md §15.10–12), and ids (§6).',
      '// A wrapped one (responses.md',
      '// §10, mapping.md §14).',
      'const x = 1; // RFC 9110 §7.6.1 has no doc of ours',
      '/** chat-completions.md §8: every deviation */',
    ].join('\n');
    expect(citationsIn('f.ts', text).map((c) => `${c.at} ${c.doc} §${c.section}`)).toEqual([
      'f.ts:1 messages.md §3',
      'f.ts:1 messages.md §4',
      'f.ts:1 messages.md §5',
      'f.ts:1 mapping.md §15.10',
      'f.ts:1 mapping.md §15.11',
      'f.ts:1 mapping.md §15.12',
      'f.ts:1 mapping.md §6',
      'f.ts:3 responses.md §10',
      'f.ts:3 mapping.md §14',
      'f.ts:5 chat-completions.md §8',
    ]);
  });

  it('reports a missing doc and a missing section with file:line', () => {
    const docs: Record<string, string> = { [join(PROTOCOL_DOCS, 'mapping.md')]: '# x\n## §4 Tools\n### §15.10 Empty input\n' };
    const cites = citationsIn('src/a.ts', '// mapping.md §4, §15.10, §15.11; nowhere.md §1; docs/x.md §2');
    expect(unresolved(cites, (p) => docs[p])).toEqual([
      'src/a.ts:1: mapping.md §15.11 → no heading "§15.11" in docs/protocols/mapping.md',
      'src/a.ts:1: nowhere.md → docs/protocols/nowhere.md does not exist',
      'src/a.ts:1: docs/x.md → docs/x.md does not exist',
    ]);
  });

  it('every citation in src/ and bench/ names a doc and a section that exist', () => {
    const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'bench'))];
    const citations = files.flatMap((f) => citationsIn(relative(ROOT, f).split(sep).join('/'), readFileSync(f, 'utf8')));
    // The source cites the notes about ninety times; far fewer means the scanner stopped seeing them.
    expect(citations.length).toBeGreaterThan(80);
    expect(unresolved(citations, readIfThere)).toEqual([]);
  });

  it('each protocol doc says what it is and that its section numbers are cited from the source', () => {
    for (const name of readdirSync(PROTOCOL_DOCS).filter((n) => n.endsWith('.md') && n !== 'README.md')) {
      const text = readFileSync(join(PROTOCOL_DOCS, name), 'utf8');
      const [title, opening] = text.split('\n').filter((l) => l.trim() !== '');
      expect(title, name).toMatch(/^# /);
      expect(opening, name).toMatch(/section numbers .* cited from the source/);
      expect(sectionsOf(text).size, name).toBeGreaterThan(0);
    }
  });
});
