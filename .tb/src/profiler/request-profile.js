//# sourceMappingURL=request-profile.js.map
