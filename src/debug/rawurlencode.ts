/**
 * PHP's `rawurlencode`: every UTF-8 byte outside `A-Z a-z 0-9 - _ . ~` as `%XX`, upper-case.
 * `encodeURIComponent` leaves `! ' ( ) *` alone, so those are encoded afterwards.
 */
export function rawUrlEncode(value: string): string {
  return encodeURIComponent(value.toWellFormed()).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
