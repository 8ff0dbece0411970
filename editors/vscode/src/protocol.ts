// The names shared with the server, as fixed in docs/protocol.md.
// tests/editors/settings-sync.test.mjs checks them against the server's
// constants (server/src/lsp/config.rs) and this package's manifest.

/** Settings keys the server reads from `initializationOptions` and `settings.runnable`. */
export const SERVER_SETTINGS = [
  'interpreter',
  'cacheDir',
  'installPolicy',
  'runPolicy',
  'allowBuilds',
  'budgetSeconds',
  'resourceDir',
  'hints.coverage',
  'hints.values',
  'hints.output',
  'llm.enabled',
  'llm.endpoint',
  'llm.model',
  'llm.models.environment',
  'llm.models.exploration',
  'llm.models.evolution',
  'llm.maxCalls',
  'memory.enabled',
] as const;

export const CMD_MAKE_RUNNABLE = 'runnable.makeRunnable';
export const CMD_SHOW_REPORT = 'runnable.showReport';
export const CMD_CANCEL = 'runnable.cancel';
export const ACTION_KIND = 'refactor.rewrite.makeRunnable';
export const RUN_FINISHED = 'runnable/runFinished';

/** Params of the `runnable/runFinished` notification. */
export interface RunFinished {
  uri: string;
  version: number;
  status: string;
  covered: number;
  executable: number;
  ratio: number;
  /** What a sandbox layer denied the run (docs/protocol.md). */
  denied?: { layer: string; what: string; detail: string }[];
  /** Whether the run's program could reach the network. */
  network?: boolean;
  error?: string | null;
}

/** `status` of a run that produced no result (`refused`: runPolicy is "never"). */
export const NOTHING_RAN = ['cancelled', 'failed', 'refused'];
