import { realpathSync } from "node:fs";
import { sep } from "node:path";
let root;
function projectRoot() {
  if (root === void 0) {
    const cwd = process.cwd();
    try {
      root = realpathSync(cwd);
    } catch {
      root = cwd;
    }
  }
  return root;
}
function isUnder(path, directory) {
  if (path === directory) return true;
  return path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}
export {
  isUnder,
  projectRoot
};
//# sourceMappingURL=project-root.js.map
