let cachedSecond = -1;
let cachedValue = "";
function httpDate(now = Date.now()) {
  const second = Math.floor(now / 1e3);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedValue = new Date(second * 1e3).toUTCString();
  }
  return cachedValue;
}
export {
  httpDate
};
//# sourceMappingURL=http-date.js.map
