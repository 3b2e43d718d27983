function problemDetails(view, debug) {
  const problem = { type: "about:blank", title: view.title, status: view.status, detail: debug ? view.message : view.title };
  if (debug) {
    const site = view.site;
    problem.exception = {
      class: view.className,
      message: view.message,
      file: site?.file ?? null,
      line: site?.line ?? null,
      trace: view.frames.map((frame) => ({ function: frame.function, file: frame.file, line: frame.line }))
    };
    if (view.token) problem.debugToken = view.token;
  }
  return problem;
}
function renderProblemJson(view, debug) {
  return JSON.stringify(problemDetails(view, debug));
}
const XML_ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
function escapeXml(value) {
  return value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD").replace(/[&<>"']/g, (char) => XML_ENTITIES[char]);
}
function element(name, value) {
  if (value === null || value === void 0) return `<${name}/>`;
  if (Array.isArray(value)) return `<${name}>${value.map((item) => element("frame", item)).join("")}</${name}>`;
  if (typeof value === "object") {
    return `<${name}>${Object.entries(value).map(([key, item]) => element(key, item)).join("")}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}
function renderProblemXml(view, debug) {
  const members = Object.entries(problemDetails(view, debug)).map(([key, value]) => element(key, value)).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<problem xmlns="urn:ietf:rfc:7807">${members}</problem>
`;
}
export {
  escapeXml,
  renderProblemJson,
  renderProblemXml
};
//# sourceMappingURL=render-problem.js.map
