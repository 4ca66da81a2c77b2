/**
 * @paygate/contract-tests: the Paygate contract suite (`suite/*.suite.ts` over `support/`), run by vitest. In this
 * repository `test/contract/*.test.ts` import the suite files and run them against the in-process gateway; against a
 * deployment, `runContractSuite` (behind `paygate contract`) runs them through vitest's Node API.
 */
export { runContractSuite, SUITE_FILES, type ContractSuiteOptions, type ContractSuiteResult, type SuiteFile } from './run.js';
export * from './spec-check/index.js';
