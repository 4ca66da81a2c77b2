// The contract suite's auth checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/auth.suite.js';
