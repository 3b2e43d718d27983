/**
 * The `date` header value, formatted once per second. The kernel sets it itself so the
 * name goes out lower-case like every other header it sends.
 */
let cachedSecond = -1;
let cachedValue = '';

export function httpDate(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedValue = new Date(second * 1000).toUTCString();
  }
  return cachedValue;
}
