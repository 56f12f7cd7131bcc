import type { ChildProcess } from 'node:child_process';
import { StartupError } from './startup-error.ts';

/**
 * Asks a server the start just spawned (`child`) whether it is ready, every 250 ms, until `ready`
 * says so: a StartupError with `exitedMessage` (what to do about it) once the child exits first,
 * an Error with `timeoutMessage` after `timeoutMs`. A probe that throws counts as not ready yet.
 */
export async function waitUntilReady(
  child: ChildProcess,
  ready: () => Promise<boolean>,
  messages: { exited: string; timedOut: string },
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new StartupError(messages.exited);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(messages.timedOut);
}
