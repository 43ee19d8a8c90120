#!/usr/bin/env node
// Process entry: the one reader of process.argv and process.env. Says which command runs
// (src/cli/arguments.ts) and hands it the environment: serve (the default), check, hash-key.
import { parseArguments, USAGE, UsageError, type Command } from './cli/arguments.js';
import { swallowedByNpm } from './cli/npm-flags.js';

const out = (s: string) => void process.stdout.write(s);
const err = (s: string) => void process.stderr.write(s);

function commandOrExit(): Command {
  try {
    return parseArguments(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`switchyard: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const env = process.env;
  // First of all: serving the demo config to someone who asked for their own file is worse than not
  // starting, and the bare path npm passed on would otherwise read as a stray argument.
  const swallowed = swallowedByNpm(env, process.argv.slice(2));
  if (swallowed) {
    err(`switchyard: ${swallowed}\n`);
    process.exit(2);
  }
  const command = commandOrExit();
  switch (command.name) {
    case 'help':
      out(`${USAGE}\n`);
      return;
    // Each command loads only what it needs: hash-key never loads the gateway.
    case 'check': {
      const { checkCommand } = await import('./cli/check.js');
      process.exitCode = checkCommand(command.config ?? env.SWITCHYARD_CONFIG, env, { out, err });
      return;
    }
    case 'hash-key': {
      const { hashKeyCommand } = await import('./cli/hash-key.js');
      process.exitCode = await hashKeyCommand(command.key, { stdin: process.stdin, out, err });
      return;
    }
    case 'keys':
    case 'teams': {
      const { keysCommand, KEYS_USAGE } = await import('./cli/keys.js');
      if (command.argv.length === 0 || command.argv.includes('--help') || command.argv.includes('-h')) {
        out(`${KEYS_USAGE}\n`);
        return;
      }
      process.exitCode = await keysCommand(command.name, command.argv, { out, err, env });
      return;
    }
    case 'serve': {
      const { serveCommand } = await import('./cli/serve.js');
      await serveCommand({ file: command.config ?? env.SWITCHYARD_CONFIG, workers: command.workers ?? env.SWITCHYARD_WORKERS, env });
    }
  }
}

void main();
