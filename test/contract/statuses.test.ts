// The contract suite's statuses checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/statuses.suite.js';
