import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import * as messages from '../../src/workflows/contracts/messages.ts';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/contracts/search-attributes.ts';

// The workflow contracts are what workflows, the client adapter, the domain and tests share; they
// must load anywhere (no I/O, nothing of the domain at run time) and be the only place a signal or
// update gets its name.

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONTRACTS = path.join(ROOT, 'src/workflows/contracts');

/** Every module a plain Node process resolves while importing each contracts module, with its importer. */
async function modulesLoadedByContracts(): Promise<{ from: string; url: string }[]> {
  const files = (await fs.readdir(CONTRACTS)).filter((f) => f.endsWith('.ts')).map((f) => path.join(CONTRACTS, f));
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      seen.push({ from: context.parentURL ?? '', url: resolved.url });
      return resolved;
    } });
    for (const file of ${JSON.stringify(files)}) await import(file);
    process.stdout.write(JSON.stringify(seen));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return JSON.parse(stdout);
}

test('the contracts load in a plain process without Node built-ins or any of our modules outside them', async (t) => {
  const loaded = await modulesLoadedByContracts();
  t.true(loaded.length > 0);
  const builtins = loaded.filter(({ url }) => url.startsWith('node:') || !url.includes(':'));
  t.deepEqual(builtins, [], 'no module reached from the contracts is a Node built-in (fs, net, child_process, ...)');
  const ours = loaded.map(({ url }) => url).filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'));
  t.deepEqual(
    ours.filter((url) => !url.startsWith(`file://${CONTRACTS}/`)),
    [],
    'only contracts modules of ours (the domain payload types are imported as types)',
  );
  const packages = new Set(
    loaded
      .filter(({ from }) => from.startsWith(`file://${CONTRACTS}/`))
      .filter(({ url }) => url.includes('/node_modules/'))
      .map(({ url }) => url.replace(/.*\/node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*/, '$1')),
  );
  t.deepEqual([...packages].sort(), ['@temporalio/common', '@temporalio/workflow']);
});

/** The TypeScript sources under src/, relative to the root. */
async function sources(): Promise<{ file: string; text: string }[]> {
  const entries = await fs.readdir(path.join(ROOT, 'src'), { recursive: true });
  const files = entries.filter((f) => f.endsWith('.ts')).map((f) => path.join('src', f));
  return Promise.all(files.map(async (file) => ({ file, text: await fs.readFile(path.join(ROOT, file), 'utf8') })));
}

test('signals and updates are defined once, in the contracts, with distinct names', async (t) => {
  const defining = (await sources()).filter(({ text }) => /\bdefine(Signal|Update|Query)\s*[<(]/.test(text)).map(({ file }) => file);
  t.deepEqual(defining, ['src/workflows/contracts/messages.ts']);
  const definitions = Object.values(messages).filter((v) => typeof v !== 'string');
  t.true(definitions.length >= 7);
  const names = definitions.map((d) => `${d.type}:${d.name}`);
  t.deepEqual(names, [...new Set(names)]);
});

test('the client adapter and the workflows send and handle messages only through those definitions', async (t) => {
  const all = await sources();
  const sides = all.filter(({ file }) => file === 'src/temporal/client.ts' || /^src\/workflows\/[^/]+\.ts$/.test(file));
  // A name given as a string where a definition belongs: signal('x'), executeUpdate('x'), signal: 'x', setHandler('x', ...).
  const literal = /(\.signal|executeUpdate|startUpdate|\.query|setHandler)\(\s*['"`]|\bsignal:\s*['"`]/;
  t.deepEqual(
    sides.filter(({ text }) => literal.test(text)).map(({ file }) => file),
    [],
  );
  const client = sides.find(({ file }) => file === 'src/temporal/client.ts')!.text;
  const workflows = sides
    .filter(({ file }) => file !== 'src/temporal/client.ts')
    .map(({ text }) => text)
    .join('\n');
  const sent = Object.keys(messages).filter((name) => new RegExp(`\\b${name}\\b`).test(client));
  // Every message the client sends is one a workflow handles: same definition object on both sides.
  t.deepEqual(
    sent.filter((name) => !new RegExp(`setHandler\\(\\s*${name}\\b`).test(workflows)),
    [],
  );
  t.deepEqual(sent.sort(), [
    'claimClosedSignal',
    'emailLinkOpenedSignal',
    'paidLaunchSignal',
    'paymentConfirmedSignal',
    'recheckSignal',
    'retryUpdate',
    'verifyNowUpdate',
  ]);
});

test('the search attributes every server registers are the keys the workflows and the client set', (t) => {
  t.deepEqual(SEARCH_ATTRIBUTES, {
    ListingId: 'Int',
    OrderNumber: 'Keyword',
    ClaimId: 'Int',
    DraftId: 'Int',
    DraftStatus: 'Keyword',
    SiteKey: 'Keyword',
  });
});
