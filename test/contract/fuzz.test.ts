// The contract suite's fuzz checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/fuzz.suite.js';
