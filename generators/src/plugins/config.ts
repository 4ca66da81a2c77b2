/**
 * The shape of `paygate.config.*` (D372 paygate.config files), public from `@paygate/cli` with `defineConfig` so a config file is typed;
 * cli/config.ts finds, checks and loads it.
 */
import type { Target } from '../emit/context.js';
import type { LintMode } from '../parse/openapi.js';
import type { PaygatePlugin } from './api.js';

/** The output directories a config may move one by one (relative to the config file). */
export type ConfigOutputs = Partial<Record<'contract' | 'server' | 'client' | 'webhooks', string>>;

/** What a config file holds; every key is optional (the commands' defaults apply). */
export interface PaygateConfig {
  /** The OpenAPI 3.0/3.1 root document (`--input`). */
  input?: string;
  /** An AsyncAPI 3.0 document, or null for none (`--asyncapi`). */
  asyncapi?: string | null;
  /** A Redocly config with lint rules (`--lint-config`). */
  lintConfig?: string;
  /** `strict`, `report` or `skip` (`--lint`). */
  lint?: LintMode;
  /** Print every lint warning, not the summary per rule (`--lint-details`). */
  lintDetails?: boolean;
  /** The output root (`--out`): the targets go in its contract/, server/, client/, webhooks/; plugins write under it. */
  out?: string;
  /** One target's directory instead of `<out>/<target>`. */
  outputs?: ConfigOutputs;
  /** Which of contract, server, client, webhooks to generate (`--targets`). */
  targets?: Target[];
  /** Plugins: `definePlugin({...})` objects, or paths (relative to the config) / package names of modules exporting one as default. */
  plugins?: (PaygatePlugin | string)[];
  /** A folder whose templates replace the built-in ones of the same name (`--templates`). */
  templates?: string;
  /** `paygate docs`: where the site goes (`paygate docs --out`). */
  docs?: { out?: string };
}

/** Types a config object (for editors); returns it unchanged. */
export function defineConfig(config: PaygateConfig): PaygateConfig {
  return config;
}
