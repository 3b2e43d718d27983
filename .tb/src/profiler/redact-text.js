const MAX_NAME = 256;
function isNameChar(code) {
  return code >= 97 && code <= 122 || code >= 65 && code <= 90 || code >= 48 && code <= 57 || code === 95 || code === 45 || code === 46 || code === 91 || code === 93 || code === 37 || code === 126;
}
function endsValue(code) {
  return code <= 32 || code === 38 || code === 35 || code === 34 || code === 60 || code === 62 || code === 8230;
}
const ENCODED_ENDS = /* @__PURE__ */ new Set(["26", "23", "22", "3C", "3E", "20", "09", "0A", "0D"]);
const ENCODED_NAME_CHARS = /* @__PURE__ */ new Set(["5B", "5D", "5F", "2D", "2E", "7E"]);
function redactText(text, isSecret, replacement) {
  return redact(text, isSecret, replacement, false);
}
function redactJson(json, isSecret, replacement) {
  return redact(json, isSecret, replacement, true);
}
function redact(text, isSecret, replacement, json) {
  const cuts = [];
  pairCuts(text, isSecret, replacement, json, cuts);
  if (text.includes("@")) userinfoCuts(text, replacement, json, cuts);
  if (cuts.length === 0) return text;
  cuts.sort((a, b) => a.start - b.start);
  let out = "";
  let copied = 0;
  for (const cut of cuts) {
    if (cut.start < copied) {
      copied = Math.max(copied, cut.end);
      continue;
    }
    out += text.slice(copied, cut.start) + cut.with;
    copied = cut.end;
  }
  return out + text.slice(copied);
}
function escaped(text, at) {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 92; i--) backslashes++;
  return backslashes % 2 === 1;
}
function pairCuts(text, isSecret, replacement, json, cuts) {
  for (let at = text.indexOf("="); at !== -1; ) {
    const end = pairCut(text, at, 1, isSecret, replacement, json, cuts);
    at = text.indexOf("=", Math.max(at + 1, end));
  }
  for (let at = text.indexOf("%3"); at !== -1; ) {
    const next = text.charCodeAt(at + 2);
    const end = next === 68 || next === 100 ? pairCut(text, at, 3, isSecret, replacement, json, cuts) : -1;
    at = text.indexOf("%3", Math.max(at + 2, end));
  }
}
function pairCut(text, at, length, isSecret, replacement, json, cuts) {
  const encoded = length === 3;
  const name = nameBefore(text, at, encoded, json);
  if (name === "" || !isSecret(name)) return -1;
  const start = at + length;
  const end = valueEnd(text, start, encoded, json);
  if (end === start) return -1;
  if (text.slice(start, end) !== replacement) cuts.push({ start, end, with: replacement });
  return end;
}
function nameBefore(text, at, encoded, json) {
  let start = at;
  while (start > 0 && at - start < MAX_NAME && isNameChar(text.charCodeAt(start - 1))) {
    start--;
    if (encoded && text.charCodeAt(start) === 37 && start + 3 <= at && !ENCODED_NAME_CHARS.has(text.slice(start + 1, start + 3).toUpperCase())) {
      start += 3;
      break;
    }
  }
  if (json && start > 0 && escaped(text, start) && text.charCodeAt(start - 1) === 92) start += text[start] === "u" ? 5 : 1;
  return start >= at ? "" : safeDecode(text.slice(start, at));
}
function valueEnd(text, start, encoded, json) {
  let i = start;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (json && code === 92) {
      const next = text[i + 1];
      if (next === "\\") i += 2;
      else if (next === "u" && !text.startsWith("00", i + 2)) i += 6;
      else return i;
      continue;
    }
    if (endsValue(code)) return i;
    if (encoded && code === 37 && ENCODED_ENDS.has(text.slice(i + 1, i + 3).toUpperCase())) return i;
    i++;
  }
  return i;
}
function userinfoCuts(text, replacement, json, cuts) {
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 3)) {
    const start = at + 3;
    const end = userinfoEnd(text, start, json);
    if (end === -1) continue;
    const colon = text.indexOf(":", start);
    if (colon === -1 || colon >= end - 1 || text.slice(colon + 1, end) === replacement) continue;
    cuts.push({ start: colon + 1, end, with: replacement });
  }
}
function userinfoEnd(text, start, json) {
  for (let i = start; i < text.length && i - start < MAX_NAME; i++) {
    const code = text.charCodeAt(i);
    if (code === 64) return i;
    if (code === 47 || code === 63 || endsValue(code) || json && code === 92) return -1;
  }
  return -1;
}
function safeDecode(text) {
  if (!text.includes("%") && !text.includes("+")) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
export {
  redactJson,
  redactText
};
//# sourceMappingURL=redact-text.js.map
