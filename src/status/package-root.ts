// The package's root folder, found from this file whether it runs from src/ (tsx, vitest) or from the
// compiled dist/ (npm start; tsc does not copy non-TS files): both are one folder below the root.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let version: string | undefined;

/** package.json's version, read once. */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      version = String((JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
