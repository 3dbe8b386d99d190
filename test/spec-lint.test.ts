import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createConfig, lint } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';

/**
 * The spec as the linters users point at an OpenAPI document read it: Spectral's `spectral:oas`
 * ruleset and Redocly's `recommended` rules, with zero errors. A team that lints the documents it
 * consumes (or generates a client from this one) must not trip on the fake's own contract.
 */

const SPEC_PATH = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));

describe('spec/openapi.yaml under the linters', () => {
  it('has no error under Spectral (spectral:oas, recommended)', async () => {
    const { Spectral, Document } = spectralCore;
    const spectral = new Spectral();
    // The ruleset module's own type is looser than the definition type it satisfies at run time.
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const results = await spectral.run(
      new Document(readFileSync(SPEC_PATH, 'utf8'), spectralParsers.Yaml, SPEC_PATH),
    );
    const errors = results
      .filter((r) => r.severity === 0)
      .map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(errors).toEqual([]);
    // The run saw the document: rules that only warn still report on it.
    expect(results.every((r) => r.source === SPEC_PATH)).toBe(true);
  });

  it('has no error under Redocly (recommended)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lint({ ref: SPEC_PATH, config });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
    expect(errors).toEqual([]);
  });
});
