import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built admin CLI as `npm run cli` runs it: the bundle of dist/apps/cli/main.js (apps/server/rolldown.config.mjs). */
export const CLI_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/bundle/cli.js');

/** What a CLI run printed and how it exited (`code` null when killed by a signal). */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the admin CLI as its own process with `args` and an environment of only PATH plus `env`
 * (so nothing from the test's own environment configures it); resolves when it exits.
 * @throws Error when the process cannot be started
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runNode([CLI_MAIN, ...args], env);
}

/**
 * Runs `node <args>` (this test's Node.js) as its own process with an environment of only PATH
 * plus `env`; resolves with what it printed when it exits.
 * @throws Error when the process cannot be started
 */
export function runNode(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
