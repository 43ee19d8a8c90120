// The one error configuration problems raise: its message names the key at fault. A file with several
// problems raises one ConfigError that lists them all (one per line), so a fix is not a guessing game
// of one problem per run.
export class ConfigError extends Error {
  /** Each problem on its own, `key: what is wrong` (the message is these, one per line). */
  readonly problems: readonly string[];

  constructor(message: string | readonly string[]) {
    const problems = typeof message === 'string' ? [message] : message;
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
