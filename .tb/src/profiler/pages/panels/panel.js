function definePanel(panel) {
  return panel;
}
export {
  definePanel
};
//# sourceMappingURL=panel.js.map
