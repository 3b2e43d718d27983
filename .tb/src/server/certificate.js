import { X509Certificate } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "selfsigned";
import { ConfigError } from "../config.js";
const DEV_HOSTS = { dns: ["localhost"], ips: ["127.0.0.1", "::1"] };
const VALIDITY_DAYS = 365;
async function loadTlsMaterial(config) {
  if (config.tlsCert && config.tlsKey) {
    return { cert: readPem(config.tlsCert, "TLS_CERT"), key: readPem(config.tlsKey, "TLS_KEY"), certFile: config.tlsCert, created: false };
  }
  const dir = join(config.varDir, "tls");
  const certFile = join(dir, "localhost.crt");
  const keyFile = join(dir, "localhost.key");
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, "utf8");
    if (stillValid(cert)) return { cert, key: readFileSync(keyFile, "utf8"), certFile, created: false };
  }
  const notBeforeDate = new Date(Date.now() - 6e4);
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 864e5),
    extensions: [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [...DEV_HOSTS.dns.map((value) => ({ type: 2, value })), ...DEV_HOSTS.ips.map((ip) => ({ type: 7, ip }))]
      }
    ]
  });
  mkdirSync(dir, { recursive: true, mode: 448 });
  writeFileSync(keyFile, pems.private, { mode: 384 });
  chmodSync(keyFile, 384);
  writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, certFile, created: true };
}
function readPem(file, variable) {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${file}: ${error.code ?? error.message}`);
  }
}
function stillValid(pem) {
  try {
    const cert = new X509Certificate(pem);
    const names = cert.subjectAltName ?? "";
    return new Date(cert.validTo).getTime() > Date.now() + 864e5 && DEV_HOSTS.dns.every((name) => names.includes(`DNS:${name}`)) && DEV_HOSTS.ips.every((ip) => cert.checkIP(ip) !== void 0);
  } catch {
    return false;
  }
}
export {
  loadTlsMaterial,
  stillValid
};
//# sourceMappingURL=certificate.js.map
