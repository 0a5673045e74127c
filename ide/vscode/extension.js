// VS Code glue for `ttd dap`: starts the adapter (or connects to one that
// listens on a port) for debug sessions of type "ttd", and offers a
// "Go to EID" command that sends `seek N` to the running session, and
// "Pick a trace" (${command:pickTrace} in launch.json, and F5 without a
// launch.json) that lists the trace files of the workspace.
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

// Files ttd reads by their extension (others: pick "Browse..." for any file).
const TRACE_GLOB = '**/*.{ucir,tenet,xray,rvnblock,tt6,trace}';

// Resolves to a trace path, or undefined when the user cancels (VS Code
// then does not start the session).
async function pickTrace() {
  const found = await vscode.workspace.findFiles(TRACE_GLOB, '**/node_modules/**', 200);
  const browse = 'Browse...';
  const items = found.map((u) => vscode.workspace.asRelativePath(u)).sort();
  const choice = items.length
    ? await vscode.window.showQuickPick(items.concat([browse]), { placeHolder: 'Trace to debug' })
    : browse;
  if (choice === undefined) return undefined;
  if (choice !== browse) return found.find((u) => vscode.workspace.asRelativePath(u) === choice).fsPath;
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Debug this trace' });
  return picked && picked.length ? picked[0].fsPath : undefined;
}

// F5 with no launch.json: a launch configuration for a picked trace.
const configurationProvider = {
  async resolveDebugConfiguration(folder, config) {
    if (!config.type && !config.request && !config.name) {
      const trace = await pickTrace();
      if (!trace) return undefined;
      return { type: 'ttd', request: 'launch', name: 'Debug ' + trace, trace, stopOnEntry: true };
    }
    return config;
  },
};

function activate(context) {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('ttd', { createDebugAdapterDescriptor: adapterFor }),
    vscode.debug.registerDebugConfigurationProvider('ttd', configurationProvider),
    vscode.commands.registerCommand('ttd.seek', seek),
    vscode.commands.registerCommand('ttd.pickTrace', pickTrace));
}

function deactivate() {}

module.exports = { activate, deactivate, adapterFor, pickTrace, configurationProvider };
