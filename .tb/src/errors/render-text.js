function renderText(view, debug) {
  const statusLine = `${view.status} ${view.title}`;
  if (!debug) return `${statusLine}
`;
  const trace = view.frames.map((frame) => `  at ${frame.function} (${frame.file}:${frame.line})`).join("\n");
  const report = view.reportUrl ? `
Debug report: ${view.reportUrl}
` : "";
  return `${statusLine}

${view.message}

${view.className} (${view.code})
${trace}
${report}`;
}
export {
  renderText
};
//# sourceMappingURL=render-text.js.map
