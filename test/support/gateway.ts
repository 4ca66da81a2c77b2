// The gateway harness lives in @paygate/contract-tests (the contract suite's support); the browser and fault tests use it too.
export * from '../../packages/contract-tests/src/support/gateway.js';
