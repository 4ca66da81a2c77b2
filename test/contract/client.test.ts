// The contract suite's client checks (@paygate/contract-tests), run by `npm test` against the in-process gateway.
import '../../packages/contract-tests/src/suite/client.suite.js';
