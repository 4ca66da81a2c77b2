/**
 * Path parameters written by their declared OpenAPI `style` and `explode` (D413, "Object path parameters read by
 * their style"): openapi-fetch writes `label`, `matrix` and exploded values only for a template that marks them the
 * RFC 6570 way (`{.id}`, `{;id}`, `{id*}`), which an OpenAPI path never does; the generated client names the
 * parameters whose style is not the default (simple, not exploded) and the template is marked here before
 * openapi-fetch's serializer fills it, so the client writes what the scaffold's runtime reads
 * (packages/server/src/runtime/path-styles.ts).
 */

/** How one path parameter is written (generated into an operation's meta only where it is not simple and unexploded). */
export interface PathStyle {
  readonly style?: 'label' | 'matrix';
  readonly explode?: boolean;
}

export type PathStyles = Readonly<Record<string, PathStyle>>;

/** `path` with each parameter `styles` names marked for openapi-fetch's serializer (`{id}` -> `{;id*}`). */
export function markedTemplate(path: string, styles: PathStyles): string {
  return path.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const style = styles[name];
    if (style === undefined) return whole;
    const prefix = style.style === 'label' ? '.' : style.style === 'matrix' ? ';' : '';
    return `{${prefix}${name}${style.explode === true ? '*' : ''}}`;
  });
}
