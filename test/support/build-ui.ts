/**
 * vitest global setup: the tests run the server from `src/`, but the pages it serves are built
 * (`dist/ui/`, by `scripts/build-ui.mjs` in `npm run build`). Built here when missing or older than
 * `src/ui/`, in well under a second, so the page and browser tests never see a stale build.
 */
export default async function setup(): Promise<void> {
  const script = new URL('../../scripts/build-ui.mjs', import.meta.url).href;
  const { ensureUiBuilt } = (await import(script)) as { ensureUiBuilt: () => Promise<boolean> };
  await ensureUiBuilt();
}
