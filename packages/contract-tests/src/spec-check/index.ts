/**
 * The spec-driven checker of @paygate/contract-tests as a library (D125, D270-D279): `checkApi({ document, baseUrl,
 * credentials })` checks any deployment of any OpenAPI document; `paygate contract --spec FILE` is its command line.
 * Importing it loads neither vitest nor the Paygate suite.
 */
export { checkApi } from './check-api.js';
export { formatCoverage, formatFailures, formatUnseenProperties } from './report-text.js';
export {
  ALL_CHECKS,
  type ApiCheckReport,
  type CheckApiOptions,
  type CheckCase,
  type CheckEvent,
  type CheckFailure,
  type CheckName,
  type OperationOutcome,
  type PositiveEvent,
} from './types.js';
export { buildConfig, ConfigError, type CheckConfig } from './config.js';
export { parseSelector, type CredentialRule, type CredentialSet, type Selector } from './credentials.js';
export { JUnitWriter, toJUnit } from './junit.js';
export { planChecks } from './plan.js';
export { operationLine, paletteFor, positiveLine, summary, type Palette } from './reporter.js';
export { isReservedHost, RESERVED_URL_HOST, safeString, unreservedHosts } from './safety.js';
export { negativeOf, sampleOf } from './samples.js';
