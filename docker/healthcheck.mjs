// HEALTHCHECK: the image has no curl, so Node's fetch asks the fake's health endpoint.
// Exit 0 healthy, 1 unhealthy. Follows PORT when it is overridden by environment variable.
const port = process.env.PORT || '4010';
try {
  const res = await fetch(`http://127.0.0.1:${port}/__admin/health`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
