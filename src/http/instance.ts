import type { Fake } from '../domain/fake.js';

/**
 * One whole fake as the HTTP layer sees it: the root instance, or one per session. Everything a
 * request can change lives here, so instances never see each other's data.
 */
export interface Instance {
  /** Undefined for the root instance, the session id otherwise. */
  id: string | undefined;
  fake: Fake;
}
