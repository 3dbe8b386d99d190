import { vi } from 'vitest';
import { runReportCommand } from '../../src/commands/report.js';

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in process (as the CLI dispatches it), its output captured. */
export async function runCaptured(run: () => Promise<number>): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await run();
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** The `report` command in process, its output captured. */
export const reportCommand = (args: string[]): Promise<CapturedRun> =>
  runCaptured(() => runReportCommand(args, {}));
