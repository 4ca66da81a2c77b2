/**
 * The lint configuration `paygate generate` uses when the user gives none (D116 default lint stops only on structural
 * errors: Redocly's `minimal` rule set), with D444's media-type examples rule in place of Redocly's.
 */
import { createConfig, type Config } from '@redocly/openapi-core';
import { BUILT_IN_RULE, EXAMPLES_PLUGIN, EXAMPLES_RULE, type ExampleValidators, mediaTypeExamplesRule } from './media-type-examples.js';

/** The spec versions Redocly's `no-invalid-media-type-examples` applies to (an OpenAPI 3 rule). */
const OAS3_VERSIONS = ['oas3_0', 'oas3_1', 'oas3_2'] as const;

/**
 * D444 (media-type examples checked by a Paygate rule with validators kept across runs): Redocly's `minimal` rule set
 * with its `no-invalid-media-type-examples` off and Paygate's rule (the same check, its validators kept in
 * `validators`) on with the very settings `minimal` gives the built-in rule for each version.
 */
export async function defaultLintConfig(validators: ExampleValidators): Promise<Config> {
  const minimal = await createConfig({ extends: ['minimal'] });
  const perVersion = Object.fromEntries(
    OAS3_VERSIONS.map((version) => [
      `${version}Rules`,
      { [BUILT_IN_RULE]: 'off', [EXAMPLES_RULE]: minimal.getRuleSettings(BUILT_IN_RULE, version) },
    ]),
  );
  return createConfig({
    extends: ['minimal'],
    plugins: [
      { id: EXAMPLES_PLUGIN, rules: { oas3: { [EXAMPLES_RULE.slice(EXAMPLES_PLUGIN.length + 1)]: mediaTypeExamplesRule(validators) } } },
    ],
    ...perVersion,
  });
}
