// flame_browser.js SVG PNG-DIR: opens a flame graph of deep16 in headless
// Chromium (playwright-core) and checks, with real mouse clicks, that
// clicking a frame zooms to it, Reset Zoom undoes it, a search highlights
// the matches with their share, hovering shows a frame's details, the
// icicle layout is upside down, and nothing is fetched from the network.
// Prints "ok ..." lines; exits 1 at the first failure.
'use strict';
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE);
const [svg, icicle, shots] = process.argv.slice(2);

function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); process.exit(1); }
  console.log('ok ' + what);
}

// The widest frame of that name (a name can appear under several callers).
async function frame(page, name) {
  const all = page.locator('g.f', { has: page.locator('title', { hasText: new RegExp('^' + name + ' \\(') }) });
  const widths = await all.evaluateAll(gs => gs.map(g => +g.querySelector('rect').getAttribute('width')));
  return all.nth(widths.indexOf(Math.max(...widths)));
}

async function rect(loc) {
  return loc.evaluate(g => {
    const r = g.querySelector('rect');
    return { x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),
             fill: r.getAttribute('fill'), shown: g.style.display !== 'none' };
  });
}

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1250, height: 900 } });
  const remote = [];
  page.on('request', r => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  await page.goto('file://' + path.resolve(svg));
  await page.waitForFunction(() => document.readyState === 'complete');

  const hot = await frame(page, 'hot_leaf'), warm = await frame(page, 'warm_leaf');
  const before = await rect(hot), warmBefore = await rect(warm);
  check(before.w > 600 && before.w < 900, 'hot_leaf is about 2/3 of the width (' + before.w + ' px)');
  await hot.click();
  const zoomed = await rect(hot);
  check(await page.evaluate(() => document.documentElement.getAttribute('data-zoom')) === 'hot_leaf',
        'a click on hot_leaf zooms to it');
  check(Math.abs(zoomed.x - 10) < 0.5 && Math.abs(zoomed.w - 1180) < 0.5,
        'hot_leaf fills the width after the zoom (x ' + zoomed.x + ', w ' + zoomed.w + ')');
  check(!(await rect(warm)).shown, 'its sibling warm_leaf is hidden');
  const d16 = await rect(await frame(page, 'd16'));
  check(d16.shown && Math.abs(d16.w - 1180) < 0.5, 'its caller d16 spans the width, faded');
  await page.screenshot({ path: path.join(shots, 'zoomed.png') });
  await page.click('#reset');
  const reset = await rect(hot);
  check(Math.abs(reset.w - before.w) < 0.01 && (await rect(warm)).shown, 'Reset Zoom restores the graph');

  page.once('dialog', d => d.accept('warm_leaf'));
  await page.click('#search');
  const hit = await rect(warm), miss = await rect(hot);
  check(hit.fill === 'rgb(230,0,230)' && miss.fill !== 'rgb(230,0,230)', 'search highlights warm_leaf only');
  const matched = parseFloat(await page.evaluate(() => document.documentElement.getAttribute('data-matched')));
  const text = await page.textContent('#matched');
  const share = 100 * warmBefore.w / 1180;
  check(Math.abs(matched - share) < 0.2 && text === 'Matched: ' + matched.toFixed(1) + '%',
        'the matched share is warm_leaf\'s (' + text + ', width share ' + share.toFixed(1) + '%)');
  await page.screenshot({ path: path.join(shots, 'search.png') });
  page.once('dialog', d => d.accept('^d[0-9]+$'));
  await page.click('#search');
  const nested = parseFloat(await page.evaluate(() => document.documentElement.getAttribute('data-matched')));
  check(nested > 95 && nested <= 100, 'nested matches (d1..d16) count each sample once: ' + nested + '%');
  await page.click('#clear');
  check((await rect(warm)).fill === warmBefore.fill, 'Clear search restores the colours');

  await hot.hover();
  check(/^hot_leaf \(\d+ samples, [\d.]+%\)$/.test(await page.textContent('#details')),
        'hovering hot_leaf shows its samples and share');
  check(await hot.evaluate(g => /^hot_leaf \(\d+ samples/.test(g.querySelector('title').textContent)),
        'hot_leaf has a tooltip title');

  await page.goto('file://' + path.resolve(icicle));
  await page.waitForFunction(() => document.readyState === 'complete');
  const root = await rect(await frame(page, 'all')), leaf = await rect(await frame(page, 'hot_leaf'));
  check(root.y < leaf.y, 'the icicle graph has its root at the top');
  await page.screenshot({ path: path.join(shots, 'icicle.png') });
  check(remote.length === 0, 'nothing was fetched from the network (' + remote.join(' ') + ')');
  check(errors.length === 0, 'no script errors (' + errors.join('; ') + ')');
  await browser.close();
})().catch(e => { console.log('FAIL: ' + e.message); process.exit(1); });
