// Workspace trust and runs, without the `vscode` module so it can be unit
// tested: an untrusted workspace runs nothing (the server gets
// `runPolicy: "never"`) unless the user turned on
// `runnable.untrustedWorkspace.allowRuns`, an application setting that no
// workspace can set for itself; even then the server asks before the first
// run in the workspace (`"always"` counts as `"ask"` there).

/** The extension-only setting (under `runnable.`) that allows runs in untrusted workspaces. */
export const ALLOW_UNTRUSTED_RUNS = 'untrustedWorkspace.allowRuns';

export function withTrust(settings: Record<string, unknown>, trusted: boolean, allowUntrustedRuns: boolean): Record<string, unknown> {
  if (trusted) return settings;
  if (!allowUntrustedRuns) return { ...settings, runPolicy: 'never' };
  return settings.runPolicy === 'never' ? settings : { ...settings, runPolicy: 'ask' };
}
