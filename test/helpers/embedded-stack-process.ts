/**
 * The embedded stack of `npm start` (PostgreSQL and the Temporal dev server) in a process of its
 * own, for tests that kill it: the environment names DATA_DIR and the ports. Prints one JSON line
 * with its endpoints once both answer; SIGTERM stops them and exits.
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.ts';
import { startEmbeddedStack } from '../../src/embedded/stack.ts';

const stack = await startEmbeddedStack(loadConfig(), pino({ level: 'silent' }));
process.once('SIGTERM', () => {
  void stack.stop().then(() => process.exit(0));
});
console.log(JSON.stringify(stack.endpoints));
