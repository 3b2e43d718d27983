const MAX_STRING_LENGTH = 8192;
const MAX_SECTIONS_BYTES = 64 * 1024;
const SHRINK_STEPS = [512, 64];
function cutString(text, max = MAX_STRING_LENGTH) {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 55296 && last <= 56319) end--;
  return `${text.slice(0, end)}\u2026[cut ${thousands(text.length - end)} characters]`;
}
function thousands(count) {
  return String(count).replace(/\B(?=(\d{3})+$)/g, ",");
}
function boundedJson(value, redactor, maxString = MAX_STRING_LENGTH) {
  const plain = JSON.stringify(value) ?? "null";
  const json = redactor ? redactor.json(plain) : plain;
  if (json.length <= maxString) return json;
  const cut = (_key, member) => typeof member === "string" ? cutString(redactor ? redactor.text(member) : member, maxString) : member;
  return JSON.stringify(value, cut) ?? "null";
}
function boundedSections(sections, redactor) {
  try {
    const whole = redactor.json(JSON.stringify(sections));
    if (whole.length <= MAX_STRING_LENGTH) return whole;
  } catch {
  }
  const parts = [];
  for (const [name, section] of Object.entries(sections)) {
    if (section === void 0) continue;
    parts.push({ name, section, json: sectionJson(section, redactor, MAX_STRING_LENGTH), bytes: void 0, step: 0, originalBytes: void 0 });
  }
  while (objectBytes(parts) > MAX_SECTIONS_BYTES) {
    const largest = parts.filter((part) => part.step <= SHRINK_STEPS.length).sort((a, b) => partBytes(b) - partBytes(a))[0];
    if (largest === void 0) return "{}";
    largest.originalBytes ??= partBytes(largest);
    const limit = SHRINK_STEPS[largest.step];
    largest.json = limit === void 0 ? JSON.stringify({ collectorError: `the section was left out: its JSON took ${thousands(largest.originalBytes)} bytes, and a report keeps at most ${thousands(MAX_SECTIONS_BYTES)}` }) : sectionJson(largest.section, redactor, limit);
    largest.bytes = void 0;
    largest.step++;
  }
  return `{${parts.map((part) => `${JSON.stringify(part.name)}:${part.json}`).join(",")}}`;
}
function sectionJson(section, redactor, maxString) {
  try {
    return boundedJson(section, redactor, maxString);
  } catch (error) {
    return JSON.stringify({ collectorError: `the section cannot be serialized: ${error.message}` });
  }
}
function partBytes(part) {
  part.bytes ??= Buffer.byteLength(part.json);
  return part.bytes;
}
function objectBytes(parts) {
  let chars = 2 + Math.max(0, parts.length - 1);
  for (const part of parts) chars += part.name.length + 3 + part.json.length;
  if (chars * 3 <= MAX_SECTIONS_BYTES) return chars;
  let bytes = 2 + Math.max(0, parts.length - 1);
  for (const part of parts) bytes += Buffer.byteLength(JSON.stringify(part.name)) + 1 + partBytes(part);
  return bytes;
}
function boundedTraceJson(trace) {
  let json = boundedJson(trace, void 0);
  for (const limit of SHRINK_STEPS) {
    if (Buffer.byteLength(json) <= MAX_SECTIONS_BYTES) return json;
    json = boundedJson(trace, void 0, limit);
  }
  let frames = Array.isArray(trace) ? trace : [];
  while (Buffer.byteLength(json) > MAX_SECTIONS_BYTES && frames.length > 0) {
    frames = frames.slice(0, Math.floor(frames.length / 2));
    json = boundedJson(frames, void 0, SHRINK_STEPS[SHRINK_STEPS.length - 1]);
  }
  return Buffer.byteLength(json) <= MAX_SECTIONS_BYTES ? json : "[]";
}
export {
  MAX_SECTIONS_BYTES,
  MAX_STRING_LENGTH,
  boundedJson,
  boundedSections,
  boundedTraceJson,
  cutString
};
//# sourceMappingURL=report-bounds.js.map
