class UsageError extends Error {
  name = "UsageError";
}
export {
  UsageError
};
//# sourceMappingURL=command.js.map
