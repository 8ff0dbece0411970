// Work-done progress of a run as a VS Code notification with a Cancel button.
// (The language client shows work-done progress in the status bar, where it
// cannot be cancelled.) Used for the runs this extension starts (its own
// token) and for those the server starts itself (`window/workDoneProgress/create`,
// e.g. from the lightbulb's "Make this runnable").

import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import {
  LanguageClient,
  ProgressToken,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  WorkDoneProgressReport,
  WorkDoneProgressEnd,
} from 'vscode-languageclient/node';

type Value = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/** Follow one progress token until its `end`; show it as a cancellable notification. */
export function showProgress(client: LanguageClient, token: ProgressToken): void {
  let report: vscode.Progress<{ message?: string }> | undefined;
  let finish: (() => void) | undefined;
  let ended = false;
  let pending: string | undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const listener = client.onProgress(WorkDoneProgress.type, token, (value: Value) => {
    switch (value.kind) {
      case 'begin':
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: value.title, cancellable: value.cancellable === true },
          (progress, cancel) => {
            report = progress;
            if (value.message ?? pending) progress.report({ message: value.message ?? pending });
            cancel.onCancellationRequested(() => {
              void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
            });
            return done;
          },
        );
        break;
      case 'report':
        if (value.message) {
          if (report) report.report({ message: value.message });
          else pending = value.message;
        }
        break;
      case 'end':
        if (!ended) {
          ended = true;
          listener.dispose();
          finish?.();
        }
        break;
    }
  });
}

/** A fresh token whose progress is shown; pass it as `workDoneToken`. */
export function newToken(client: LanguageClient): string {
  const token = `runnable-vscode/${randomUUID()}`;
  showProgress(client, token);
  return token;
}

/** Show the server's own progress (created with `window/workDoneProgress/create`) the same way. */
export function handleServerProgress(client: LanguageClient): vscode.Disposable {
  return client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    showProgress(client, token);
    return null;
  });
}
