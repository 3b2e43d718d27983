import { setTimeout as sleep } from "node:timers/promises";
import { defineRoutes } from "../src/index.js";
function wholeNumber(value, fallback, max) {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : fallback;
  return Math.min(number, max);
}
var demo_routes_default = defineRoutes((routes) => {
  routes.get("/hello", () => "hello");
  routes.on(["GET", "POST"], "/items", ({ request }) => request.method === "POST" ? { created: true } : { items: [] });
  routes.put("/items/{id}", ({ params }) => `item ${params.id}`, { requirements: { id: "\\d+" } });
  routes.get("/with-slash/", () => "with slash");
  routes.post("/upload", ({ files, body }) => ({
    files: files.map((file) => ({ field: file.field, name: file.filename, size: file.size, type: file.mimetype })),
    fields: body ?? {}
  }));
  routes.get("/slow", async ({ query, signal }) => {
    const ms = wholeNumber(query.ms, 1e3, 36e5);
    await sleep(ms, void 0, { signal });
    return { slept: ms };
  });
  routes.get(
    "/spin",
    ({ query }) => {
      const ms = wholeNumber(query.ms, 1e3, 36e5);
      const end = Date.now() + ms;
      let turns = 0;
      while (Date.now() < end) turns++;
      return { spun: ms, turns };
    },
    { isolated: true }
  );
  routes.get(
    "/hog",
    ({ query }) => {
      const mb = wholeNumber(query.mb, 8, 64 * 1024);
      const kept = [];
      for (let i = 0; i < mb; i++) {
        if (query.kind === "array") kept.push(new Array(128 * 1024).fill(i + 0.5));
        else kept.push(Buffer.alloc(1024 * 1024, i % 256));
      }
      return { allocated: mb, kind: query.kind === "array" ? "array" : "buffer", chunks: kept.length };
    },
    { isolated: true }
  );
});
const collectors = [
  {
    name: "client",
    collect: ({ request }) => ({ userAgent: request.headers["user-agent"] ?? null, languages: request.headers["accept-language"] ?? null })
  }
];
export {
  collectors,
  demo_routes_default as default
};
//# sourceMappingURL=demo-routes.js.map
