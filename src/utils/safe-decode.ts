/** A query or form component decoded (`+` as a space); kept as written when its escapes are malformed. */
export function safeDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
