//# sourceMappingURL=error-view.js.map
