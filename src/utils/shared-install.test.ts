import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedInstall } from './shared-install.js';

function counted(): { calls: string[]; shared: SharedInstall } {
  const calls: string[] = [];
  const shared = new SharedInstall(
    () => calls.push('install'),
    () => calls.push('uninstall'),
  );
  return { calls, shared };
}

describe('SharedInstall', () => {
  it('installs for the first holder and uninstalls after the last release', () => {
    const { calls, shared } = counted();
    const first = shared.hold();
    const second = shared.hold();
    assert.deepEqual(calls, ['install']);
    first();
    assert.equal(shared.held, true);
    assert.deepEqual(calls, ['install']);
    second();
    assert.equal(shared.held, false);
    assert.deepEqual(calls, ['install', 'uninstall']);
  });

  it('counts a release called twice once', () => {
    const { calls, shared } = counted();
    const first = shared.hold();
    const second = shared.hold();
    first();
    first();
    assert.equal(shared.held, true, 'the second holder still holds');
    second();
    const third = shared.hold();
    assert.deepEqual(calls, ['install', 'uninstall', 'install']);
    third();
  });
});
