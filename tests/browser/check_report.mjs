// check_report.mjs — opens one HTML report in Debian's headless Chromium (driven by
// playwright-core, which never downloads a browser) and reports what a person would see:
// whether every chart rendered, how many marks each drew, what the console said and whether
// the page tried to fetch anything (all network is blocked: the file must be self-contained).
// It prints one JSON object on stdout for the C++ test (tests/report_html_test.cc) to judge,
// saves a full-page PNG screenshot, and exits 0 only when the generic checks pass.
//
// usage: node check_report.mjs --modules DIR --chromium PATH --report FILE.html --screenshot FILE.png
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const kTimeoutMs = 60000;  // whole run; a report renders in about a second
const watchdog = setTimeout(() => {
  console.error(`check_report: gave up after ${kTimeoutMs} ms`);
  process.exit(3);
}, kTimeoutMs);

function argument(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= process.argv.length) {
    console.error(`check_report: missing --${name} (usage: --modules DIR --chromium PATH ` +
                  `--report FILE.html --screenshot FILE.png)`);
    process.exit(2);
  }
  return process.argv[i + 1];
}

const modules = argument('modules');
const chromiumPath = argument('chromium');
const report = path.resolve(argument('report'));
const screenshot = path.resolve(argument('screenshot'));
for (const [what, file] of [['chromium', chromiumPath], ['report', report],
                            ['playwright-core', path.join(modules, 'playwright-core')]]) {
  if (!fs.existsSync(file)) {
    console.error(`check_report: ${what} not found at ${file} (scripts/setup.sh installs it)`);
    process.exit(2);
  }
}
const require = createRequire(path.join(path.resolve(modules), 'index.js'));
const { chromium } = require('playwright-core');

const reportUrl = pathToFileURL(report).href;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pqc-report-chromium-'));
const result = { consoleErrors: [], pageErrors: [], blockedRequests: [], failedRequests: [] };
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Every request but the report itself is refused and recorded.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === reportUrl) return route.continue();
    result.blockedRequests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') result.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  page.on('requestfailed', (r) => {
    if (r.url() !== reportUrl) result.failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`);
  });
  await page.goto(reportUrl, { waitUntil: 'load' });
  result.chartsReady = await page.evaluate(async () => {
    if (!window.pqcChartsReady) return 'no window.pqcChartsReady';
    try { return await window.pqcChartsReady; } catch (e) { return `rejected: ${e}`; }
  });
  Object.assign(result, await page.evaluate(() => {
    const count = (root, selector) => root.querySelectorAll(selector).length;
    const charts = {};
    for (const el of document.querySelectorAll('div.chart')) {
      charts[el.id] = {
        rendered: el.getAttribute('data-rendered') === 'true',
        error: el.getAttribute('data-error'),
        series: Number(el.getAttribute('data-series')),
        svg: count(el, 'svg'),
        lines: count(el, 'g.mark-line.role-mark > path'),
        rects: count(el, 'g.mark-rect.role-mark > path'),
        rules: count(el, 'g.mark-rule.role-mark > line'),
        symbols: count(el, 'g.mark-symbol.role-mark > path'),
        texts: count(el, 'g.mark-text.role-mark > text'),
        selects: count(el, 'select'),
        height: el.getBoundingClientRect().height,
      };
    }
    return {
      title: document.title,
      h1: document.querySelector('h1')?.textContent,
      charts,
      omitted: [...document.querySelectorAll('p.omitted')].map((p) => p.id),
      armRows: count(document, '#arms tr.arm'),
      failureRows: [...document.querySelectorAll('#arms tr.failure')].map((r) => r.textContent),
      banner: document.getElementById('run-status')?.textContent,
      warnings: count(document, '#warnings li'),
      comparisons: Math.max(0, count(document, '#comparisons tr') - 1),
      injected: typeof window.__pqcInjected === 'undefined' ? null : String(window.__pqcInjected),
      scripts: count(document, 'script'),
    };
  }));
  await page.screenshot({ path: screenshot, fullPage: true });
  result.screenshot = screenshot;
} catch (e) {
  result.exception = String(e && e.stack || e);
} finally {
  if (context) await context.close().catch(() => {});
  fs.rmSync(profile, { recursive: true, force: true });
  clearTimeout(watchdog);
}

const charts = Object.values(result.charts ?? {});
result.ok = !result.exception && result.consoleErrors.length === 0 &&
            result.pageErrors.length === 0 && result.blockedRequests.length === 0 &&
            result.failedRequests.length === 0 && typeof result.chartsReady === 'number' &&
            result.chartsReady === charts.length && charts.every((c) => c.rendered && c.svg > 0);
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(result.ok ? 0 : 1);
