/**
 * Starting several services (and a browser) at once in a `before`: as `Promise.all` does,
 * except that when one fails, those that started are closed before its error is thrown. A
 * file whose `before` left a service or Chromium running would never end its process.
 */
export async function startTogether<T extends readonly unknown[]>(
  starts: { readonly [K in keyof T]: Promise<T[K]> },
  close: (started: T[number]) => unknown,
): Promise<T> {
  const settled = await Promise.allSettled(starts as readonly Promise<T[number]>[]);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined)
    return settled.map((result) => (result as PromiseFulfilledResult<T[number]>).value) as unknown as T;
  await Promise.allSettled(settled.map((result) => (result.status === 'fulfilled' ? close(result.value) : undefined)));
  throw failed.reason;
}
