//# sourceMappingURL=report.js.map
