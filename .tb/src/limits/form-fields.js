function parseForm(body) {
  const fields = /* @__PURE__ */ Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) addField(fields, name, value);
  return fields;
}
function addField(fields, name, value) {
  const previous = fields[name];
  if (previous === void 0) fields[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else fields[name] = [previous, value];
}
export {
  addField,
  parseForm
};
//# sourceMappingURL=form-fields.js.map
