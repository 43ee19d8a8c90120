// The status page's three files (src/status/page/: HTML, one script, one stylesheet), read from the
// package folder on first use and kept: no build step, and the same files under tsx, vitest and dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

export const PAGE_DIR = join(PACKAGE_ROOT, 'src', 'status', 'page');

export interface PageFiles {
  /** The HTML with its `{{auth}}` placeholder (filled per request: "required" or "none"). */
  html: string;
  script: Buffer;
  style: Buffer;
}

let files: PageFiles | undefined;

export function pageFiles(): PageFiles {
  files ??= {
    html: readFileSync(join(PAGE_DIR, 'status.html'), 'utf8'),
    script: readFileSync(join(PAGE_DIR, 'status.js')),
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
