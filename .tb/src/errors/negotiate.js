const FORMATS = [
  ["html", ["text/html", "application/xhtml+xml"]],
  ["json", ["application/problem+json", "application/json"]],
  ["xml", ["application/problem+xml", "application/xml", "text/xml"]],
  ["text", ["text/plain"]]
];
const cache = /* @__PURE__ */ new Map();
const CACHE_SIZE = 256;
function negotiateErrorFormat(accept) {
  if (accept === void 0 || accept === "" || accept === "*/*") return "html";
  let format = cache.get(accept);
  if (format === void 0) {
    format = choose(accept);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(accept, format);
  }
  return format;
}
function parse(accept) {
  const ranges = [];
  accept.split(",").forEach((part, index) => {
    const [mediaType = "", ...params] = part.split(";");
    const [type, subtype] = mediaType.trim().toLowerCase().split("/");
    if (!type || !subtype) return;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=").map((s) => s.trim());
      if (name?.toLowerCase() === "q") {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q, index });
  });
  return ranges;
}
function specificity(range, mediaType) {
  const [type, subtype] = mediaType.split("/");
  if (range.type === type && range.subtype === subtype) return 3;
  if (range.type === type && range.subtype === "*") return 2;
  if (range.type === "*" && range.subtype === "*") return 1;
  return 0;
}
function choose(accept) {
  const ranges = parse(accept);
  let best;
  for (const [format, mediaTypes] of FORMATS) {
    let decisive;
    let decisiveSpecificity = 0;
    for (const range of ranges) {
      for (const mediaType of mediaTypes) {
        const s = specificity(range, mediaType);
        if (s > decisiveSpecificity || s === decisiveSpecificity && s > 0 && decisive && range.q > decisive.q) {
          decisive = range;
          decisiveSpecificity = s;
        }
      }
    }
    if (!decisive || decisive.q === 0) continue;
    if (!best || decisive.q > best.q || decisive.q === best.q && decisive.index < best.index) {
      best = { format, q: decisive.q, index: decisive.index };
    }
  }
  return best?.format ?? "html";
}
export {
  negotiateErrorFormat
};
//# sourceMappingURL=negotiate.js.map
