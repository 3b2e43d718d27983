import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import multipart, {} from "@fastify/multipart";
import { BadRequestHttpError, HttpError } from "../errors/http-errors.js";
import { postBodyLimit, tooLargeMessage } from "./body-limit.js";
import { bodyStalledError, watchBodyStall } from "./body-timeout.js";
import { addField } from "./form-fields.js";
import { PayloadTooLargeHttpError, UploadTooLargeHttpError } from "./limit-errors.js";
import { closeAfterResponse } from "./lingering-close.js";
async function installUploads(scope, limits) {
  await scope.register(multipart, {
    // The file limit is enforced here (to name the file); fields are bounded by the body limit.
    throwFileSizeLimit: false,
    limits: { fileSize: limits.uploadMaxFilesize.bytes, fieldSize: limits.postMaxSize.bytes, parts: 1e3 }
  });
  scope.decorateRequest("uploadedFiles", null);
  scope.addHook("preHandler", async (request, reply) => {
    if (request.isMultipart()) await receiveUploads(request, reply, limits);
  });
}
async function receiveUploads(request, reply, limits) {
  const files = [];
  request.uploadedFiles = files;
  let directory;
  const saving = saveParts(request, limits, files, async () => directory ??= await mkdtemp(join(tmpdir(), "vigil-upload-")));
  reply.raw.once("close", () => {
    saving.catch(() => void 0).then(() => directory === void 0 ? void 0 : rm(directory, { recursive: true, force: true })).catch((error) => request.log.error({ err: error }, `could not remove the uploads in ${directory}`));
  });
  try {
    request.body = await saving;
  } catch (error) {
    closeAfterResponse(request, reply);
    throw error instanceof HttpError || hasClientStatus(error) ? error : new BadRequestHttpError(`The multipart body is malformed: ${error.message}`, "VIGIL_ERR_BAD_MULTIPART", { cause: error });
  }
}
async function saveParts(request, limits, files, directory) {
  const raw = request.raw;
  const fields = /* @__PURE__ */ Object.create(null);
  let currentFile;
  let stop;
  const stopped = new Promise((_, reject) => stop = reject);
  stopped.catch(() => void 0);
  const cut = (error) => {
    raw.removeListener("data", count);
    stall.stop();
    raw.unpipe();
    currentFile?.destroy(error);
    stop(error);
  };
  const waitingOnClient = () => !raw.complete && raw.readableFlowing !== false && raw.readableLength === 0;
  const stall = watchBodyStall(limits.bodyTimeoutMs, () => cut(bodyStalledError(limits.bodyTimeoutMs)), waitingOnClient);
  let received = 0;
  const count = (chunk) => {
    received += chunk.length;
    stall.refresh();
    if (received > limits.postMaxSize.bytes) cut(new PayloadTooLargeHttpError(tooLargeMessage(postBodyLimit(limits.postMaxSize))));
  };
  raw.pause();
  raw.on("data", count);
  try {
    const parts = request.parts()[Symbol.asyncIterator]();
    for (; ; ) {
      const next = await Promise.race([parts.next(), stopped]);
      if (next.done) break;
      const part = next.value;
      if (part.type === "field") {
        if (part.valueTruncated) throw new PayloadTooLargeHttpError(tooLargeMessage(postBodyLimit(limits.postMaxSize)));
        addField(fields, part.fieldname, String(part.value));
        continue;
      }
      const path = join(await directory(), String(files.length));
      const file = part.file;
      currentFile = file;
      file.once("limit", () => {
        file.destroy(new UploadTooLargeHttpError(`The uploaded file "${part.filename}" is larger than UPLOAD_MAX_FILESIZE (${limits.uploadMaxFilesize.text})`));
      });
      const target = createWriteStream(path, { flags: "wx" });
      await Promise.race([pipeline(file, target), stopped]);
      currentFile = void 0;
      files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype, size: target.bytesWritten, path });
    }
    return fields;
  } finally {
    raw.removeListener("data", count);
    stall.stop();
  }
}
function hasClientStatus(error) {
  const status = error?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}
export {
  installUploads
};
//# sourceMappingURL=uploads.js.map
