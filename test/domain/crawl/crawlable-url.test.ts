import test from 'ava';
import { AppError } from '../../../src/errors/errors.ts';
import { assertCrawlableUrl } from '../../../src/domain/crawl/index.ts';
import { isAddressAllowed } from '../../../src/domain/crawl/address-guard.ts';

async function rejection(url: string, allowPrivate: boolean): Promise<AppError> {
  const err = await assertCrawlableUrl(url, allowPrivate).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError for ${url}, got ${String(err)}`);
  return err;
}

test('loopback IPv4 literal is refused unless private networks are allowed', async (t) => {
  const err = await rejection('http://127.0.0.1/', false);
  t.is(err.status, 400);
  t.is(err.code, 'address_refused');
  t.is(err.title, 'Address refused');
  t.regex(err.message, /127\.0\.0\.1/);
  t.regex(err.message, /loopback/);
  await t.notThrowsAsync(assertCrawlableUrl('http://127.0.0.1/', true));
});

test('loopback IPv6 literal is refused', async (t) => {
  const err = await rejection('http://[::1]/', false);
  t.is(err.code, 'address_refused');
  t.regex(err.message, /::1/);
});

test('cloud metadata address is refused even when private networks are allowed', async (t) => {
  const err = await rejection('http://169.254.169.254/', true);
  t.is(err.code, 'address_refused');
  t.regex(err.message, /link-local/);
});

test('IPv4-mapped IPv6 of a private address is refused', async (t) => {
  const err = await rejection('http://[::ffff:10.0.0.1]/', false);
  t.is(err.code, 'address_refused');
});

test('IPv4-compatible IPv6 (::/96) is refused, also with private networks allowed', async (t) => {
  for (const url of [
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::10.0.0.1]/',
    'http://[::8.8.8.8]/',
    'http://[0:0:0:0:0:0:a9fe:a9fe]/',
  ]) {
    for (const allowPrivate of [false, true]) {
      const err = await rejection(url, allowPrivate);
      t.is(err.code, 'address_refused', url);
      t.regex(err.message, /IPv4-compatible/, url);
    }
  }
});

test('localhost is refused because it resolves to loopback', async (t) => {
  const err = await rejection('http://localhost/', false);
  t.is(err.code, 'address_refused');
  t.is(err.message, 'localhost resolves to a loopback address, which the crawler does not connect to.');
  t.false(err.message.includes('127.0.0.1'), 'what a host name resolves to is never told');
  await t.notThrowsAsync(assertCrawlableUrl('http://localhost:8080/', true));
});

test('a host that does not resolve is accepted (the crawl reports dns_failure)', async (t) => {
  await t.notThrowsAsync(assertCrawlableUrl('http://no-such-host.invalid/', false));
});

test('non-http URLs and URLs with credentials are invalid_url', async (t) => {
  for (const url of ['ftp://x', 'http://u:p@example.com', 'javascript:alert(1)', 'not a url', 'file:///etc/passwd']) {
    const err = await rejection(url, true);
    t.is(err.status, 400, url);
    t.is(err.code, 'invalid_url', url);
  }
});

test('address guard ranges', (t) => {
  t.true(isAddressAllowed('93.184.216.34', false));
  t.true(isAddressAllowed('2606:2800:220:1:248:1893:25c8:1946', false));
  for (const a of ['10.1.2.3', '192.168.0.1', '172.16.0.1', '127.0.0.1', '::1', 'fd00::1', '100.64.0.1', '::ffff:127.0.0.1']) {
    t.false(isAddressAllowed(a, false), a);
    t.true(isAddressAllowed(a, true), a);
  }
  for (const a of [
    '169.254.169.254',
    'fe80::1',
    '0.0.0.0',
    '::',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '::7f00:1',
    '::0.0.0.2',
    '::8.8.8.8',
    'nonsense',
  ]) {
    t.false(isAddressAllowed(a, true), a);
  }
});
