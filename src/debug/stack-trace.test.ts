/** Frames carry a position, and say whose code they run: the application's, the kernel's, a dependency's or Node's. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from './project-root.js';
import {
  frameOrigin,
  framesOf,
  installStackTraces,
  kernelSourceDirectory,
  raiseSiteIn,
  type StackFrame,
} from './stack-trace.js';

const at = (file: string): StackFrame => ({ function: 'f', file, line: 3, column: 1 });

describe('frames without a position are dropped', () => {
  it('leaves out `new Promise` and other frames that have no file or line', async () => {
    installStackTraces();
    const error = await new Promise<Error>((resolve) => {
      resolve(new Error('inside a promise executor'));
    });
    const frames = framesOf(error);
    assert.ok(frames.length > 0);
    for (const frame of frames) {
      assert.ok(frame.file !== '' && frame.line > 0, `${frame.function} ${frame.file}:${frame.line}`);
    }
    assert.ok(
      !frames.some((frame) => frame.function === 'new Promise'),
      frames.map((frame) => frame.function).join(', '),
    );
  });
});

describe("a frame's origin tells the application from the kernel, dependencies and the rest", () => {
  it("finds the kernel's own source directory from this module's frames", () => {
    installStackTraces();
    assert.equal(kernelSourceDirectory(), join(projectRoot(), 'src'));
  });
  it('names frames under the kernel source directory "kernel"', () => {
    assert.equal(frameOrigin(at(join(kernelSourceDirectory(), 'routing/unmatched.ts'))), 'kernel');
  });
  it('names the rest of the project "app", examples and tests included', () => {
    assert.equal(frameOrigin(at(join(projectRoot(), 'examples/demo-routes.ts'))), 'app');
    assert.equal(frameOrigin(at(join(projectRoot(), 'test/fixtures/failing-routes.ts'))), 'app');
    // A directory that only starts like the kernel's is not the kernel's.
    assert.equal(frameOrigin(at(`${kernelSourceDirectory()}-app/handler.ts`)), 'app');
  });
  it('names node_modules frames "vendor", wherever they are', () => {
    assert.equal(frameOrigin(at(join(projectRoot(), 'node_modules/fastify/lib/reply.js'))), 'vendor');
    assert.equal(frameOrigin(at('/usr/lib/node_modules/npm/index.js')), 'vendor');
  });
  it('names Node internals and files outside the project "external"', () => {
    assert.equal(frameOrigin(at('node:internal/process/task_queues')), 'external');
    assert.equal(frameOrigin(at('/elsewhere/script.js')), 'external');
  });
});

describe("the raise site never names the installed kernel's unshipped sources", () => {
  const installed = join(projectRoot(), 'node_modules/vigil/src');
  it("has none for an error of the installed kernel's alone", () => {
    assert.equal(
      raiseSiteIn(
        [at(join(installed, 'routing/unmatched.ts')), at(join(projectRoot(), 'node_modules/fastify/lib/hooks.js'))],
        installed,
      ),
      undefined,
    );
  });
  it("names the application's frame under the kernel's", () => {
    const own = at(join(projectRoot(), 'app/routes.ts'));
    assert.equal(raiseSiteIn([at(join(installed, 'routing/unmatched.ts')), own], installed), own);
  });
  it("names a dependency's first frame when no frame is the application's", () => {
    const vendor = at(join(projectRoot(), 'node_modules/pg/lib/client.js'));
    assert.equal(raiseSiteIn([vendor], installed), vendor);
  });
});
