// Part of `npm run build`: tsc compiles only TypeScript, so the status page's static files
// (src/status/page/) are copied next to the compiled code (dist/status/page/), where
// src/status/page-files.ts looks for them. dist/ is then all a production install needs.
// Usage: node scripts/copy-status-page.mjs [outDir]   (default: dist)
import { cpSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src', 'status', 'page');
const to = join(resolve(root, process.argv[2] ?? 'dist'), 'status', 'page');
cpSync(from, to, { recursive: true });
const files = readdirSync(to);
if (!['status.html', 'status.js', 'keys-console.js', 'status.css'].every((f) => files.includes(f))) {
  process.stderr.write(`copy-status-page: ${to} lacks a page file (has ${files.join(', ')})\n`);
  process.exit(1);
}
