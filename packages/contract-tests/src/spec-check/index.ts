/**
 * The spec-driven checker of @paygate/contract-tests as a library (D125): `checkApi({ document, baseUrl, auth })`
 * checks any deployment of any OpenAPI document; `paygate contract --spec FILE` is its command line. Importing it
 * loads neither vitest nor the Paygate suite.
 */
export {
  checkApi,
  formatCoverage,
  formatFailures,
  type ApiCheckReport,
  type CheckApiOptions,
  type CheckCase,
  type CheckFailure,
  type CheckName,
} from './check-api.js';
export { toJUnit } from './junit.js';
export { negativeOf, sampleOf } from './samples.js';
