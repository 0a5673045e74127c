// VS Code glue for `ttd dap`: starts the adapter (or connects to one that
// listens on a port) for debug sessions of type "ttd", and offers a
// "Go to EID" command that sends `seek N` to the running session.
'use strict';
const vscode = require('vscode');

function adapterFor(session) {
  const cfg = session.configuration || {};
  if (typeof cfg.debugServer === 'number') {
    return new vscode.DebugAdapterServer(cfg.debugServer, '127.0.0.1');
  }
  const exe = cfg.ttdPath || vscode.workspace.getConfiguration('ttd').get('executable') || 'ttd';
  return new vscode.DebugAdapterExecutable(exe, ['dap']);
}

async function seek() {
  const session = vscode.debug.activeDebugSession;
  if (!session || session.type !== 'ttd') {
    vscode.window.showWarningMessage('No ttd debug session is active.');
    return;
  }
  const eid = await vscode.window.showInputBox({
    prompt: 'Go to EID (a step number, or "begin" / "end")',
    validateInput: (v) => (/^(\d+|0x[0-9a-fA-F]+|begin|end)$/.test(v.trim()) ? null : 'an EID, begin or end'),
  });
  if (eid === undefined) return;
  await session.customRequest('evaluate', { expression: 'seek ' + eid.trim(), context: 'repl' });
}

function activate(context) {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('ttd', { createDebugAdapterDescriptor: adapterFor }),
    vscode.commands.registerCommand('ttd.seek', seek));
}

function deactivate() {}

module.exports = { activate, deactivate, adapterFor };
