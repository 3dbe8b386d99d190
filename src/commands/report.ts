import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { AdminError, createAdminClient } from '../client/admin-client.js';
import { REPORT_FORMATS, type Report, type ReportFormat } from '../harness/verdicts/report.js';
import { renderReport } from '../harness/verdicts/report-formats.js';
import { FAIL_ON, type FailOn, failedGates } from '../harness/verdicts/report-gates.js';

export { FAIL_ON, type FailOn, failedGates };

/**
 * `passportal-docs-fake report`: the step a CI job runs after its suite. It fetches the report of
 * a running fake or session (`--url`), or of a run's sessions together (`--run`), writes it in a format (`--out FILE`, or standard output)
 * and applies the gates. Exit status: 0 every gate passed; 1 a gate failed (standard error says
 * which); 2 a usage error, or no report could be had (fake unreachable, admin token refused).
 * See docs/reports.md.
 */

function percentage(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
    throw new InvalidArgumentError('a percentage from 0 to 100, e.g. --min-coverage 60');
  }
  return n;
}

function buildCommand(): Command {
  return new Command('passportal-docs-fake report')
    .description('Write the report of a running fake or session and apply CI gates (docs/reports.md)')
    .requiredOption('--url <url>', 'the fake or session URL, e.g. http://127.0.0.1:4010 or .../sessions/ci')
    .addOption(
      new Option(
        '--format <format>',
        'the report format (har: the journal as an HTTP Archive, gates from the report)',
      )
        .choices([...REPORT_FORMATS, 'har'])
        .default('markdown'),
    )
    .option(
      '--run <label>',
      'the report of every session created with this run label, deleted ones included (--url: the root)',
    )
    .option(
      '--tenant <name>',
      'with --run and the operator\u2019s token: the tenant whose run it is (a tenant\u2019s own token reports its own runs without it)',
    )
    .option('--out <file>', 'write the report to this file (standard output otherwise)')
    .addOption(
      new Option('--fail-on <what>', 'fail (exit 1) on violations, on violations or notices, or never')
        .choices(FAIL_ON)
        .default('violations'),
    )
    .option('--min-coverage <percent>', 'fail (exit 1) when fewer behaviours were exercised', percentage)
    .option(
      '--admin-token <token>',
      'the admin bearer token, or a tenant\u2019s token of the tenants file, when the fake has one (default: $ADMIN_TOKEN)',
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Runs the command with `argv` (after `report`); answers the exit status. */
export async function runReportCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = buildCommand();
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    // --help and --version exit 0; every usage error is 2.
    return code === 0 ? 0 : 2;
  }
  if (command.args.length > 0) {
    process.stderr.write(
      `error: unexpected argument ${JSON.stringify(command.args[0])}: the command takes options only (see --help)\n`,
    );
    return 2;
  }
  const opts = command.opts<{
    url: string;
    format: ReportFormat | 'har';
    run?: string;
    tenant?: string;
    out?: string;
    failOn: FailOn;
    minCoverage?: number;
    adminToken?: string;
  }>();
  if (opts.tenant !== undefined && opts.run === undefined) {
    process.stderr.write('error: --tenant names whose run to report: give --run too\n');
    return 2;
  }
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    process.stderr.write(
      `error: --url ${JSON.stringify(opts.url)} is not a URL: give the fake's base URL, e.g. http://127.0.0.1:4010\n`,
    );
    return 2;
  }
  if (opts.format === 'har' && opts.run !== undefined) {
    process.stderr.write(
      "error: --format har with --run: an HTTP Archive is one instance's journal; give a session's URL (--url .../sessions/ID) without --run\n",
    );
    return 2;
  }
  const admin = createAdminClient(url.href, { adminToken: opts.adminToken ?? env.ADMIN_TOKEN ?? undefined });
  let report: Report;
  let text: string;
  try {
    report =
      opts.run === undefined
        ? await admin.report()
        : await admin.report({
            run: opts.run,
            ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
          });
    text =
      opts.format === 'har'
        ? `${JSON.stringify(await admin.har(), null, 2)}\n`
        : renderReport(report, opts.format);
  } catch (error) {
    const why =
      error instanceof AdminError
        ? `${error.message}${error.status === 401 ? ' (pass --admin-token or set ADMIN_TOKEN)' : ''}`
        : `cannot reach ${admin.baseUrl}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
    process.stderr.write(`error: no report: ${why}\n`);
    return 2;
  }
  if (opts.out === undefined) process.stdout.write(text);
  else {
    try {
      writeFileSync(opts.out, text);
    } catch (error) {
      process.stderr.write(
        `error: --out ${opts.out}: cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`,
      );
      return 2;
    }
  }
  const failed = failedGates(report, opts.failOn, opts.minCoverage);
  for (const line of failed) process.stderr.write(`gate failed: ${line}\n`);
  const { exercised, total, percent } = report.coverage.behaviours;
  process.stderr.write(
    `${report.instance}: ${report.summary.violatingRequests} violating request${report.summary.violatingRequests === 1 ? '' : 's'}, ${report.summary.requestsWithNotices} with notices, ` +
      (report.summary.expectedViolations > 0
        ? `${report.summary.expectedViolations} with expected violations, `
        : '') +
      `behaviours exercised ${exercised}/${total} (${percent}%)${failed.length === 0 ? '; gates passed' : ''}\n`,
  );
  return failed.length === 0 ? 0 : 1;
}
