// The outside programs the suite starts for real (Debian packages; scripts/install-test-deps.sh installs
// them, and .ci/run calls that script). A test file that needs one calls requireTools(...) at its top, so
// a missing program fails that file with one line naming what to install — never a skip: a green run
// means every test ran. The support modules that start the programs resolve them here too.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Program → the Debian package that provides it (test/unit/support/required-tools.test.ts keeps the script in step). */
export const TOOL_PACKAGES = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  prometheus: 'prometheus',
  promtool: 'prometheus',
  haproxy: 'haproxy',
  chromium: 'chromium',
  kubectl: 'kubectl',
} as const;

export type Tool = keyof typeof TOOL_PACKAGES;

// haproxy lives in /usr/sbin, which a non-root PATH often lacks.
const EXTRA_DIRS = ['/usr/sbin', '/usr/local/sbin'];

const found = new Map<Tool, string | undefined>();

/** The first executable `name` in `dirs`, or undefined. */
export function locate(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Absolute path of the program on PATH (or in an sbin), or undefined when it is not installed. */
export function findTool(tool: Tool): string | undefined {
  if (!found.has(tool)) found.set(tool, locate(tool, [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS]));
  return found.get(tool);
}

/** A missing program: its message is the whole report (no stack), one line in vitest's output. */
export class MissingToolError extends Error {
  constructor(tools: readonly Tool[]) {
    const packages = [...new Set(tools.map((t) => TOOL_PACKAGES[t]))].join(' ');
    super(`${tools.join(', ')} not installed: run scripts/install-test-deps.sh (apt-get install ${packages})`);
    this.name = 'MissingToolError';
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** The program's absolute path; throws MissingToolError when it is not installed. */
export function requireTool(tool: Tool): string {
  const path = findTool(tool);
  if (path === undefined) throw new MissingToolError([tool]);
  return path;
}

/** For a test file's top: every program it needs, or one MissingToolError naming all that are missing. */
export function requireTools(...tools: Tool[]): void {
  const missing = tools.filter((t) => findTool(t) === undefined);
  if (missing.length) throw new MissingToolError(missing);
}
