// Module resolution hook for bench/targets/fastify-app.ts: `fastify-vigil` is this tree's build.
const VIGIL = new URL('../../dist/src/index.js', import.meta.url).href;

export async function resolve(specifier, context, next) {
  return next(specifier === 'fastify-vigil' ? VIGIL : specifier, context);
}
