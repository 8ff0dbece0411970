// Entry point: build the context, register the commands, start the server.

import * as vscode from 'vscode';
import * as commands from './commands';
import { Ctx } from './ctx';

let ctx: Ctx | undefined;

export async function activate(extension: vscode.ExtensionContext): Promise<void> {
  ctx = new Ctx(extension);
  extension.subscriptions.push(...commands.register(ctx));
  try {
    await ctx.restart();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    ctx.log.error(`activation failed: ${message}`);
    void vscode.window.showErrorMessage(`Runnable failed to start: ${message}`);
  }
}

export async function deactivate(): Promise<void> {
  await ctx?.dispose();
  ctx = undefined;
}
