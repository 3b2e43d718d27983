import { readFileSync } from "node:fs";
function residentBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "latin1");
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : void 0;
  } catch {
    return void 0;
  }
}
export {
  residentBytes
};
//# sourceMappingURL=memory-meter.js.map
