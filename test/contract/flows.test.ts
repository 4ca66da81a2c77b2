// The contract suite's flows checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/flows.suite.js';
