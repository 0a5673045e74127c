// Checks the extension without VS Code: package.json declares the ttd
// debugger with the launch attributes `ttd dap` reads, and activate()
// registers a factory that starts `ttd dap` (or connects to a port).
// Run: node ide/vscode/test/extension.test.js
'use strict';
const assert = require('assert');
const Module = require('module');
const path = require('path');

const registered = {};
let workspaceTraces = [{ fsPath: '/ws/b/list.ucir' }, { fsPath: '/ws/a/sort.ucir' }];
let quickPickAnswer = (items) => items[0];
const settings = { executable: 'ttd' };
const fakeVscode = {
  DebugAdapterExecutable: class { constructor(command, args) { this.command = command; this.args = args; } },
  DebugAdapterServer: class { constructor(port, host) { this.port = port; this.host = host; } },
  debug: {
    registerDebugAdapterDescriptorFactory: (type, f) => { registered[type] = f; return { dispose() {} }; },
    registerDebugConfigurationProvider: (type, p) => { registered['provider:' + type] = p; return { dispose() {} }; },
  },
  commands: { registerCommand: (name, fn) => { registered[name] = fn; return { dispose() {} }; } },
  workspace: {
    getConfiguration: () => ({ get: (k) => settings[k] }),
    findFiles: async (glob) => { fakeVscode.lastGlob = glob; return workspaceTraces; },
    asRelativePath: (u) => u.fsPath.replace('/ws/', ''),
  },
  window: {
    showQuickPick: async (items) => { fakeVscode.lastItems = items; return quickPickAnswer(items); },
    showOpenDialog: async () => [{ fsPath: '/elsewhere/picked.ucir' }],
  },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') return fakeVscode;
  return load.call(this, request, parent, isMain);
};

const root = path.join(__dirname, '..');
const pkg = require(path.join(root, 'package.json'));
const dbg = pkg.contributes.debuggers.find((d) => d.type === 'ttd');
assert(dbg, 'package.json contributes a "ttd" debugger');
assert.deepStrictEqual(dbg.configurationAttributes.launch.required, ['trace']);
for (const k of ['trace', 'program', 'stopOnEntry', 'start', 'sourceMap']) {
  assert(k in dbg.configurationAttributes.launch.properties, 'launch attribute ' + k);
}
assert(dbg.configurationSnippets.length >= 2, 'launch configuration snippets');
assert(pkg.contributes.breakpoints.some((b) => b.language === 'c'), 'breakpoints allowed in C files');

const ext = require(path.join(root, pkg.main));
ext.activate({ subscriptions: [] });
assert(registered.ttd, 'a descriptor factory is registered for "ttd"');
assert(registered['ttd.seek'], 'the seek command is registered');
let d = registered.ttd.createDebugAdapterDescriptor({ configuration: { trace: 't.ucir' } });
assert.strictEqual(d.command, 'ttd');
assert.deepStrictEqual(d.args, ['dap']);
d = registered.ttd.createDebugAdapterDescriptor({ configuration: { trace: 't.ucir', ttdPath: '/opt/ttd/bin/ttd' } });
assert.strictEqual(d.command, '/opt/ttd/bin/ttd');
d = registered.ttd.createDebugAdapterDescriptor({ configuration: { trace: 't.ucir', debugServer: 4711 } });
assert.strictEqual(d.port, 4711);
// Packaging: what vsce needs without warnings.
const fs = require('fs');
assert(pkg.repository && pkg.repository.url, 'package.json has a repository');
assert(fs.existsSync(path.join(root, 'LICENSE')), 'LICENSE beside package.json');
assert(pkg.icon && fs.existsSync(path.join(root, pkg.icon)), 'the icon exists');
assert(/quick start/i.test(fs.readFileSync(path.join(root, 'README.md'), 'utf8')), 'README has a quick start');

// A trace picked from the workspace: ${command:pickTrace} and F5 without launch.json.
assert.strictEqual(dbg.variables.pickTrace, 'ttd.pickTrace');
assert.strictEqual(dbg.initialConfigurations[0].trace, '${command:pickTrace}');
assert(pkg.contributes.commands.some((c) => c.command === 'ttd.pickTrace'), 'pickTrace is a contributed command');
assert(registered['ttd.pickTrace'], 'the pickTrace command is registered');
(async () => {
  assert.strictEqual(await registered['ttd.pickTrace'](), '/ws/a/sort.ucir');  // sorted: a/ first
  assert.deepStrictEqual(fakeVscode.lastItems, ['a/sort.ucir', 'b/list.ucir', 'Browse...']);
  assert(/ucir/.test(fakeVscode.lastGlob));
  quickPickAnswer = () => undefined;
  assert.strictEqual(await registered['ttd.pickTrace'](), undefined, 'cancel: no trace');
  quickPickAnswer = (items) => items[items.length - 1];
  assert.strictEqual(await registered['ttd.pickTrace'](), '/elsewhere/picked.ucir', 'Browse... opens a dialog');
  workspaceTraces = [];
  assert.strictEqual(await registered['ttd.pickTrace'](), '/elsewhere/picked.ucir', 'no traces: straight to the dialog');
  const provider = registered['provider:ttd'];
  const made = await provider.resolveDebugConfiguration(undefined, {});
  assert.deepStrictEqual([made.type, made.request, made.trace], ['ttd', 'launch', '/elsewhere/picked.ucir']);
  const given = { type: 'ttd', request: 'launch', name: 'x', trace: 't.ucir' };
  assert.strictEqual(await provider.resolveDebugConfiguration(undefined, given), given, 'a launch.json config is kept');
  quickPickAnswer = () => undefined;
  workspaceTraces = [{ fsPath: '/ws/t.ucir' }];
  assert.strictEqual(await provider.resolveDebugConfiguration(undefined, {}), undefined, 'cancel: no session');
  console.log('vscode extension: all checks passed');
})().catch((e) => { console.error(e); process.exit(1); });
