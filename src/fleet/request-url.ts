/** The parts of a request URL (`/path?query`) the fleet's routing and views read. */

/** The path of a request URL without its query. */
export function pathOfUrl(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The query of a request URL. */
export function queryOf(url: string): URLSearchParams {
  const query = url.indexOf('?');
  return new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
}
