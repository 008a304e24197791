// fetch_tls.mjs — fetches each given https URL in Debian's headless Chromium (driven by
// playwright-core, which never downloads a browser) and reports what the browser negotiated:
// the status and body it got, and the TLS connection's securityDetails as Chromium's own
// network stack saw them (CDP Network.responseReceived: protocol, keyExchangeGroup, cipher,
// certificate). The servers' certificates come from a test CA of ours, so Chromium is told to
// trust exactly their leaf keys (--ignore-certificate-errors-spki-list), nothing wider.
// It prints one JSON object on stdout for tests/real_clients_test.py to judge, and exits 0
// when every URL answered (the judging is the caller's).
//
// --quic HOST:PORT[,HOST:PORT...] forces HTTP/3 over QUIC for those origins (Chromium's
// --origin-to-force-quic-on: no Alt-Svc discovery, no fallback to TCP); QUIC is off otherwise.
//
// usage: node fetch_tls.mjs --modules DIR --chromium PATH --spki HASH[,HASH...]
//        [--quic HOST:PORT[,...]] URL...
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const kTimeoutMs = 60000;  // whole run; a fetch on loopback takes well under a second
const watchdog = setTimeout(() => {
  console.error(`fetch_tls: gave up after ${kTimeoutMs} ms`);
  process.exit(3);
}, kTimeoutMs);

const kUsage =
    'usage: --modules DIR --chromium PATH --spki HASH[,HASH...] [--quic HOST:PORT[,...]] URL...';
const options = {};
const urls = [];
for (let i = 2; i < process.argv.length; ++i) {
  const arg = process.argv[i];
  if (arg.startsWith('--')) {
    if (i + 1 >= process.argv.length) {
      console.error(`fetch_tls: ${arg} needs a value (${kUsage})`);
      process.exit(2);
    }
    options[arg.slice(2)] = process.argv[++i];
  } else {
    urls.push(arg);
  }
}
for (const name of ['modules', 'chromium', 'spki']) {
  if (!options[name]) {
    console.error(`fetch_tls: missing --${name} (${kUsage})`);
    process.exit(2);
  }
}
if (urls.length === 0) {
  console.error(`fetch_tls: no URL (${kUsage})`);
  process.exit(2);
}
for (const [what, file] of [['chromium', options.chromium],
                            ['playwright-core', path.join(options.modules, 'playwright-core')]]) {
  if (!fs.existsSync(file)) {
    console.error(`fetch_tls: ${what} not found at ${file} (scripts/setup.sh installs it)`);
    process.exit(2);
  }
}
const require = createRequire(path.join(path.resolve(options.modules), 'index.js'));
const { chromium } = require('playwright-core');

// The SPKI list is honoured only with a user data directory of our own: a persistent context.
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pqc-fetch-tls-chromium-'));
const result = { fetches: [] };
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: options.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           `--ignore-certificate-errors-spki-list=${options.spki}`,
           ...(options.quic ? ['--enable-quic', `--origin-to-force-quic-on=${options.quic}`]
                            : ['--disable-quic'])],
  });
  const page = context.pages()[0] ?? await context.newPage();
  result.userAgent = await page.evaluate(() => navigator.userAgent);
  const cdp = await context.newCDPSession(page);
  const seen = new Map();  // URL → the document response Chromium's network stack reported
  cdp.on('Network.responseReceived', (event) => {
    if (event.type === 'Document') seen.set(event.response.url, event.response);
  });
  await cdp.send('Network.enable');
  for (const url of urls) {
    const fetch = { url };
    try {
      const response = await page.goto(url, { waitUntil: 'load' });
      fetch.status = response.status();
      fetch.body = await response.text();
      const reported = seen.get(url);
      fetch.protocol = reported?.protocol;  // the HTTP version (http/1.1, h2, h3)
      fetch.securityDetails = reported?.securityDetails ?? null;
    } catch (e) {
      fetch.error = String(e && e.message || e);
    }
    result.fetches.push(fetch);
  }
} catch (e) {
  result.exception = String(e && e.stack || e);
} finally {
  if (context) await context.close().catch(() => {});
  fs.rmSync(profile, { recursive: true, force: true });
  clearTimeout(watchdog);
}

result.ok = !result.exception && result.fetches.every((f) => !f.error);
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(result.ok ? 0 : 1);
