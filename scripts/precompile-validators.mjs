// Build step (after tsc and cache-spec.mjs): writes the request validators of spec/openapi.yaml and
// the fixture-set validator as Ajv standalone code beside the compiled code
// (dist/request-validators.cjs, dist/fixture-validator.cjs), each keyed by the SHA-256 of its
// source. The server uses them when the key matches and compiles at start-up otherwise.
// See src/http/precompiled-validators.ts.
import { writeFileSync } from 'node:fs';
import { precompileRequestValidators } from '../dist/contract/request-validator.js';
import { loadSpec } from '../dist/contract/spec-document.js';
import { precompileFixtureValidator } from '../dist/domain/fixtures/validate-fixtures.js';
import { FIXTURE_VALIDATOR_PATH, REQUEST_VALIDATORS_PATH } from '../dist/precompiled-validators.js';

writeFileSync(REQUEST_VALIDATORS_PATH, precompileRequestValidators(loadSpec().document));
writeFileSync(FIXTURE_VALIDATOR_PATH, precompileFixtureValidator());
