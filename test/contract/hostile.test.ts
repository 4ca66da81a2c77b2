// The contract suite's hostile checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/hostile.suite.js';
