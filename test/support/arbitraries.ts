// JSON Schema -> fast-check arbitraries, from @paygate/contract-tests; the request-validation differential test uses them too.
export * from '../../packages/contract-tests/src/support/arbitraries.js';
