// The status-bar item: the coverage of the last run ("Runnable 11/12"),
// a spinner while one runs; clicking opens the last report.

import * as vscode from 'vscode';
import { NOTHING_RAN, RunFinished } from './protocol';

export class Status implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('runnable.status', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'Runnable';
    this.item.command = 'runnable.showLastReport';
    this.idle();
  }

  idle(): void {
    this.item.text = 'Runnable';
    this.item.tooltip = 'Runnable: no run yet. Select Python code and run "Runnable: Make Selection Runnable".';
    this.item.backgroundColor = undefined;
    this.item.show();
  }

  running(): void {
    this.item.text = '$(sync~spin) Runnable';
    this.item.tooltip = 'Runnable is running the fragment';
    this.item.backgroundColor = undefined;
    this.item.show();
  }

  stopped(message: string): void {
    this.item.text = '$(error) Runnable';
    this.item.tooltip = message;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    this.item.show();
  }

  finished(run: RunFinished): void {
    const coverage = `${run.covered}/${run.executable}`;
    const ok = run.status === 'completed';
    if (NOTHING_RAN.includes(run.status)) {
      this.item.text = `$(circle-slash) Runnable ${run.status}`;
    } else {
      this.item.text = `${ok ? '$(pass)' : '$(warning)'} Runnable ${coverage}`;
    }
    const lines = [
      `Runnable: ${run.status}, ${coverage} statements ran (${Math.round(run.ratio * 100)}%)`,
      run.error ? `Stopped at: ${run.error}` : '',
      ...(run.denied ?? []).map((d) => `Denied by the sandbox: ${d.what} (${d.layer})`),
      run.network ? 'The network was allowed for this run.' : '',
      'Click to open the report.',
    ];
    this.item.tooltip = lines.filter(Boolean).join('\n');
    this.item.backgroundColor = ok ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
