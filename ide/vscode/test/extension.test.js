// Checks the extension without VS Code: package.json declares the ttd
// debugger with the launch attributes `ttd dap` reads, and activate()
// registers a factory that starts `ttd dap` (or connects to a port).
// Run: node ide/vscode/test/extension.test.js
'use strict';
const assert = require('assert');
const Module = require('module');
const path = require('path');

const registered = {};
const settings = { executable: 'ttd' };
const fakeVscode = {
  DebugAdapterExecutable: class { constructor(command, args) { this.command = command; this.args = args; } },
  DebugAdapterServer: class { constructor(port, host) { this.port = port; this.host = host; } },
  debug: { registerDebugAdapterDescriptorFactory: (type, f) => { registered[type] = f; return { dispose() {} }; } },
  commands: { registerCommand: (name, fn) => { registered[name] = fn; return { dispose() {} }; } },
  workspace: { getConfiguration: () => ({ get: (k) => settings[k] }) },
  window: {},
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
console.log('vscode extension: all checks passed');
