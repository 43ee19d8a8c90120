// The status page's four files (HTML, its script, the keys console's script, one stylesheet), read on first use and kept. They sit
// in page/ next to this module: src/status/page/ under tsx and vitest, dist/status/page/ once built
// (`npm run build` copies them, scripts/copy-status-page.mjs), so dist/ alone serves the page.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'page');

export interface PageFiles {
  /** The HTML with its `{{auth}}` ("required" or "none") and `{{admin}}` placeholders, filled per request. */
  html: string;
  script: Buffer;
  /** The keys console (runtime keys through the admin API). */
  console: Buffer;
  style: Buffer;
}

let files: PageFiles | undefined;

export function pageFiles(): PageFiles {
  files ??= {
    html: readFileSync(join(PAGE_DIR, 'status.html'), 'utf8'),
    script: readFileSync(join(PAGE_DIR, 'status.js')),
    console: readFileSync(join(PAGE_DIR, 'keys-console.js')),
    style: readFileSync(join(PAGE_DIR, 'status.css')),
  };
  return files;
}

/** Headers of every page file: nothing from elsewhere, no framing, no inline script. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
