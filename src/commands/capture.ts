export async function capture(_argv: string[], _env: NodeJS.ProcessEnv): Promise<number> {
  process.stderr.write('error: capture is not built yet\n');
  return 2;
}
