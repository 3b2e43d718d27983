/**
 * HTML templates as plain functions: the `html` tag escapes every interpolated value
 * unless it is already {@link SafeHtml}, so request data cannot reach a page raw.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return /[&<>"']/.test(value) ? value.replace(/[&<>"']/g, (char) => ENTITIES[char]!) : value;
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Trusted markup written by the kernel itself (CSS, fixed fragments). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
