/**
 * Admitting the kernel's own inline `<style>` elements (the toolbar's, the error pages') and
 * the toolbar's `<script>` in the Content-Security-Policy the application gives a response,
 * without widening it further.
 */

/** The kind of inline element admitted: each has its own `*-src-elem` directive. */
type InlineElement = 'style' | 'script';

/**
 * A Content-Security-Policy header that admits one inline `<style>` (or `<script>`) element by
 * `source`, a `'nonce-…'` or `'sha256-…'` source. Each policy of a comma-joined list is
 * enforced, so each one is given the source. It goes to style-src-elem (script-src-elem) only,
 * which governs those elements and nothing else: in default-src a nonce would admit a style
 * and a script alike. A policy without that directive gets one with the sources of the
 * directive the elements fell back to (style-src, else default-src), so the page's own
 * elements are governed as before. A policy that governs no such element, or whose directive
 * admits inline ones by 'unsafe-inline' alone (a nonce or hash there would turn it off), is
 * left alone.
 */
export function admitInlineStyle(header: string, source: string, element: InlineElement = 'style'): string {
  const policies = header.split(',');
  const admitted = policies.map((policy) => admitInPolicy(policy, source, element));
  if (admitted.every((policy) => policy === undefined)) return header;
  return admitted
    .map((policy, index) => policy ?? policies[index]!.trim())
    .filter((policy) => policy.length > 0)
    .join(', ');
}

/** One policy with the source admitted, or undefined when it admits the element as it is. */
function admitInPolicy(policy: string, source: string, element: InlineElement): string | undefined {
  const directives = policy
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const names = directives.map((directive) => directive.split(/\s+/)[0]!.toLowerCase());
  const elem = `${element}-src-elem`;
  const index = [elem, `${element}-src`, 'default-src']
    .map((name) => names.indexOf(name))
    .find((found) => found !== -1);
  if (index === undefined) return undefined;
  const [name, ...sources] = directives[index]!.split(/\s+/);
  const lower = sources.map((entry) => entry.toLowerCase());
  // 'strict-dynamic' ignores 'unsafe-inline' as a nonce does.
  const ignoresUnsafeInline = lower.some((entry) => /^'(nonce-|sha256-|sha384-|sha512-|strict-dynamic')/.test(entry));
  if (lower.includes("'unsafe-inline'") && !ignoresUnsafeInline) return undefined;
  const admitted = [...sources.filter((entry) => entry.toLowerCase() !== "'none'"), source].join(' ');
  if (names[index] === elem) directives[index] = `${name} ${admitted}`;
  else directives.push(`${elem} ${admitted}`);
  return directives.join('; ');
}

/** The response's policies (enforced and report-only) with `source` admitted in each; none set, nothing done. */
export function admitInlineStyleIn(
  reply: { getHeader(name: string): unknown; header(name: string, value: unknown): unknown },
  source: string,
  element: InlineElement = 'style',
): void {
  for (const name of ['content-security-policy', 'content-security-policy-report-only']) {
    const policy = reply.getHeader(name);
    if (typeof policy === 'string') reply.header(name, admitInlineStyle(policy, source, element));
    else if (Array.isArray(policy))
      reply.header(
        name,
        policy.map((one) => admitInlineStyle(String(one), source, element)),
      );
  }
}
