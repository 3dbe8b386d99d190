import type { Options, Settings } from '../config.js';
import { RecentJsonTexts } from '../contract/json-text.js';
import { Fake } from '../domain/fake.js';
import type { Dataset } from '../domain/types.js';
import { FaultList } from './faults.js';
import { Journal, type JournalLimits } from './journal.js';
import type { OwnKeys } from './own-keys.js';

/**
 * One whole fake as the HTTP layer sees it: the root instance, or one per session. Everything a
 * request can change lives here (state, tokens, clock and settings in the domain `Fake`, plus
 * the journal and the faults), so instances never see each other's data.
 */
export class Instance {
  /** Undefined for the root instance, the session id otherwise. */
  readonly id: string | undefined;
  readonly fake: Fake;
  readonly journal: Journal;
  readonly faults: FaultList;
  /**
   * The JSON texts of the details read most recently (10,000 texts, 16 MiB at most): reads send
   * them without serialising the same details again. Details are never edited in place, so a
   * text never goes stale; gone with the instance.
   */
  readonly detailTexts = new RecentJsonTexts(10_000, 16 * 1024 * 1024);
  /**
   * A session's keys of its own (set by the session registry), put into every dataset it loads;
   * undefined for the root and for sessions that use their fixtures' keys.
   */
  ownKeys: OwnKeys | undefined = undefined;

  constructor(id: string | undefined, fake: Fake, journal: JournalLimits) {
    this.id = id;
    this.fake = fake;
    this.journal = new Journal(journal);
    this.faults = new FaultList();
  }

  /** Back to the reset point: state, tokens and clock (the Fake), journal and faults. Settings stay. */
  reset(): void {
    this.fake.reset();
    this.journal.clear();
    this.faults.clear();
  }

  /**
   * Replaces the state with a validated dataset, which becomes the reset point (with the
   * session's own keys in place of the dataset's, when it has them); then as `reset`.
   */
  load(dataset: Dataset): void {
    this.fake.load(this.ownKeys ? this.ownKeys.apply(dataset) : dataset);
    this.journal.clear();
    this.faults.clear();
  }
}

/** A new instance over a dataset, with the settings and journal limit of the server's options. */
export function createInstance(
  id: string | undefined,
  dataset: Dataset,
  options: Pick<Options, 'journalLimit' | 'journalBytes' | 'journalBodyBytes'>,
  settings: Settings,
): Instance {
  return new Instance(id, new Fake(dataset, settings), journalLimitsOf(options));
}

/** The journal's bounds from the server's options. */
export function journalLimitsOf(
  options: Pick<Options, 'journalLimit' | 'journalBytes' | 'journalBodyBytes'>,
): JournalLimits {
  return { entries: options.journalLimit, bytes: options.journalBytes, bodyBytes: options.journalBodyBytes };
}
