/**
 * Percent-decoding that never throws: text whose escapes are malformed (`%E0`, `100%`) is
 * kept as written, since it comes from a client and a broken escape is no reason to fail.
 */

/** A query or form component decoded (`+` as a space). */
export function safeDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  return decodedOr(text, (written) => decodeURIComponent(written.replace(/\+/g, ' ')));
}

/** A component decoded as `decodeURIComponent` does (`+` stays): a cookie's value. */
export function safeDecodeComponent(text: string): string {
  return text.includes('%') ? decodedOr(text, decodeURIComponent) : text;
}

/** A whole path or URL decoded as `decodeURI` does: the escapes of `/`, `?`, `#` stay. */
export function safeDecodeUri(text: string): string {
  return text.includes('%') ? decodedOr(text, decodeURI) : text;
}

function decodedOr(text: string, decode: (text: string) => string): string {
  try {
    return decode(text);
  } catch {
    return text;
  }
}
