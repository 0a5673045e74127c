// `ttd dap` driven by VS Code's own DAP test client
// (@vscode/debugadapter-testsupport's DebugClient) on a trace recorded
// from examples/linked_list.c: a conditional breakpoint (continue and
// reverseContinue), a logpoint both ways, a hit count, a function
// breakpoint, evaluate with a comparison. Run by run.sh, which installs
// the client; usage: node ttd_dap.test.js TTD EXAMPLES SOURCES WORK
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const [ttd, examples, sources, work] = process.argv.slice(2);
const program = path.join(examples, 'linked_list');
const src = path.join(sources, 'linked_list.c');

function lineOf(text) {
  const lines = fs.readFileSync(src, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  assert.ok(i >= 0, 'no line with ' + text);
  return i + 1;
}

function record() {
  if (!fs.existsSync(program)) {
    console.log('SKIPPED: example not built: ' + program);
    process.exit(77);
  }
  fs.mkdirSync(work, { recursive: true });
  const trace = path.join(work, 'linked_list-vscode.ucir');
  for (const f of [trace, trace + '.ttdidx']) fs.rmSync(f, { force: true });
  const r = cp.spawnSync(ttd, ['record', '-o', trace, '--', program], { encoding: 'utf8' });
  assert.ok(fs.existsSync(trace), 'ttd record failed: ' + r.stderr);
  return trace;
}

async function main() {
  const trace = record();
  const store = lineOf('n->quantity = quantity;');
  const dc = new DebugClient(ttd, 'dap', 'ttd');
  dc.defaultTimeout = 60000;
  const outputs = [];
  dc.on('output', (e) => outputs.push(e.body.output));
  await dc.start();
  try {
    const init = await dc.initializeRequest();
    for (const k of ['supportsConditionalBreakpoints', 'supportsHitConditionalBreakpoints', 'supportsLogPoints',
                     'supportsFunctionBreakpoints', 'supportsStepBack']) {
      assert.strictEqual(init.body[k], true, k);
    }
    const initialized = dc.waitForEvent('initialized');
    // No "program": the trace names it (ttd record records it).
    await dc.launchRequest({ trace, stopOnEntry: true });
    await initialized;

    const bad = await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: store, condition: 'quantity ==' }] });
    assert.strictEqual(bad.body.breakpoints[0].verified, false, 'a condition that does not parse is unverified');
    assert.match(bad.body.breakpoints[0].message, /condition/);

    const set = await dc.setBreakpointsRequest({
      source: { path: src }, breakpoints: [{ line: store, condition: 'quantity == 30 || quantity == 40' }] });
    assert.strictEqual(set.body.breakpoints[0].verified, true);
    let stopped = dc.waitForEvent('stopped');
    await dc.configurationDoneRequest();
    const entry = await stopped;
    assert.strictEqual(entry.body.reason, 'entry');
    const threadId = entry.body.threadId;

    async function run(request, reason) {
      const s = dc.waitForEvent('stopped');
      await request({ threadId });
      const e = await s;
      if (reason) assert.strictEqual(e.body.reason, reason);
      return e;
    }
    async function quantity() {
      const st = await dc.stackTraceRequest({ threadId });
      const top = st.body.stackFrames[0];
      const r = await dc.evaluateRequest({ expression: 'quantity', frameId: top.id, context: 'watch' });
      return [top, r.body.result];
    }

    // Conditional breakpoint, forwards then backwards.
    await run((a) => dc.continueRequest(a), 'breakpoint');
    let [top, q] = await quantity();
    assert.strictEqual(q, '30');
    assert.strictEqual(top.name, 'push');
    assert.strictEqual(top.line, store);
    assert.strictEqual(path.basename(top.source.path), 'linked_list.c');
    await run((a) => dc.continueRequest(a), 'breakpoint');
    assert.strictEqual((await quantity())[1], '40');
    await run((a) => dc.reverseContinueRequest(a), 'breakpoint');
    assert.strictEqual((await quantity())[1], '30');
    const cmp = await dc.evaluateRequest({ expression: 'n->quantity != quantity && name[0] == \'c\'',
                                            frameId: (await quantity())[0].id, context: 'watch' });
    assert.strictEqual(cmp.body.result, '1', 'evaluate with comparisons');

    // Logpoint: runs to the end printing, then back to the start.
    await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: store, logMessage: 'LOG q={quantity}' }] });
    outputs.length = 0;
    await run((a) => dc.continueRequest(a), 'end of history');
    assert.deepStrictEqual(outputs.filter((o) => o.startsWith('LOG')).map((o) => o.trim()), ['LOG q=40']);
    outputs.length = 0;
    await run((a) => dc.reverseContinueRequest(a), 'start of history');
    assert.deepStrictEqual(outputs.filter((o) => o.startsWith('LOG')).map((o) => o.trim()),
                           ['LOG q=40', 'LOG q=30', 'LOG q=20', 'LOG q=10']);

    // Hit count: the 2nd hit.
    await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: store, hitCondition: '== 2' }] });
    await run((a) => dc.continueRequest(a), 'breakpoint');
    assert.strictEqual((await quantity())[1], '20');

    // Function breakpoint with a condition.
    await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
    const fb = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'push', condition: 'quantity == 40' }] });
    assert.strictEqual(fb.body.breakpoints[0].verified, true);
    await run((a) => dc.continueRequest(a), 'function breakpoint');
    [top, q] = await quantity();
    assert.strictEqual(top.name, 'push');
    assert.strictEqual(q, '40');
    console.log('VS Code DAP test client: conditional breakpoints, logpoints, hit counts, function breakpoints, ' +
                'reverse continue passed');
  } finally {
    await dc.stop();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error('FAILED: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
