import type { components } from '@paygate/contract';

/**
 * The spec's schemas, as the generated types say. Every view returns one of these (typed return values, no casts),
 * so a spec change that a view does not follow fails to compile here rather than at runtime.
 */
export type Schemas = components['schemas'];
