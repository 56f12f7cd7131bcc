import test from 'ava';
import { deviceLabel } from '../../src/auth/device-label.ts';

// The device names /account shows for sessions: browsers that name their ancestors too are named
// by what they are.

test('real User-Agents name browser and system', (t) => {
  const cases: [string, string][] = [
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36 Edg/138.0.0.0',
      'Edge on Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      'Safari on macOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/138.0 Mobile/15E148 Safari/604.1',
      'Chrome on iPhone',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0', 'Firefox on Linux'],
    ['curl/8.5.0', 'curl'],
  ];
  for (const [ua, label] of cases) t.is(deviceLabel(ua), label, ua);
});

test('no User-Agent, an unknown one, or a huge one is an unknown device, quickly', (t) => {
  t.is(deviceLabel(undefined), 'Unknown device');
  t.is(deviceLabel('node'), 'Unknown device');
  t.is(deviceLabel(`${'x'.repeat(100_000)} Firefox/1`), 'Unknown device', 'only the first 512 characters are read');
});
