function rawUrlEncode(value) {
  return encodeURIComponent(value.toWellFormed()).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}
export {
  rawUrlEncode
};
//# sourceMappingURL=rawurlencode.js.map
