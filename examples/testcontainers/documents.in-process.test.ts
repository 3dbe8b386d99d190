/**
 * The same suite as documents.container.test.ts, against an in-process server: runs anywhere
 * Node runs, no container engine needed. In your project, import from the package instead:
 *
 *   import { createMockServer } from 'passportal-docs-fake';
 */
import { describe } from 'vitest';
import { createMockServer } from '../../src/index.js';
import { documentsClientSuite, SUITE_FIXTURES } from './documents-suite.js';

describe('documents client against the in-process fake', () => {
  documentsClientSuite(async () => {
    const mock = await createMockServer({ fixtures: SUITE_FIXTURES, logLevel: 'silent' });
    const url = await mock.listen(0, '127.0.0.1');
    return { url, stop: () => mock.close() };
  });
});
