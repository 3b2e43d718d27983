/** Values from a report or a routes module made inert for the terminal that prints them. */

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * C0 and C1 controls and DEL (escape sequences, and line breaks that would forge a line of
 * their own), Unicode's line and paragraph separators, and the bidi controls that reorder
 * the text around them (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of output with each of those characters shown as its escape (`\n`, `\t`,
 * `\u001b`, `\u202e`): visible to the reader, and nothing a terminal acts on.
 */
export function terminalSafe(text: string): string {
  return text.replace(
    UNSAFE,
    (char) => NAMED_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
